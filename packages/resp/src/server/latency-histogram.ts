/**
 * The buckets of LATENCY HISTOGRAM, in µs. Redis records each call in an
 * HDR histogram (1 µs to 1 s, 2 significant digits, in ns) and reports it
 * by powers of two from 1024 ns, each as the highest value of the bin that
 * power falls in: 1024 ns -> 1535 -> 1 µs, 32768 ns -> 33279 -> 33 µs...
 * Only these buckets are ever reported, so a call is counted straight into
 * the first one that holds it.
 */
export const HISTOGRAM_BUCKETS_US: readonly number[] = [
  1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908, 33816, 67633, 135266,
  270532, 541065, 1082130,
];

/** Redis clamps what it records to the histogram's range: 1 µs to 1 s. */
const MAX_US = 1_000_000;

/** The bucket of a call of `us` whole microseconds. */
export function histogramBucket(us: number): number {
  const v = Math.max(1, Math.min(us, MAX_US));
  // ceil(log2(v)): the bucket is that power's, or the one below when its bin reaches v (33 µs).
  let k = v <= 1 ? 0 : 32 - Math.clz32(v - 1);
  if (k > 0 && v <= HISTOGRAM_BUCKETS_US[k - 1]!) k--;
  return k;
}

/** A new histogram: calls per bucket. */
export function newHistogram(): Float64Array {
  return new Float64Array(HISTOGRAM_BUCKETS_US.length);
}
