import { describe, expect, it } from 'vitest';
import { HashValue } from './hash-value.js';

function fields(h: HashValue): string[] {
  const out: string[] = [];
  h.forEach((f) => {
    out.push(f);
  });
  return out;
}

describe('HashValue field expiry', () => {
  it('keeps the flat shape in listpackex order: expiring fields first, soonest first', () => {
    const h = HashValue.empty();
    for (const f of ['a', 'b', 'c', 'd']) h.set(f, f.toUpperCase());
    expect(h.encoding()).toBe('listpack');
    h.withTtls();
    expect(h.encoding()).toBe('listpackex');
    h.setTtl('c', 300);
    h.setTtl('a', 100);
    h.setTtl('d', 100); // equal times: before the one already there
    expect(fields(h)).toEqual(['d', 'a', 'c', 'b']);
    expect(h.minFieldTtl()).toBe(100);
    h.setTtl('d', 0); // persisted: after every expiring field, last
    expect(fields(h)).toEqual(['a', 'c', 'b', 'd']);
    h.set('a', 'A2'); // HSET drops the expiry
    expect(h.ttlOf('a')).toBe(0);
    expect(fields(h)).toEqual(['c', 'b', 'd', 'a']);
    h.set('c', 'C2', true); // KEEPTTL
    expect(h.ttlOf('c')).toBe(300);
    expect(h.minFieldTtl()).toBe(300);
  });

  it('tells expired fields apart (before now) and deletes due ones (at or before now) up to a budget', () => {
    const h = HashValue.empty();
    for (let i = 0; i < 10; i++) h.set(`f${i}`, 'v');
    for (let i = 0; i < 6; i++) h.setTtl(`f${i}`, 1000 + i);
    expect(h.isExpired('f0', 1000)).toBe(false);
    expect(h.isExpired('f0', 1001)).toBe(true);
    expect(h.isExpired('f9', 1e15)).toBe(false);
    expect(h.liveSize(1003)).toBe(7);
    const out: string[] = [];
    expect(h.expireFields(1003, 2, out)).toBe(2);
    expect(out).toEqual(['f0', 'f1']);
    expect(h.expireFields(1003, 10, out)).toBe(2);
    expect(out).toEqual(['f0', 'f1', 'f2', 'f3']);
    expect(h.size).toBe(6);
    expect(h.minFieldTtl()).toBe(1004);
    expect(h.expireFields(1003, 10, out)).toBe(0);
  });

  it('round-trips expiry times through the record, flat and hashtable', () => {
    for (const n of [3, 600]) {
      const h = HashValue.empty();
      for (let i = 0; i < n; i++) h.set(`f${i}`, `v${i}`);
      h.setTtl('f1', 4102444800000);
      h.setTtl('f2', 4102444800123);
      const d = HashValue.decode(h.encode());
      expect(d.encoding()).toBe(h.encoding());
      expect(d.ttlOf('f1')).toBe(4102444800000);
      expect(d.ttlOf('f2')).toBe(4102444800123);
      expect(d.ttlOf('f0')).toBe(0);
      expect(d.minFieldTtl()).toBe(4102444800000);
      expect(fields(d)).toEqual(fields(h));
    }
  });

  it('stays listpackex when no field keeps an expiry, and a plain hash stays format 1', () => {
    const h = HashValue.empty();
    h.set('a', '1');
    expect(h.encode()[0]).toBe(1);
    h.setTtl('a', 5);
    h.setTtl('a', 0);
    expect(h.hasFieldTtls).toBe(false);
    const d = HashValue.decode(h.encode());
    expect(d.encoding()).toBe('listpackex');
    expect(d.minFieldTtl()).toBe(0);
  });

  it('drops a deleted field expiry time and finds the next soonest', () => {
    const h = HashValue.empty();
    for (const f of ['a', 'b', 'c']) h.set(f, 'v');
    h.setTtl('a', 10);
    h.setTtl('b', 20);
    expect(h.minFieldTtl()).toBe(10);
    h.delete('a');
    expect(h.minFieldTtl()).toBe(20);
    expect(h.ttlOf('a')).toBe(0);
  });

  it('refuses a record naming an expiry for a field it does not hold', () => {
    const h = HashValue.empty();
    h.set('a', '1');
    h.setTtl('a', 99);
    const bytes = Buffer.from(h.encode());
    // The trailing section's field name: 'a' -> 'z'.
    bytes[bytes.length - 9] = 'z'.charCodeAt(0);
    expect(() => HashValue.decode(bytes)).toThrow();
  });
});

describe('HashValue field expiry, a table record read back flat', () => {
  it('comes back in listpackex order, so the due fields lead', () => {
    const h = HashValue.empty();
    h.set('keep', 'v');
    for (let i = 0; i < 600; i++) h.set(`f${i}`, 'v');
    for (let i = 0; i < 600; i++) h.setTtl(`f${i}`, 1000 - i);
    for (let i = 0; i < 300; i++) h.delete(`f${i}`);
    expect(h.encoding()).toBe('hashtable');
    const d = HashValue.decode(h.encode());
    expect(d.encoding()).toBe('listpackex');
    const out: string[] = [];
    expect(d.expireFields(1000, 1000, out)).toBe(300);
    expect(out[0]).toBe('f599');
    expect(d.size).toBe(1);
  });
});
