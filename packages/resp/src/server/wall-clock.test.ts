import { describe, expect, it } from 'vitest';
import { WallClock } from './wall-clock.js';

describe('WallClock', () => {
  it('gives the wall time of a monotonic reading, whole ms, within a ms of Date.now()', async () => {
    const w = new WallClock();
    for (let i = 0; i < 1000; i++) {
      const before = Date.now();
      const t = w.at(performance.now());
      const after = Date.now();
      expect(Number.isInteger(t)).toBe(true);
      // The two clocks' offset is read with one call between them: a ms either way.
      expect(t).toBeGreaterThanOrEqual(before - 1);
      expect(t).toBeLessThanOrEqual(after + 1);
      if (i % 250 === 0) await new Promise((r) => setTimeout(r, 120));
    }
    // A reading taken earlier maps to an earlier wall time.
    const then = performance.now();
    expect(w.at(then - 50)).toBeLessThanOrEqual(w.at(then) - 49);
  });

  it('reads the offset again once a reading is past its refresh: a stepped wall clock shows', () => {
    const w = new WallClock();
    const realNow = Date.now;
    try {
      const t0 = performance.now();
      const base = w.at(t0);
      Date.now = () => realNow() + 3_600_000;
      // Within the refresh: the old offset.
      expect(w.at(t0 + 10)).toBeLessThan(base + 1000);
      // Past it: the stepped clock.
      expect(w.at(performance.now() + 200)).toBeGreaterThan(base + 3_500_000);
    } finally {
      Date.now = realNow;
    }
  });
});
