import { RecordType } from '@strata/hlog';
import { describe, expect, it } from 'vitest';
import { CollectionError } from './collection-error.js';
import { Before, decodeSortedSet, SortedSet, ZAddFlag } from './zset.js';

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

type Pair = [number, string];
const cmp = (a: Pair, b: Pair) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

function pairs(z: SortedSet): Pair[] {
  const out: Pair[] = [];
  z.forEach((s, m) => {
    out.push([s, m]);
  });
  return out;
}

describe('SortedSet', () => {
  it('orders by score, then member bytes, and answers score, rank and cursors', () => {
    const z = new SortedSet();
    expect(z.add('b', 2)).toBe('added');
    expect(z.add('a', 2)).toBe('added');
    expect(z.add('\xff', 1)).toBe('added');
    expect(z.add('c', -Infinity)).toBe('added');
    expect(pairs(z)).toEqual([
      [-Infinity, 'c'],
      [1, '\xff'],
      [2, 'a'],
      [2, 'b'],
    ]);
    expect(z.score('a')).toBe(2);
    expect(z.score('zz')).toBeUndefined();
    expect(z.rank('b')).toBe(3);
    expect(z.rank('b', true)).toBe(0);
    expect(z.rank('nope')).toBe(-1);
    const c = z.at(1);
    expect([c.score, c.member]).toEqual([1, '\xff']);
    c.next();
    expect(c.member).toBe('a');
    c.prev();
    c.prev();
    expect(c.member).toBe('c');
    c.prev();
    expect(c.valid).toBe(false);
  });

  it('applies NX, XX, GT and LT as ZADD does', () => {
    const z = new SortedSet();
    expect(z.add('m', 5, ZAddFlag.XX)).toBe('skipped');
    expect(z.add('m', 5, ZAddFlag.NX)).toBe('added');
    expect(z.add('m', 6, ZAddFlag.NX)).toBe('skipped');
    expect(z.add('m', 4, ZAddFlag.GT)).toBe('skipped');
    expect(z.add('m', 7, ZAddFlag.GT)).toBe('updated');
    expect(z.add('m', 8, ZAddFlag.LT)).toBe('skipped');
    expect(z.add('m', 1, ZAddFlag.LT | ZAddFlag.XX)).toBe('updated');
    expect(z.add('m', 1)).toBe('unchanged');
    expect(z.add('n', 9, ZAddFlag.GT)).toBe('added');
    expect(z.score('m')).toBe(1);
  });

  it('is a listpack up to 128 members of up to 64 bytes, then a skiplist', () => {
    const z = new SortedSet();
    for (let i = 0; i < 128; i++) z.add(`m${i}`, i);
    expect(z.encoding()).toBe('listpack');
    z.add('one-more', 0);
    expect(z.encoding()).toBe('skiplist');
    const long = new SortedSet();
    long.add('x'.repeat(64), 1);
    expect(long.encoding()).toBe('listpack');
    long.add('y'.repeat(65), 1);
    expect(long.encoding()).toBe('skiplist');
    expect(long.type).toBe(RecordType.ZSET);
    // Built whole (a decode, a store), the encoding follows the content.
    expect(decodeSortedSet(long.encode()).encoding()).toBe('skiplist');
    const small = new SortedSet();
    small.add('a', 1);
    expect(decodeSortedSet(small.encode()).encoding()).toBe('listpack');
  });

  it('counts the pairs before score and lex bounds', () => {
    const z = new SortedSet();
    for (const [s, m] of [
      [1, 'a'],
      [2, 'b'],
      [2, 'c'],
      [3, 'd'],
    ] as const)
      z.add(m, s);
    expect(z.countBefore(Before.SCORE_LT, 2)).toBe(1);
    expect(z.countBefore(Before.SCORE_LE, 2)).toBe(3);
    expect(z.countBefore(Before.SCORE_LE, Infinity)).toBe(4);
    expect(z.countBefore(Before.LEX_LT, 0, 'c')).toBe(2);
    expect(z.countBefore(Before.LEX_LE, 0, 'c')).toBe(3);
    expect(z.countBefore(Before.ENTRY_LE, 2, 'b')).toBe(2);
  });

  it('round-trips through encode/decode with binary members and special scores', () => {
    const z = new SortedSet();
    z.add('', 0);
    z.add('\x00\r\n\xff', -0);
    z.add('big', 1e308);
    z.add('ninf', -Infinity);
    z.add('pinf', Infinity);
    for (let i = 0; i < 1000; i++) z.add(`k${i}`, i / 7);
    const back = decodeSortedSet(z.encode());
    expect(pairs(back)).toEqual(pairs(z));
    expect(back.size).toBe(z.size);
    expect(back.score('k7')).toBe(1);
    expect(Object.is(back.score('\x00\r\n\xff'), -0)).toBe(true);
    expect(back.memoryBytes()).toBeGreaterThan(1000 * 12);
  });

  it('refuses bytes that are no sorted set record', () => {
    expect(() => decodeSortedSet(Buffer.from([9, 0, 0, 0, 0]))).toThrow(CollectionError);
    const good = new SortedSet();
    good.add('abc', 1);
    const bytes = good.encode();
    expect(() => decodeSortedSet(bytes.subarray(0, bytes.length - 1))).toThrow(/truncated/);
  });

  it('matches a sorted array model under random adds, updates, removes and rank queries', () => {
    // Enough members for a tree of three levels (128 per leaf, 64 per inner node).
    for (const [seed, range, steps] of [
      [1, 300, 10_000],
      [7, 3000, 20_000],
      [42, 40_000, 60_000],
    ] as const) {
      const rand = rng(seed);
      const z = new SortedSet();
      const model: Pair[] = [];
      const scores = new Map<string, number>();
      const find = (p: Pair) => {
        let lo = 0;
        let hi = model.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (cmp(model[mid]!, p) < 0) lo = mid + 1;
          else hi = mid;
        }
        return lo;
      };
      for (let step = 0; step < steps; step++) {
        const op = rand(10);
        const member = `m${rand(range)}`;
        const score = rand(50) - 25 + (rand(4) === 0 ? 0.5 : 0);
        const old = scores.get(member);
        if (op < 6) {
          const outcome = z.add(member, score);
          const expected = old === undefined ? 'added' : old === score ? 'unchanged' : 'updated';
          if (outcome !== expected) expect(outcome).toBe(expected);
          if (old !== undefined) model.splice(find([old, member]), 1);
          model.splice(find([score, member]), 0, [score, member]);
          scores.set(member, score);
        } else if (op < 9) {
          const removed = z.remove(member);
          if (removed !== (old !== undefined)) expect(removed).toBe(old !== undefined);
          if (old !== undefined) {
            model.splice(find([old, member]), 1);
            scores.delete(member);
          }
        } else if (model.length > 0) {
          const r = rand(model.length);
          const c = z.at(r);
          expect([c.score, c.member]).toEqual(model[r]);
          expect(z.rank(model[r]![1])).toBe(r);
          expect(z.countBefore(Before.SCORE_LT, score)).toBe(find([score, '']));
        }
        if (z.size !== model.length) expect(z.size).toBe(model.length);
      }
      expect(pairs(z)).toEqual(model);
      // Walk backwards from the end as ZREVRANGE does.
      const back: Pair[] = [];
      if (model.length > 0) {
        for (const c = z.at(model.length - 1); c.valid; c.prev()) back.push([c.score, c.member]);
      }
      expect(back.reverse()).toEqual(model);
      expect(pairs(decodeSortedSet(z.encode()))).toEqual(model);
    }
  });

  it('keeps order when scores are nudged in place and after a bulk decode', () => {
    const rand = rng(99);
    const n = 20_000;
    const model = new Map<string, number>();
    let z = new SortedSet();
    for (let i = 0; i < n; i++) {
      const s = rand(1_000_000);
      z.add(`m${i}`, s);
      model.set(`m${i}`, s);
    }
    const sorted = () => [...model].map(([m, s]): Pair => [s, m]).sort(cmp);
    for (let round = 0; round < 2; round++) {
      for (let step = 0; step < 30_000; step++) {
        const m = `m${rand(n)}`;
        const old = model.get(m)!;
        // Mostly small moves (most stay between their neighbours), some jumps.
        const s = rand(8) === 0 ? rand(1_000_000) : old + (rand(3) - 1) * 0.25;
        z.add(m, s);
        model.set(m, s);
      }
      const expected = sorted();
      expect(pairs(z)).toEqual(expected);
      for (let r = 0; r < n; r += 1013) {
        expect(z.rank(expected[r]![1])).toBe(r);
        expect(z.at(r).member).toBe(expected[r]![1]);
      }
      // The second round runs on the bulk-built tree of a decode.
      z = decodeSortedSet(z.encode());
      expect(pairs(z)).toEqual(expected);
    }
  });

  it('keeps ranks right through a large build and a drain from both ends', () => {
    const z = new SortedSet();
    const n = 50_000;
    for (let i = 0; i < n; i++) z.add(`m${(i * 7919) % n}`, (i * 7919) % n);
    for (let r = 0; r < n; r += 997) expect(z.at(r).score).toBe(r);
    expect(z.rank(`m${n - 1}`)).toBe(n - 1);
    for (let i = 0; i < n / 2; i++) {
      expect(z.remove(`m${i}`)).toBe(true);
      expect(z.remove(`m${n - 1 - i}`)).toBe(true);
      if (i % 5000 === 0 && z.size > 0) expect(z.at(0).score).toBe(i + 1);
    }
    expect(z.size).toBe(0);
    z.add('again', 1);
    expect(z.rank('again')).toBe(0);
  });
});
