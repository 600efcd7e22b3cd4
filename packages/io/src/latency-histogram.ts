/** Latency of completed operations in microseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Linear sub-buckets per power of two: 16 bounds the relative error to 1/16 (6.25%). */
const SUB_BITS = 4;
const SUB_COUNT = 1 << SUB_BITS;
/** Values are nanoseconds; the last group covers [2^49, 2^50) ns (about 13 days). */
const MAX_EXPONENT = 49;
const GROUPS = MAX_EXPONENT - SUB_BITS + 2;
const BUCKETS = GROUPS * SUB_COUNT;
const TWO_32 = 4294967296;

/**
 * A fixed log-linear histogram of durations (HdrHistogram-like): 16 linear
 * buckets per power of two of nanoseconds in one preallocated Float64Array,
 * so recording is a few arithmetic operations and allocates nothing.
 * Percentiles are exact to within one bucket (6.25%); `max` is exact.
 */
export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  private total = 0;
  private maxNs = 0;

  get count(): number {
    return this.total;
  }

  /** Records one duration in nanoseconds. */
  recordNs(ns: number): void {
    const v = ns > 0 ? Math.floor(ns) : 0;
    this.counts[bucketOf(v)]! += 1;
    this.total++;
    if (v > this.maxNs) this.maxNs = v;
  }

  /** Records the time since `startMs` (a `performance.now()` reading). */
  recordSince(startMs: number, nowMs: number): void {
    this.recordNs((nowMs - startMs) * 1e6);
  }

  /** The value at quantile `q` (0..1) in nanoseconds: the highest value of its bucket, at most `max`. */
  quantileNs(q: number): number {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(bucketHigh(i), this.maxNs);
    }
    return this.maxNs;
  }

  get maxNanoseconds(): number {
    return this.maxNs;
  }

  /** p50, p99 and max in microseconds. */
  summary(): LatencySummary {
    return {
      count: this.total,
      p50: this.quantileNs(0.5) / 1000,
      p99: this.quantileNs(0.99) / 1000,
      max: this.maxNs / 1000,
    };
  }

  reset(): void {
    this.counts.fill(0);
    this.total = 0;
    this.maxNs = 0;
  }
}

function exponentOf(v: number): number {
  return v < TWO_32 ? 31 - Math.clz32(v) : 63 - Math.clz32(Math.floor(v / TWO_32));
}

/** Bucket index of a non-negative integer value. */
export function bucketOf(v: number): number {
  if (v < SUB_COUNT) return v;
  const e = exponentOf(v);
  if (e > MAX_EXPONENT) return BUCKETS - 1;
  const shift = e - SUB_BITS;
  const sub = Math.floor(v / 2 ** shift) - SUB_COUNT;
  return (shift + 1) * SUB_COUNT + sub;
}

/** The highest value that falls in bucket `i`. */
export function bucketHigh(i: number): number {
  const group = Math.floor(i / SUB_COUNT);
  const sub = i % SUB_COUNT;
  if (group === 0) return sub;
  const width = 2 ** (group - 1);
  return (SUB_COUNT + sub) * width + width - 1;
}
