import { describe, expect, it } from 'vitest';
import { bucketHigh, bucketOf, LatencyHistogram } from './latency-histogram.js';

describe('LatencyHistogram', () => {
  it('maps every value into a bucket whose range contains it', () => {
    for (const v of [0, 1, 15, 16, 17, 31, 32, 1000, 123_456, 2 ** 31, 2 ** 32 + 5, 2 ** 40 + 77]) {
      const i = bucketOf(v);
      expect(bucketHigh(i)).toBeGreaterThanOrEqual(v);
      if (i > 0) expect(bucketHigh(i - 1)).toBeLessThan(v);
    }
  });

  it('buckets are monotonic and at most 1/16 wide relative to their values', () => {
    for (let i = 17; i < 700; i++) {
      const low = bucketHigh(i - 1) + 1;
      const high = bucketHigh(i);
      expect(high).toBeGreaterThanOrEqual(low);
      expect((high - low + 1) / low).toBeLessThanOrEqual(1 / 16);
    }
  });

  it('reports percentiles within one bucket and the exact max', () => {
    const h = new LatencyHistogram();
    for (let us = 1; us <= 1000; us++) h.recordNs(us * 1000);
    const s = h.summary();
    expect(s.count).toBe(1000);
    expect(s.max).toBe(1000);
    expect(s.p50).toBeGreaterThanOrEqual(500);
    expect(s.p50).toBeLessThanOrEqual(500 * 1.0625);
    expect(s.p99).toBeGreaterThanOrEqual(990);
    expect(s.p99).toBeLessThanOrEqual(1000);
  });

  it('handles an outlier, huge and negative values, and resets', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 99; i++) h.recordNs(2000);
    h.recordNs(5e9);
    expect(h.summary().p50).toBeLessThanOrEqual(2.125);
    expect(h.summary().p99).toBeLessThanOrEqual(2.125);
    expect(h.summary().max).toBe(5e6);
    h.recordNs(-5);
    h.recordNs(1e20);
    expect(h.count).toBe(102);
    h.reset();
    expect(h.summary()).toEqual({ count: 0, p50: 0, p99: 0, max: 0 });
  });
});
