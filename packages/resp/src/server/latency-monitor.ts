/** Redis's LATENCY_TS_LEN: samples kept per event. */
const SERIES_LENGTH = 160;

/** One LATENCY HISTORY sample: the second it happened in, its worst latency then (ms). */
export interface LatencySample {
  time: number;
  latency: number;
}

/** One event's samples (Redis's latencyTimeSeries): a ring, one sample per second at most. */
export class LatencySeries {
  /** Where the next sample goes. */
  private idx = 0;
  /** The worst latency since the event was created or reset (all time high). */
  max = 0;
  private readonly samples: LatencySample[] = [];

  add(now: number, latency: number): void {
    if (latency > this.max) this.max = latency;
    const prev = this.samples[(this.idx + SERIES_LENGTH - 1) % SERIES_LENGTH];
    // A second keeps its worst sample, as Redis's latencyAddSample.
    if (prev !== undefined && prev.time === now) {
      if (latency > prev.latency) prev.latency = latency;
      return;
    }
    const s = this.samples[this.idx];
    if (s === undefined) this.samples[this.idx] = { time: now, latency };
    else {
      s.time = now;
      s.latency = latency;
    }
    this.idx = (this.idx + 1) % SERIES_LENGTH;
  }

  /** The samples, oldest first. */
  history(): LatencySample[] {
    const out: LatencySample[] = [];
    for (let j = 0; j < SERIES_LENGTH; j++) {
      const s = this.samples[(this.idx + j) % SERIES_LENGTH];
      if (s !== undefined) out.push(s);
    }
    return out;
  }

  /** The newest sample (a series has one from its creation). */
  latest(): LatencySample {
    return this.samples[(this.idx + SERIES_LENGTH - 1) % SERIES_LENGTH]!;
  }
}

/**
 * Redis's latency monitor (latency.c): per event, the latencies of at
 * least `latency-monitor-threshold` ms. The dispatcher adds "command" and
 * "fast-command" samples (a command flagged `fast` is the latter).
 */
export class LatencyMonitor {
  /** Events in the order they first happened. */
  readonly events = new Map<string, LatencySeries>();
  /** latency-monitor-threshold in ms (0: off). */
  threshold = 0;
  /** The same in µs, +Infinity when off: what the dispatcher compares a duration with. */
  thresholdUs = Number.POSITIVE_INFINITY;

  setThreshold(ms: number): void {
    this.threshold = ms;
    this.thresholdUs = ms > 0 ? ms * 1000 : Number.POSITIVE_INFINITY;
  }

  /** Adds a sample of `event` if it reaches the threshold (latencyAddSampleIfNeeded). */
  addIfNeeded(event: string, ms: number): void {
    if (this.threshold === 0 || ms < this.threshold) return;
    let series = this.events.get(event);
    if (series === undefined) {
      series = new LatencySeries();
      this.events.set(event, series);
    }
    series.add(Math.floor(Date.now() / 1000), ms);
  }

  /** LATENCY RESET: drops `event` (any case), or every event; how many went. */
  reset(event?: string): number {
    if (event === undefined) {
      const n = this.events.size;
      this.events.clear();
      return n;
    }
    let n = 0;
    const lower = event.toLowerCase();
    for (const name of [...this.events.keys()]) {
      if (name.toLowerCase() === lower && this.events.delete(name)) n++;
    }
    return n;
  }
}
