import { RecordType, type Store } from '@strata/hlog';
import { afterEach, describe, expect, it } from 'vitest';
import { collidingPairs, k, openTiny, removeTempDirs, rng } from '../test/support.js';
import { compileGlob } from './glob-matcher.js';
import { KeyScanner, type ScanOptions, VISITS_PER_COUNT } from './key-scanner.js';
import { LogIterator } from './log-iterator.js';

afterEach(removeTempDirs);

/** A whole SCAN iteration; returns keys (with repeats) and the cursors seen. */
async function iterate(
  scanner: KeyScanner,
  options: ScanOptions = {},
  between?: () => Promise<void>,
): Promise<{ keys: string[]; cursors: number[]; calls: number }> {
  const keys: string[] = [];
  const cursors: number[] = [0];
  let cursor = 0;
  let calls = 0;
  do {
    const [r] = await Promise.all([scanner.scan(cursor, options), between?.()]);
    calls++;
    expect(r.keys.length).toBeLessThanOrEqual(options.count ?? 10);
    for (const key of r.keys) keys.push(key.toString('latin1'));
    cursor = r.cursor;
    cursors.push(cursor);
    expect(calls).toBeLessThan(100_000);
  } while (cursor !== 0);
  return { keys, cursors, calls };
}

async function recordAddresses(store: Store): Promise<number[]> {
  const it = new LogIterator(store.log);
  const out: number[] = [];
  await it.iterate({
    from: store.log.begin,
    onRecord: (_r, _o, a) => {
      out.push(a);
      return true;
    },
  });
  await it.close();
  return out;
}

async function fillBase(store: Store, n: number, prefix = 'base:'): Promise<void> {
  for (let i = 0; i < n; i++) await store.set(k(`${prefix}${i}`), k(`v${i}${'z'.repeat(i % 25)}`));
}

describe('KeyScanner', () => {
  it('returns every key of a static log, mostly on disk, across calls', async () => {
    const store = await openTiny();
    await fillBase(store, 500);
    for (let i = 0; i < 500; i += 3) await store.set(k(`base:${i}`), k('overwritten'));
    const scanner = new KeyScanner(store);
    const { keys } = await iterate(scanner, { count: 25 });
    expect(new Set(keys).size).toBe(500);
    // No duplicates without concurrent writes: only the newest version is live.
    expect(keys).toHaveLength(500);
    expect(store.log.head - store.log.begin).toBeGreaterThan(store.log.tail - store.log.head);
    await scanner.close();
    await store.close();
  });

  it('returns keys whose liveness needs the device (chains across pages), with any COUNT', async () => {
    const store = await openTiny();
    const pairs = collidingPairs(12);
    for (const [older] of pairs) await store.set(k(older), k('first'));
    await fillBase(store, 150);
    for (const [, newer] of pairs) await store.set(k(newer), k('second'));
    await fillBase(store, 300, 'more:');
    const scanner = new KeyScanner(store);
    for (const count of [1, 3, 10, 100]) {
      const { keys } = await iterate(scanner, { count, match: 'c:*' });
      expect(new Set(keys).size).toBe(24);
    }
    expect(scanner.livenessDiskReads).toBeGreaterThan(0);
    await scanner.close();
    await store.close();
  });

  it('reads each device page once across calls that resume inside it (small COUNT)', async () => {
    const store = await openTiny({ indexBuckets: 1 << 12 });
    await fillBase(store, 600);
    const diskPages = Math.floor((store.log.head - store.log.begin) / store.log.pageSize);
    const scanner = new KeyScanner(store);
    const reads0 = store.stats().device.reads;
    const { keys, calls } = await iterate(scanner, { count: 2 });
    const reads = store.stats().device.reads - reads0;
    expect(new Set(keys).size).toBe(600);
    expect(calls).toBeGreaterThan(250);
    expect(scanner.livenessDiskReads).toBe(0);
    expect(reads).toBeLessThanOrEqual(diskPages + 1);
    await scanner.close();
    await store.close();
  });

  it('bounds the records visited per call by 10 x COUNT, even when nothing matches', async () => {
    const store = await openTiny();
    await fillBase(store, 600);
    const addresses = await recordAddresses(store);
    const scanner = new KeyScanner(store);
    for (const count of [1, 5, 20]) {
      const { keys, cursors } = await iterate(scanner, { count, match: 'nothing:*' });
      expect(keys).toEqual([]);
      expect(cursors.length).toBeGreaterThan(600 / (count * VISITS_PER_COUNT));
      for (let i = 1; i < cursors.length; i++) {
        const lo = cursors[i - 1] === 0 ? 0 : cursors[i - 1]!;
        const hi = cursors[i] === 0 ? Number.POSITIVE_INFINITY : cursors[i]!;
        const visited = addresses.filter((a) => a >= lo && a < hi).length;
        expect(visited).toBeLessThanOrEqual(count * VISITS_PER_COUNT);
      }
    }
    await scanner.close();
    await store.close();
  });

  it('MATCH and TYPE agree with a naive filter over the model', async () => {
    const store = await openTiny();
    const model = new Set<string>();
    const rand = rng(11);
    const prefixes = ['user:', 'session:', 'cache:', 'Q'];
    for (let i = 0; i < 700; i++) {
      const key = `${prefixes[Math.floor(rand() * prefixes.length)]}${Math.floor(rand() * 250)}`;
      if (rand() < 0.1) {
        await store.delete(k(key));
        model.delete(key);
      } else {
        await store.set(k(key), k(`v${i}`));
        model.add(key);
      }
    }
    const scanner = new KeyScanner(store);
    const patterns = ['*', 'user:*', '*1?', 'session:[0-4]*', 'q*', 'cache:\\*', '*:2*', 'none*'];
    for (const match of patterns) {
      for (const nocase of [false, true]) {
        const glob = compileGlob(k(match), { nocase });
        const naive = [...model].filter((key) => glob.match(k(key))).sort();
        const { keys } = await iterate(scanner, { match, nocase, count: 13, type: 'string' });
        expect([...new Set(keys)].sort()).toEqual(naive);
      }
    }
    expect((await iterate(scanner, { type: 'STRING' })).keys.length).toBe(model.size);
    expect((await iterate(scanner, { type: 'hash', count: 50 })).keys).toEqual([]);
    await scanner.close();
    await store.close();
  });

  it('TYPE selects each record type hlog writes, by name in any case', async () => {
    const store = await openTiny();
    const types = [
      ['string', RecordType.STRING],
      ['hash', RecordType.HASH],
      ['set', RecordType.SET],
      ['zset', RecordType.ZSET],
      ['list', RecordType.LIST],
    ] as const;
    const model = new Map<string, string>();
    const rand = rng(5);
    for (let i = 0; i < 600; i++) {
      const key = `t:${Math.floor(rand() * 200)}`;
      if (rand() < 0.1) {
        await store.delete(k(key));
        model.delete(key);
        continue;
      }
      // A key may change type: only its newest version counts.
      const [name, type] = types[Math.floor(rand() * types.length)]!;
      await store.set(k(key), k(`v${i}`), { type });
      model.set(key, name);
    }
    const scanner = new KeyScanner(store);
    for (const [name] of types) {
      const want = [...model].filter(([, t]) => t === name).map(([key]) => key);
      expect(want.length).toBeGreaterThan(10);
      const { keys } = await iterate(scanner, { type: name.toUpperCase(), count: 7 });
      expect([...new Set(keys)].sort(), name).toEqual(want.sort());
    }
    expect((await iterate(scanner, { type: 'stream' })).keys).toEqual([]);
    await scanner.close();
    await store.close();
  });

  it('rejects an unknown TYPE, a bad cursor or COUNT before any work', async () => {
    const store = await openTiny();
    await fillBase(store, 50);
    const scanner = new KeyScanner(store);
    await expect(scanner.scan(0, { type: 'strin' })).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_TYPE',
    });
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 60]) {
      await expect(scanner.scan(bad)).rejects.toMatchObject({ code: 'ERR_INVALID_CURSOR' });
    }
    await expect(scanner.scan(0, { count: 0 })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    expect(scanner.livenessDiskReads).toBe(0);
    await scanner.close();
    await store.close();
  });

  it('excludes expired keys and tombstones', async () => {
    let now = 5_000;
    const store = await openTiny({ clock: () => now });
    await fillBase(store, 100);
    for (let i = 0; i < 100; i += 4) await store.delete(k(`base:${i}`));
    for (let i = 1; i < 100; i += 4) await store.expire(k(`base:${i}`), 100);
    now += 1000;
    const scanner = new KeyScanner(store, { clock: () => now });
    const { keys } = await iterate(scanner);
    expect(new Set(keys).size).toBe(50);
    expect(keys.some((key) => Number(key.slice(5)) % 4 < 2)).toBe(false);
    await scanner.close();
    await store.close();
  });

  it('handles stale and foreign cursors: mid-record, past the tail, compacted away', async () => {
    const store = await openTiny();
    await fillBase(store, 300);
    const scanner = new KeyScanner(store);
    // Mid-record: snapped back to that record.
    const first = await scanner.scan(0, { count: 50 });
    const rest = new Set(first.keys.map((b) => b.toString()));
    let cursor = first.cursor + 5;
    while (cursor !== 0) {
      const r = await scanner.scan(cursor, { count: 50 });
      for (const key of r.keys) rest.add(key.toString());
      cursor = r.cursor === 0 ? 0 : r.cursor + 3;
    }
    expect(rest.size).toBe(300);
    // Past the tail (another log's cursor): starts over from begin.
    const foreign = await scanner.scan(store.log.tail + 4096, { count: 1000 });
    expect(foreign.keys.length).toBeGreaterThan(0);
    // Compacted away under the cursor: resumes at begin, nothing lost.
    const partial = await scanner.scan(0, { count: 20 });
    for (let i = 0; i < 300; i++) await store.set(k(`base:${i}`), k(`second-${i}`));
    await store.compact();
    expect(store.log.begin).toBeGreaterThan(partial.cursor);
    const seen = new Set(partial.keys.map((b) => b.toString()));
    cursor = partial.cursor;
    while (cursor !== 0) {
      const r = await scanner.scan(cursor, { count: 50 });
      for (const key of r.keys) seen.add(key.toString());
      cursor = r.cursor;
    }
    expect(seen.size).toBe(300);
    await scanner.close();
    await store.close();
  });

  for (const [seed, compacting] of [
    [1, false],
    [2, false],
    [3, true],
    [4, true],
  ] as const) {
    it(`returns every key present for the whole iteration under concurrent writes (seed ${seed}${compacting ? ', compactions' : ''})`, async () => {
      const store = await openTiny();
      let compactions = 0;
      const rand = rng(seed);
      await fillBase(store, 400);
      const everSet = new Set<string>();
      for (let i = 0; i < 400; i++) everSet.add(`base:${i}`);
      // base:0..99 may be deleted; base:100..399 stay present throughout
      // (overwritten, given or losing big values, but never absent).
      let fresh = 0;
      const writes = async (): Promise<void> => {
        const n = 1 + Math.floor(rand() * 8);
        const ops: Promise<unknown>[] = [];
        for (let j = 0; j < n; j++) {
          const r = rand();
          const i = Math.floor(rand() * 400);
          if (r < 0.4) {
            ops.push(store.set(k(`base:${i}`), k(`u${'w'.repeat(Math.floor(rand() * 60))}`)));
          } else if (r < 0.55 && i < 100) {
            ops.push(store.delete(k(`base:${i}`)));
          } else if (r < 0.6) {
            ops.push(store.set(k(`base:${i}`), Buffer.alloc(400 + Math.floor(rand() * 900), 1)));
          } else {
            const key = `new:${fresh++}`;
            everSet.add(key);
            ops.push(store.set(k(key), k('n')));
          }
        }
        // Compaction drops the oldest segments under the cursor meanwhile.
        // (A few only: each copies the live keys ahead of the cursor again,
        // so compacting nonstop would keep an iteration from ending.)
        if (compacting && compactions < 3 && rand() < 0.3) {
          ops.push(store.compact());
          compactions++;
        }
        await Promise.all(ops);
      };
      const scanner = new KeyScanner(store);
      const count = 1 + Math.floor(rand() * 30);
      const { keys } = await iterate(scanner, { count }, writes);
      const got = new Set(keys);
      for (let i = 100; i < 400; i++) expect(got.has(`base:${i}`), `base:${i}`).toBe(true);
      for (const key of got) expect(everSet.has(key), key).toBe(true);
      expect(store.log.begin).toBeLessThan(store.log.head);
      if (compacting) expect(compactions).toBe(3);
      await scanner.close();
      await store.close();
    });
  }
});
