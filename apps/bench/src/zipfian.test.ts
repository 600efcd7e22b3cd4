import { describe, expect, it } from 'vitest';
import { scramble, Zipfian } from './zipfian.js';

/** A seeded uniform source in [0, 1), so the counts below are the same every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('Zipfian', () => {
  it('draws every item inside [0, n) and favours the low ranks as theta 0.99 says', () => {
    const n = 10_000;
    const z = new Zipfian(n, 0.99, seeded(7));
    const counts = new Uint32Array(n);
    const draws = 200_000;
    for (let i = 0; i < draws; i++) {
      const r = z.nextRank();
      expect(r >= 0 && r < n).toBe(true);
      counts[r]!++;
    }
    // P(rank 0) = 1 / zeta(n): about 0.102 for n = 10^4, theta 0.99.
    expect(counts[0]! / draws).toBeGreaterThan(0.08);
    expect(counts[0]! / draws).toBeLessThan(0.12);
    expect(counts[0]!).toBeGreaterThan(counts[1]!);
    expect(counts[1]!).toBeGreaterThan(counts[100]!);
  });

  it('scrambles ranks into items without collisions among the first ones', () => {
    const n = 1_000_003;
    const seen = new Set<number>();
    for (let r = 0; r < 1000; r++) seen.add(scramble(r) % n);
    expect(seen.size).toBeGreaterThan(995);
    const z = new Zipfian(n, 0.99, seeded(1));
    for (let i = 0; i < 1000; i++) {
      const item = z.next();
      expect(item >= 0 && item < n).toBe(true);
    }
  });

  it('refuses a parameter outside its range', () => {
    expect(() => new Zipfian(1)).toThrow(RangeError);
    expect(() => new Zipfian(10, 1)).toThrow(RangeError);
  });
});
