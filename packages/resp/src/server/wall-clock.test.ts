import { describe, expect, it } from 'vitest';
import { WallClock } from './wall-clock.js';

describe('WallClock', () => {
  it('gives the wall time of a monotonic reading, whole ms, within a ms of Date.now()', () => {
    const w = new WallClock();
    for (let i = 0; i < 1000; i++) {
      const before = Date.now();
      const t = w.at(performance.now());
      const after = Date.now();
      expect(Number.isInteger(t)).toBe(true);
      // The two clocks' offset is read with one call between them: a ms either way.
      expect(t).toBeGreaterThanOrEqual(before - 1);
      expect(t).toBeLessThanOrEqual(after + 1);
      if (i % 100 === 0) w.refresh();
    }
    // A reading taken earlier maps to an earlier wall time.
    const then = performance.now();
    expect(w.at(then - 5000)).toBeLessThanOrEqual(w.at(then) - 4999);
  });
});
