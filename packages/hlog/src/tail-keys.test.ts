import { describe, expect, it } from 'vitest';
import { hashBytes } from './key-hash.js';
import { TailKeys } from './tail-keys.js';

describe('TailKeys', () => {
  it('keeps each key once: its newest state and the previous address of its first record', () => {
    const t = new TailKeys();
    const note = (k: string, state: number, previous: number) => {
      const b = Buffer.from(k);
      t.note(b, 0, b.length, hashBytes(b, 0, b.length), state, previous);
    };
    // Past the arrays' first size, so they grow.
    for (let i = 0; i < 5000; i++) note(`k${i}`, 0, 100 + i);
    for (let i = 0; i < 5000; i += 2) note(`k${i}`, i % 4 === 0 ? -1 : 777, 9_999_999);
    expect(t.size).toBe(5000);
    const seen = new Map<string, [number, number]>();
    let cursor = 0;
    do {
      cursor = t.forSome(cursor, 100, (key, state, first) => {
        seen.set(key.toString(), [state, first]);
      });
    } while (cursor !== 0);
    expect(seen.size).toBe(5000);
    expect(seen.get('k0')).toEqual([-1, 100]);
    expect(seen.get('k2')).toEqual([777, 102]);
    expect(seen.get('k3')).toEqual([0, 103]);
    expect(seen.get('k4999')).toEqual([0, 5099]);
  });
});
