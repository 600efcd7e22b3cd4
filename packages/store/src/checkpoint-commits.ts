import type { CommandLog } from '@strata/resp';
import type { TransactionFence } from './transaction-fence.js';

/**
 * When a write is durable: `always`, before it is acknowledged; `everysec`,
 * within about a second; `no`, at the periodic checkpoints and close.
 */
export type SyncPolicy = 'always' | 'everysec' | 'no';

/**
 * The embedded database's command log: there is no append-only file, a
 * write is durable once a checkpoint holds it. With `always` each write's
 * reply waits for a checkpoint that began after it (group commit: the
 * writes of one turn, and those that came while a checkpoint ran, share
 * the next one); with `everysec` a checkpoint runs each second after a
 * write; with `no` only the periodic ones and close's.
 */
export class CheckpointCommits implements CommandLog {
  /** The checkpoint the writes so far wait for (not started yet), if any. */
  private next: {
    promise: Promise<void>;
    resolve: () => void;
    reject: (e: unknown) => void;
  } | null = null;
  private running: Promise<void> | null = null;
  /** Writes since the last checkpoint began. */
  private dirty = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(
    private readonly policy: SyncPolicy,
    private readonly checkpoint: () => Promise<void>,
    private readonly fence: TransactionFence,
  ) {}

  append(_db: number, argv: readonly Buffer[]): Promise<void> | undefined {
    this.fence.observe(argv);
    this.dirty = true;
    return this.policy === 'always' ? this.commit() : undefined;
  }

  /** A checkpoint that begins after this call; resolves once it is on disk. */
  commit(): Promise<void> {
    if (this.next === null) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.next = { promise, resolve, reject };
      // The other writes of this turn join it.
      if (this.running === null) setImmediate(() => this.pump());
    }
    return this.next.promise;
  }

  private pump(): void {
    const next = this.next;
    if (next === null || this.running !== null) return;
    this.next = null;
    this.dirty = false;
    this.running = this.checkpoint().then(next.resolve, next.reject);
    void this.running.then(() => {
      this.running = null;
      this.pump();
    });
  }

  /**
   * Starts the timers: `everysec`'s checkpoint after writes, and one every
   * `everyMs` when something was written (0: none).
   */
  start(everyMs: number): void {
    const tick = (ms: number) => {
      const t = setInterval(() => {
        if (this.dirty && !this.stopped) this.commit().catch(() => undefined);
      }, ms);
      t.unref();
      this.timers.push(t);
    };
    if (this.policy === 'everysec') tick(1000);
    if (everyMs > 0) tick(everyMs);
  }

  /** Stops the timers and waits for the checkpoints asked for so far. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.next?.promise.catch(() => undefined);
    await this.running;
  }
}
