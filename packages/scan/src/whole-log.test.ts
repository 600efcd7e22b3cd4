import { internalKey, RecordType, type Store } from '@strata/hlog';
import { readMode } from '@strata/pagebuf';
import { afterEach, describe, expect, it } from 'vitest';
import { collidingPairs, k, openTiny, removeTempDirs, rng } from '../test/support.js';
import { compileGlob } from './glob-matcher.js';
import { KeyScanner } from './key-scanner.js';
import { wholeLogMode } from './log-iterator.js';
import { countKeys, forEachLive, keyspaceInfo, listKeys } from './whole-log.js';

afterEach(removeTempDirs);

/** A random workload against a store and a Map model of it (key -> expiresAt, 0 = none). */
async function workload(
  store: Store,
  seed: number,
  ops: number,
  clock: { now: number },
): Promise<Map<string, number>> {
  const model = new Map<string, number>();
  const rand = rng(seed);
  const pairs = collidingPairs(10, `p${seed}:`).flat();
  for (let i = 0; i < ops; i++) {
    const r = rand();
    const key =
      rand() < 0.1
        ? pairs[Math.floor(rand() * pairs.length)]!
        : `key:${Math.floor(rand() * (ops / 3))}`;
    if (r < 0.15) {
      await store.delete(k(key));
      model.delete(key);
    } else if (r < 0.3) {
      const exp = clock.now + 1 + Math.floor(rand() * 5000);
      await store.set(k(key), k(`e${i}`), { expiresAt: exp });
      model.set(key, exp);
    } else if (r < 0.33) {
      await store.set(k(key), Buffer.alloc(300 + Math.floor(rand() * 1500), 2));
      model.set(key, 0);
    } else {
      await store.set(k(key), k(`v${i}${'.'.repeat(i % 50)}`));
      model.set(key, 0);
    }
    clock.now += 1;
  }
  return model;
}

function liveModel(model: Map<string, number>, now: number): Map<string, number> {
  return new Map([...model].filter(([, e]) => e === 0 || e > now));
}

describe('whole-log queries', () => {
  for (const seed of [21, 22, 23]) {
    it(`count, keys and keyspace info agree with a Map model, mostly on disk (seed ${seed})`, async () => {
      const clock = { now: 10_000_000 };
      const store = await openTiny({ clock: () => clock.now });
      const model = await workload(store, seed, 2500, clock);
      clock.now += 2500; // some keys expire
      const live = liveModel(model, clock.now);
      const opts = { clock: () => clock.now };
      expect(store.log.head - store.log.begin).toBeGreaterThan(
        8 * (store.log.tail - store.log.head),
      );
      for (const mode of [
        readMode.single(),
        readMode.double(),
        wholeLogMode(store.log.pageSize),
        readMode.adaptive({ minReadSize: 1024, maxReadSize: 8192 }),
      ]) {
        expect(await countKeys(store, { ...opts, mode })).toBe(live.size);
      }
      // The store's O(1) count agrees with the whole-log count and the model.
      expect(await store.exactCount()).toBe(live.size);
      for (const pattern of ['*', 'key:1*', 'p*', '*[05]', 'nope']) {
        const glob = compileGlob(k(pattern));
        const naive = [...live.keys()].filter((key) => glob.match(k(key))).sort();
        const got = (await listKeys(store, pattern, opts)).map((b) => b.toString()).sort();
        expect(got).toEqual(naive);
      }
      const withTtl = [...live.values()].filter((e) => e !== 0);
      const info = await keyspaceInfo(store, opts);
      expect(info.keys).toBe(live.size);
      expect(info.expires).toBe(withTtl.length);
      const avg = withTtl.reduce((s, e) => s + (e - clock.now), 0) / withTtl.length;
      expect(info.avgTtl).toBe(Math.round(avg));
      await store.close();
    });
  }

  it('stays exact after compaction', async () => {
    const clock = { now: 1_000 };
    const store = await openTiny({ clock: () => clock.now });
    const model = await workload(store, 5, 1500, clock);
    await store.compact();
    expect(store.log.begin).toBeGreaterThan(0);
    expect(await countKeys(store, { clock: () => clock.now })).toBe(
      liveModel(model, clock.now).size,
    );
    await store.close();
  });

  it('yields to the event loop in slices during a long pass', async () => {
    const store = await openTiny({ memory: 8192 });
    for (let i = 0; i < 3000; i++) await store.set(k(`y:${i}`), k(`${i}`));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    let maxGap = 0;
    let last = performance.now();
    const gaps = setInterval(() => {
      const t = performance.now();
      maxGap = Math.max(maxGap, t - last);
      last = t;
    }, 1);
    const stats = await forEachLive(store, {}, () => {}, { sliceMs: 1 });
    clearInterval(timer);
    clearInterval(gaps);
    expect(stats.diskPages).toBeGreaterThan(10);
    expect(ticks).toBeGreaterThan(0);
    expect(maxGap).toBeLessThan(100);
    await store.close();
  });

  it('an unknown type is an error; a type no record has counts nothing; each type counts its keys', async () => {
    const store = await openTiny();
    for (let i = 0; i < 50; i++) await store.set(k(`t:${i}`), k('x'));
    await expect(forEachLive(store, { type: 'nosuch' }, () => {})).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_TYPE',
    });
    let n = 0;
    await forEachLive(store, { type: 'zset' }, () => n++);
    expect(n).toBe(0);
    await forEachLive(store, { type: 'string' }, () => n++);
    expect(n).toBe(50);
    for (let i = 0; i < 30; i++) await store.set(k(`z:${i}`), k('x'), { type: RecordType.ZSET });
    // Ten strings become lists: each key counts under its newest type only.
    for (let i = 0; i < 10; i++) await store.set(k(`t:${i}`), k('x'), { type: RecordType.LIST });
    const counts: Record<string, number> = {};
    for (const type of ['string', 'zset', 'list', 'hash', 'set', 'stream']) {
      counts[type] = 0;
      await forEachLive(store, { type }, () => counts[type]!++);
    }
    expect(counts).toEqual({ string: 40, zset: 30, list: 10, hash: 0, set: 0, stream: 0 });
    expect(await countKeys(store)).toBe(80);
    await store.close();
  });

  it("never counts or lists strata's own records (internal keys), in memory or on disk", async () => {
    const store = await openTiny();
    for (let i = 0; i < 60; i++) {
      await store.set(k(`user:${i}`), k(`v${i}`));
      await store.set(internalKey(k(`block:${i}`)), k(`w${i}`));
    }
    expect(await countKeys(store)).toBe(60);
    const listed = (await listKeys(store, '*')).map((b) => b.toString('latin1'));
    expect(listed.sort()).toEqual(Array.from({ length: 60 }, (_, i) => `user:${i}`).sort());
    expect((await keyspaceInfo(store)).keys).toBe(60);
    // A pattern that the internal keys match is no way in either.
    expect(await listKeys(store, '*block*')).toEqual([]);
    // SCAN's scanner filters on its own path (acceptsRecord).
    const scanner = new KeyScanner(store);
    const scanned: string[] = [];
    let cursor = 0;
    do {
      const r = await scanner.scan(cursor, { count: 7 });
      for (const key of r.keys) scanned.push(key.toString('latin1'));
      cursor = r.cursor;
    } while (cursor !== 0);
    await scanner.close();
    expect(new Set(scanned).size).toBe(60);
    expect(scanned.every((s) => s.startsWith('user:'))).toBe(true);
    await store.close();
  });
});
