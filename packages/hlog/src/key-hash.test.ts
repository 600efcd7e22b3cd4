import { describe, expect, it } from 'vitest';
import { hashBytes, hashKey } from './key-hash.js';

describe('key hash', () => {
  it('is deterministic, 48-bit, and offset independent', () => {
    const k = Buffer.from('some-key-123');
    const h = hashKey(k);
    expect(Number.isInteger(h)).toBe(true);
    expect(h).toBeGreaterThanOrEqual(0);
    expect(h).toBeLessThan(2 ** 48);
    const framed = Buffer.concat([Buffer.from('xyz'), k, Buffer.from('!!')]);
    expect(hashBytes(framed, 3, k.length)).toBe(h);
    expect(hashKey(Buffer.alloc(0))).toBe(hashKey(new Uint8Array(0)));
  });

  it('spreads low bits and high bits', () => {
    const n = 1 << 16;
    const low = new Uint32Array(256);
    const high = new Uint32Array(256);
    const seen = new Set<number>();
    const key = Buffer.alloc(16);
    for (let i = 0; i < n; i++) {
      key.writeUInt32LE(i, 0);
      const h = hashKey(key);
      seen.add(h);
      low[h & 0xff]!++;
      high[Math.floor(h / 2 ** 40) & 0xff]!++;
    }
    expect(seen.size).toBe(n);
    for (const c of [...low, ...high]) {
      expect(c).toBeGreaterThan(256 * 0.7);
      expect(c).toBeLessThan(256 * 1.3);
    }
  });

  it('distinguishes lengths and tails', () => {
    const hs = new Set<number>();
    for (let len = 0; len < 12; len++) hs.add(hashKey(Buffer.alloc(len, 1)));
    expect(hs.size).toBe(12);
  });
});
