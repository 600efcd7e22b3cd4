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

describe('KeyStateTable deletes', () => {
  it('get, delete and sweep agree with a Map through shifts, wrap-around and arena compaction', () => {
    const table = new KeyStateTable();
    const model = new Map<string, number>();
    let seed = 11;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    // Few distinct hashes (rand % 64 plus a shared one) make long probe runs
    // that wrap around the table's end; long keys fill arena chunks quickly.
    const hashOf = (name: string) =>
      (name.length % 3 === 0 ? 0x3ff : hashKey(Buffer.from(name)) % 64) + 1020;
    for (let i = 0; i < 60_000; i++) {
      const name = `k${rand(3000)}-${'y'.repeat(rand(600))}`;
      const key = Buffer.from(name);
      const hash = hashOf(name);
      const op = rand(10);
      if (op < 5) {
        const previous = table.set(key, 0, key.length, hash, i);
        expect(previous).toEqual(model.get(name) ?? Number.NaN);
        model.set(name, i);
      } else if (op < 9) {
        expect(table.delete(key, 0, key.length, hash)).toEqual(model.get(name) ?? Number.NaN);
        model.delete(name);
      } else {
        expect(table.get(key, 0, key.length, hash)).toEqual(model.get(name) ?? Number.NaN);
      }
      if (i % 10_000 === 9_999) {
        // Drop every key with an odd state, as the expiry sweep drops passed keys.
        const seen: string[] = [];
        table.sweep((k, state) => {
          seen.push(k.toString());
          return state % 2 === 0;
        });
        expect(new Set(seen)).toEqual(new Set(model.keys()));
        for (const [k, state] of model) if (state % 2 !== 0) model.delete(k);
      }
      expect(table.size).toBe(model.size);
    }
    for (const [name, state] of model) {
      const key = Buffer.from(name);
      expect(table.get(key, 0, key.length, hashOf(name))).toBe(state);
    }
    // Long probe runs by design: ~10 s alone, three times that on a busy machine.
  }, 120_000);
});
