import { Prng } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { CacheEntry } from './cache-entry.js';
import { KeyTable } from './key-table.js';

function entry(key: string, hash?: number): CacheEntry {
  const k = Buffer.from(key);
  return new CacheEntry(k, hash ?? KeyTable.hash(k), null, 0);
}

describe('KeyTable', () => {
  it('finds entries by key bytes, grows, and removes with backward shift', () => {
    const rng = new Prng(3);
    const t = new KeyTable(4);
    const model = new Map<string, CacheEntry>();
    for (let i = 0; i < 20_000; i++) {
      const k = `key:${Math.floor(rng.next() * 3000)}`;
      const have = model.get(k);
      if (have === undefined) {
        const e = entry(k);
        t.insert(e);
        model.set(k, e);
      } else if (rng.next() < 0.6) {
        expect(t.remove(have)).toBe(true);
        model.delete(k);
      }
      if (i % 1000 === 0) {
        expect(t.size).toBe(model.size);
        for (const [key, e] of model) expect(t.find(Buffer.from(key))).toBe(e);
      }
    }
    for (let i = 0; i < 3000; i++) {
      const k = `key:${i}`;
      expect(t.find(Buffer.from(k))).toBe(model.get(k));
    }
  });

  it('the entry found last answers its key again only while it is in the table', () => {
    const rng = new Prng(11);
    const t = new KeyTable(4);
    const model = new Map<string, CacheEntry>();
    for (let i = 0; i < 20_000; i++) {
      const k = `k${Math.floor(rng.next() * 50)}`;
      const key = Buffer.from(k);
      // Found, then changed by a removal, a new entry or a clear, then found again.
      expect(t.find(key)).toBe(model.get(k));
      const have = model.get(k);
      const r = rng.next();
      if (have !== undefined && r < 0.4) {
        t.remove(have);
        model.delete(k);
      } else if (have === undefined && r < 0.8) {
        const e = entry(k);
        t.insert(e);
        model.set(k, e);
      } else if (r > 0.999) {
        t.clear();
        model.clear();
      }
      expect(t.find(key)).toBe(model.get(k));
      const other = `k${Math.floor(rng.next() * 50)}`;
      expect(t.find(Buffer.from(other))).toBe(model.get(other));
    }
  });

  it('keeps colliding hashes apart by bytes and survives removals in the middle of a run', () => {
    const t = new KeyTable(4);
    const es = ['a', 'b', 'c', 'd', 'e'].map((k) => entry(k, 5)); // all in one probe run
    for (const e of es) t.insert(e);
    expect(t.remove(es[1]!)).toBe(true);
    expect(t.remove(es[1]!)).toBe(false);
    for (const e of [es[0]!, es[2]!, es[3]!, es[4]!]) expect(t.find(e.key, 5)).toBe(e);
    expect(t.find(Buffer.from('b'), 5)).toBeUndefined();
  });
});
