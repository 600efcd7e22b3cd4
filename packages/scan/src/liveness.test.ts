import { keyLengthOf, keyOffsetOf, type RecordSpace, type Store } from '@strata/hlog';
import { afterEach, describe, expect, it } from 'vitest';
import { collidingPairs, k, openTiny, removeTempDirs, rng } from '../test/support.js';
import { Liveness, LivenessChecker } from './liveness.js';
import { LogIterator } from './log-iterator.js';
import { PendingChecks } from './pending-checks.js';

afterEach(removeTempDirs);

function keyOf(rec: RecordSpace, off: number): string {
  const ko = keyOffsetOf(rec, off);
  return rec.bytes.toString('latin1', ko, ko + keyLengthOf(rec, off));
}

/** Every live record by the checker, with how each verdict was reached. */
async function liveKeys(
  store: Store,
  now: number,
): Promise<{
  live: string[];
  memoryDisk: number;
  pending: number;
  resolvedLive: number;
  checker: LivenessChecker;
}> {
  const checker = new LivenessChecker(store);
  const pending = new PendingChecks(checker);
  const it = new LogIterator(store.log);
  const live: string[] = [];
  let memoryDisk = 0;
  let pendingTotal = 0;
  let resolvedLive = 0;
  await it.iterate({
    from: store.log.begin,
    onRecord: (rec, off, address) => {
      const page = it.page;
      const v = checker.check(rec, off, address, page.onDisk ? page : null, now);
      if (v === Liveness.LIVE) live.push(keyOf(rec, off));
      else if (v === Liveness.NEEDS_DISK) {
        if (!page.onDisk) memoryDisk++;
        pendingTotal++;
        pending.add(off, address, checker.diskFrom);
      }
      return true;
    },
    onPage: (page) =>
      pending.resolve(page, (rec, off) => {
        resolvedLive++;
        live.push(keyOf(rec, off));
      }),
  });
  await it.close();
  return { live, memoryDisk, pending: pendingTotal, resolvedLive, checker };
}

describe('LivenessChecker', () => {
  it('finds exactly the newest live version of each key (overwrites, deletes, expiry)', async () => {
    let now = 1_000_000;
    const store = await openTiny({ clock: () => now });
    const model = new Map<string, number>(); // key -> expiresAt (0 = none)
    const rand = rng(7);
    for (let i = 0; i < 1500; i++) {
      const key = `k${Math.floor(rand() * 300)}`;
      const r = rand();
      if (r < 0.15) {
        await store.delete(k(key));
        model.delete(key);
      } else if (r < 0.25) {
        const exp = now + Math.floor(rand() * 2000);
        await store.set(k(key), k(`v${i}`), { expiresAt: exp });
        model.set(key, exp);
      } else {
        await store.set(k(key), k(`v${i}-${'y'.repeat(i % 20)}`));
        model.set(key, 0);
      }
      now += 1;
    }
    const expected = [...model].filter(([, e]) => e === 0 || e > now).map(([key]) => key);
    const { live, memoryDisk, pending } = await liveKeys(store, now);
    expect(live.sort()).toEqual(expected.sort());
    // In-memory records are always decided in memory.
    expect(memoryDisk).toBe(0);
    // A 16-bucket index means long chains: some checks had to cross device pages.
    expect(pending).toBeGreaterThan(0);
    expect(store.log.head).toBeGreaterThan(store.log.begin);
    await store.close();
  });

  it('decides without the device when chains stay in memory or in the page in hand', async () => {
    const store = await openTiny({ indexBuckets: 1 << 12 });
    for (let i = 0; i < 400; i++) await store.set(k(`u${i}`), k(`value-${i}`));
    const { live, pending, checker } = await liveKeys(store, Date.now());
    expect(live).toHaveLength(400);
    expect(pending).toBe(0);
    expect(checker.diskReads).toBe(0);
    await store.close();
  });

  it('follows a chain across device pages for keys that share a bucket and tag', async () => {
    // 16 initial buckets: tag bits 4..19, inside the 24 low bits the pairs share.
    const store = await openTiny({ indexBuckets: 16 });
    const pairs = collidingPairs(12);
    for (const [older] of pairs) await store.set(k(older), k('first'));
    for (let i = 0; i < 120; i++) await store.set(k(`fill:${i}`), k(`f${i}`));
    for (const [, newer] of pairs) await store.set(k(newer), k('second'));
    for (let i = 120; i < 400; i++) await store.set(k(`fill:${i}`), k(`f${i}`));
    // Delete one older key: its tombstone sits above the newer key's record.
    await store.delete(k(pairs[0]![0]));
    for (let i = 400; i < 500; i++) await store.set(k(`fill:${i}`), k(`f${i}`));
    const { live, resolvedLive, checker } = await liveKeys(store, Date.now());
    const expected = [
      ...pairs.flatMap(([a, b], i) => (i === 0 ? [b] : [a, b])),
      ...Array.from({ length: 500 }, (_, i) => `fill:${i}`),
    ];
    expect(live.sort()).toEqual(expected.sort());
    expect(resolvedLive).toBeGreaterThanOrEqual(11);
    expect(checker.diskReads).toBeGreaterThan(0);
    await store.close();
  });
});
