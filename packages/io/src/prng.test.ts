import { describe, expect, it } from 'vitest';
import { Prng } from './prng.js';

describe('Prng', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const c = new Prng(43);
    const seqA = Array.from({ length: 20 }, () => a.nextUint32());
    expect(Array.from({ length: 20 }, () => b.nextUint32())).toEqual(seqA);
    expect(Array.from({ length: 20 }, () => c.nextUint32())).not.toEqual(seqA);
  });

  it('produces values in range, spread out', () => {
    const p = new Prng(1);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const v = p.next();
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
      buckets[Math.floor(v * 10)]!++;
    }
    for (const b of buckets) expect(b).toBeGreaterThan(800);
    for (let i = 0; i < 1000; i++) {
      const r = p.nextRange(3, 5);
      expect(r === 3 || r === 4 || r === 5).toBe(true);
      expect(p.nextInt(7)).toBeLessThan(7);
    }
  });

  it('fills buffers of any length deterministically', () => {
    const a = new Prng(9).fill(new Uint8Array(13));
    const b = new Prng(9).fill(new Uint8Array(13));
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThan(5);
  });
});
