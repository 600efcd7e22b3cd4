import { Prng } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { decoderFor } from './codecs.js';
import { HASH_MAX_LISTPACK_ENTRIES, HashValue } from './hash-value.js';

function contents(h: HashValue): Map<string, string> {
  const m = new Map<string, string>();
  h.forEach((f, v) => {
    m.set(f, v);
  });
  return m;
}

describe('HashValue', () => {
  it('is a listpack while small and keeps insertion order', () => {
    const h = HashValue.empty();
    expect(h.set('b', '1')).toBe(true);
    expect(h.set('a', '2')).toBe(true);
    expect(h.set('b', '3')).toBe(false);
    expect(h.encoding()).toBe('listpack');
    expect([...contents(h)]).toEqual([
      ['b', '3'],
      ['a', '2'],
    ]);
    expect(h.delete('b')).toBe(true);
    expect(h.delete('b')).toBe(false);
    expect(h.size).toBe(1);
  });

  it('converts to a hashtable past 128 fields or a 65-byte value, and stays one', () => {
    const h = HashValue.empty();
    for (let i = 0; i < HASH_MAX_LISTPACK_ENTRIES; i++) h.set(`f${i}`, 'v');
    expect(h.encoding()).toBe('listpack');
    h.set('one-more', 'v');
    expect(h.encoding()).toBe('hashtable');
    h.delete('one-more');
    expect(h.encoding()).toBe('hashtable');
    const g = HashValue.empty();
    g.set('f', 'x'.repeat(64));
    expect(g.encoding()).toBe('listpack');
    g.set('f', 'x'.repeat(65));
    expect(g.encoding()).toBe('hashtable');
  });

  it('round-trips any bytes through encode and the registered decoder', () => {
    const rng = new Prng(11);
    for (const n of [0, 5, 300]) {
      const h = HashValue.empty();
      for (let i = 0; i < n; i++) {
        const f = Buffer.from(
          Array.from({ length: 1 + (i % 70) }, () => rng.nextInt(256)),
        ).toString('latin1');
        h.set(f, Buffer.from([0, 255, i & 255, 13, 10]).toString('latin1'));
      }
      const back = decoderFor(2 - 1)!(h.encode()) as HashValue;
      expect(back.size).toBe(h.size);
      expect(contents(back)).toEqual(contents(h));
      expect(back.encoding()).toBe(h.encoding());
    }
  });

  it('scans a hashtable with a cursor, every stable field at least once', () => {
    const h = HashValue.empty();
    for (let i = 0; i < 1000; i++) h.set(`f${i}`, `${i}`);
    const seen = new Set<string>();
    let cursor = 0;
    do {
      cursor = h.scan(cursor, 10, (f) => seen.add(f));
      h.delete(`f${999 - seen.size}`); // fields disappear meanwhile
    } while (cursor !== 0);
    for (let i = 0; i < 500; i++) expect(seen.has(`f${i}`)).toBe(true);
  });

  it('tracks memory as it changes', () => {
    const h = HashValue.empty();
    const empty = h.memoryBytes();
    h.set('field', 'x'.repeat(50));
    expect(h.memoryBytes()).toBeGreaterThan(empty + 50);
    h.delete('field');
    expect(h.memoryBytes()).toBe(empty);
  });
});
