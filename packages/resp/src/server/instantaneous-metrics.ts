/** Samples kept per metric (Redis's STATS_METRIC_SAMPLES). */
const SAMPLES = 16;
/** How often a sample is taken (Redis's serverCron at hz 10). */
const SAMPLE_MS = 100;

/** One counter's rate over the last samples (Redis's trackInstantaneousMetric). */
class Rate {
  private readonly samples = new Float64Array(SAMPLES);
  private index = 0;
  private lastValue = 0;
  private lastMs = 0;

  track(value: number, nowMs: number): void {
    if (this.lastMs !== 0) {
      const elapsed = nowMs - this.lastMs;
      // A counter reset (CONFIG RESETSTAT) reads as no change, not a negative rate.
      const delta = Math.max(0, value - this.lastValue);
      this.samples[this.index] = elapsed > 0 ? (delta * 1000) / elapsed : 0;
      this.index = (this.index + 1) % SAMPLES;
    }
    this.lastValue = value;
    this.lastMs = nowMs;
  }

  /** The mean of the samples, per second. */
  get perSecond(): number {
    let sum = 0;
    for (const s of this.samples) sum += s;
    return sum / SAMPLES;
  }
}

/** What the sampler reads each time. */
export interface MetricSource {
  readonly commands: number;
  readonly netInput: number;
  readonly netOutput: number;
}

/**
 * INFO's instantaneous_ops_per_sec and instantaneous_input/output_kbps, as
 * Redis computes them: a sample every 100 ms of the counters' rate, the
 * mean of the last 16. Also the peak of `used_memory`, sampled with them.
 */
export class InstantaneousMetrics {
  readonly ops = new Rate();
  readonly input = new Rate();
  readonly output = new Rate();
  /** The largest `used_memory` seen (used_memory_peak). */
  peakMemory = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly source: MetricSource,
    /** Bytes counted as external memory that were never touched (see usedMemory). */
    private readonly untouched: () => number = () => 0,
  ) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  sample(nowMs = Date.now()): void {
    const s = this.source;
    this.ops.track(s.commands, nowMs);
    this.input.track(s.netInput, nowMs);
    this.output.track(s.netOutput, nowMs);
    this.notePeak(usedMemory(this.untouched()));
  }

  notePeak(used: number): void {
    if (used > this.peakMemory) this.peakMemory = used;
  }
}

/**
 * INFO's used_memory: the V8 heap in use and the memory outside it that it
 * tracks (Buffers), less `untouched`: external bytes never written, which
 * the OS has not made resident (the log rings' frames the tail has not
 * reached yet: `untouchedLogBytes`).
 */
export function usedMemory(untouched = 0): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external - untouched;
}

/** The open databases' logs, as `untouchedLogBytes` reads them (the Keyspace). */
export interface OpenLogs {
  readonly count: number;
  get(index: number): { readonly log: { memoryBytes: number; residentBytes: number } } | undefined;
}

/** The part of the open databases' log budgets that the tail never reached. */
export function untouchedLogBytes(keyspace: OpenLogs): number {
  let bytes = 0;
  for (let db = 0; db < keyspace.count; db++) {
    const log = keyspace.get(db)?.log;
    if (log !== undefined) bytes += log.memoryBytes - log.residentBytes;
  }
  return bytes;
}
