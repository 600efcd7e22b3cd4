import { Worker } from 'node:worker_threads';

/**
 * The worker's code: every quarter period it reads the main thread's
 * heartbeat, and once per stall writes Redis's watchdog lines itself (the
 * main thread, blocked, cannot), to the log's file or standard output.
 */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { beat, pid, logfile } = workerData;
let period = workerData.period;
let reported = false;
let timer = null;
const write = (text) => (logfile === '' ? fs.writeSync(1, text) : fs.appendFileSync(logfile, text));
const check = () => {
  const late = Date.now() - Number(Atomics.load(beat, 0));
  if (late <= period) {
    reported = false;
    return;
  }
  if (reported) return;
  reported = true;
  const head = pid + ':signal-handler (' + Math.floor(Date.now() / 1000) + ') ';
  write(head + '\\n--- WATCHDOG TIMER EXPIRED ---\\n' +
    head + 'The event loop has not run for ' + late + ' ms (watchdog-period ' + period + ').\\n' +
    head + '--------\\n');
};
const start = () => {
  if (timer !== null) clearInterval(timer);
  timer = setInterval(check, Math.max(5, Math.floor(period / 4)));
};
parentPort.on('message', (p) => {
  period = p;
  start();
});
start();
`;

/** The shortest period: Redis raises a shorter one to two ticks of its cron. */
const MIN_PERIOD_MS = 20;

/**
 * Redis's software watchdog (`watchdog-period`, ms; 0 off): when the event
 * loop does not run for longer than the period, `--- WATCHDOG TIMER
 * EXPIRED ---` is logged while it is stuck (by a worker thread: Redis logs
 * from its SIGALRM handler, with the main thread's stack, which a worker
 * cannot read), and once it runs again the stall's length. Off, no worker
 * exists.
 */
export class Watchdog {
  private worker: Worker | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly beat = new BigInt64Array(new SharedArrayBuffer(8));
  /** As set (CONFIG GET), and as watched (raised to MIN_PERIOD_MS). */
  private periodMs = 0;
  private effectiveMs = 0;
  private last = 0;

  constructor(
    private readonly sink: { readonly pid: number; readonly logfile: string },
    /** The stall's length, logged once the loop runs again. */
    private readonly stalled: (ms: number, periodMs: number) => void,
  ) {}

  get period(): number {
    return this.periodMs;
  }

  /** Sets the period (0: off), as CONFIG SET watchdog-period does. */
  setPeriod(ms: number): void {
    const period = ms <= 0 ? 0 : Math.max(MIN_PERIOD_MS, ms);
    this.periodMs = Math.max(0, ms);
    this.effectiveMs = period;
    if (period === 0) {
      this.stop();
      return;
    }
    this.tick();
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = setInterval(() => this.tick(), Math.max(5, Math.floor(period / 4)));
    this.timer.unref();
    if (this.worker === null) {
      this.worker = new Worker(WORKER, {
        eval: true,
        workerData: { beat: this.beat, period, ...this.sink },
      });
      this.worker.unref();
    } else this.worker.postMessage(period);
  }

  private tick(): void {
    const now = Date.now();
    const gap = this.last === 0 ? 0 : now - this.last;
    this.last = now;
    Atomics.store(this.beat, 0, BigInt(now));
    if (this.effectiveMs > 0 && gap > this.effectiveMs) {
      this.stalled(gap, this.periodMs);
    }
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.last = 0;
    void this.worker?.terminate();
    this.worker = null;
  }
}
