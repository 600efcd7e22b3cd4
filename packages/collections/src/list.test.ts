import { RecordType } from '@strata/hlog';
import { describe, expect, it } from 'vitest';
import { CollectionError } from './collection-error.js';
import { decodeList, LIST_CHUNK, List } from './list.js';

/** A seeded generator (xorshift32): the same seed replays the same run. */
function rng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

function all(l: List): string[] {
  const out: string[] = [];
  if (l.size > 0) l.forRange(0, l.size - 1, (v) => out.push(v));
  return out;
}

describe('List', () => {
  it('pushes and pops at both ends across many chunks', () => {
    const l = new List();
    expect(l.type).toBe(RecordType.LIST);
    expect(l.popFront()).toBeUndefined();
    expect(l.popBack()).toBeUndefined();
    for (let i = 0; i < 1000; i++) {
      l.pushBack(`b${i}`);
      l.pushFront(`f${i}`);
    }
    expect(l.size).toBe(2000);
    expect(l.get(0)).toBe('f999');
    expect(l.get(999)).toBe('f0');
    expect(l.get(1000)).toBe('b0');
    expect(l.get(1999)).toBe('b999');
    expect(l.popFront()).toBe('f999');
    expect(l.popBack()).toBe('b999');
    const rev: string[] = [];
    l.forRangeReverse(l.size - 1, l.size - 3, (v) => rev.push(v));
    expect(rev).toEqual(['b998', 'b997', 'b996']);
  });

  it('is a listpack up to 8 KiB of listpack bytes, a quicklist past that, and back at half', () => {
    const l = new List();
    l.pushBack('x'.repeat(100));
    expect(l.encoding()).toBe('listpack');
    for (let i = 0; i < 80; i++) l.pushBack('y'.repeat(100));
    expect(l.encoding()).toBe('quicklist');
    for (let i = 0; i < 40; i++) l.popBack();
    expect(l.encoding()).toBe('quicklist');
    for (let i = 0; i < 5; i++) l.popBack();
    expect(l.encoding()).toBe('listpack');
  });

  it('inserts, sets, trims and removes in the middle, splitting full chunks', () => {
    const l = new List();
    for (let i = 0; i < LIST_CHUNK * 3; i++) l.pushBack(String(i));
    l.insert(5, 'five');
    l.insert(l.size, 'end');
    l.insert(0, 'start');
    expect(l.get(6)).toBe('five');
    expect(l.get(l.size - 1)).toBe('end');
    l.set(6, 'FIVE');
    expect(l.get(6)).toBe('FIVE');
    l.removeAt(6);
    expect(l.get(6)).toBe('5');
    expect(l.removeEqual('7', 0)).toBe(1);
    l.trim(1, 10);
    expect(all(l)).toEqual(['0', '1', '2', '3', '4', '5', '6', '8', '9', '10']);
    l.trim(5, 2);
    expect(l.size).toBe(0);
  });

  it('round-trips through encode/decode with binary elements', () => {
    const l = new List();
    for (const v of ['', '\x00\r\n\xff', 'a'.repeat(10_000), 'z']) l.pushBack(v);
    const back = decodeList(l.encode());
    expect(all(back)).toEqual(all(l));
    expect(back.encoding()).toBe('quicklist');
    expect(back.memoryBytes()).toBeGreaterThan(10_000);
    expect(() => decodeList(Buffer.from([7, 0, 0, 0, 0]))).toThrow(CollectionError);
    const bytes = l.encode();
    expect(() => decodeList(bytes.subarray(0, bytes.length - 2))).toThrow(/truncated/);
  });

  it('matches an array model under random operations', () => {
    for (const seed of [3, 11, 2024]) {
      const rand = rng(seed);
      const l = new List();
      let model: string[] = [];
      for (let step = 0; step < 30_000; step++) {
        const v = `v${rand(50)}`;
        const op = rand(20);
        const n = model.length;
        if (op < 5) {
          l.pushBack(v);
          model.push(v);
        } else if (op < 10) {
          l.pushFront(v);
          model.unshift(v);
        } else if (op < 12) {
          expect(l.popFront()).toBe(model.shift());
        } else if (op < 14) {
          expect(l.popBack()).toBe(model.pop());
        } else if (op === 14 && n > 0) {
          const i = rand(n);
          expect(l.get(i)).toBe(model[i]);
          l.set(i, v);
          model[i] = v;
        } else if (op === 15) {
          const i = rand(n + 1);
          l.insert(i, v);
          model.splice(i, 0, v);
        } else if (op === 16 && n > 0) {
          const i = rand(n);
          l.removeAt(i);
          model.splice(i, 1);
        } else if (op === 17 && rand(20) === 0) {
          const count = rand(5) - 2;
          const limit = count === 0 ? Infinity : Math.abs(count);
          let removed = 0;
          const order = count < 0 ? model.reverse() : model;
          const kept: string[] = [];
          for (const x of order) {
            if (x === v && removed < limit) removed++;
            else kept.push(x);
          }
          model = count < 0 ? kept.reverse() : kept;
          expect(l.removeEqual(v, count)).toBe(removed);
        } else if (op === 18 && rand(30) === 0 && n > 0) {
          const start = rand(n);
          const end = start + rand(n - start);
          l.trim(start, end);
          model = model.slice(start, end + 1);
        } else if (op === 19 && n > 0) {
          const a = rand(n);
          const b = rand(n);
          const got: string[] = [];
          if (a <= b) l.forRange(a, b, (x) => got.push(x));
          else l.forRangeReverse(a, b, (x) => got.push(x));
          expect(got).toEqual(a <= b ? model.slice(a, b + 1) : model.slice(b, a + 1).reverse());
        }
        if (l.size !== model.length) expect(l.size).toBe(model.length);
      }
      expect(all(l)).toEqual(model);
      expect(all(decodeList(l.encode()))).toEqual(model);
    }
  });
});
