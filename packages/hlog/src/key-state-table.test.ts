import { describe, expect, it } from 'vitest';
import { hashKey } from './key-hash.js';
import { KeyStateTable } from './key-state-table.js';

describe('KeyStateTable', () => {
  it('keeps the newest state per key like a Map, through growth and hash collisions', () => {
    const table = new KeyStateTable(10);
    const model = new Map<string, number>();
    let seed = 7;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const name = `key-${rand(5000)}${'x'.repeat(rand(40))}`;
      const key = Buffer.from(`..${name}`);
      // One key in four gets a shared hash: keys must be told apart by their bytes.
      const hash = rand(4) === 0 ? 12345 : hashKey(key.subarray(2));
      const state = rand(3) - 1;
      const previous = table.set(key, 2, key.length - 2, hash, state);
      const want = model.get(`${hash}:${name}`);
      if (want === undefined) expect(previous).toBeNaN();
      else expect(previous).toBe(want);
      model.set(`${hash}:${name}`, state);
    }
    expect(table.size).toBe(model.size);
    const states: number[] = [];
    table.forEachState((s) => states.push(s));
    expect(states.sort()).toEqual([...model.values()].sort());
  });
});
