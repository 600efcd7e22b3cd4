import { RecordType, type Store } from '@strata/hlog';
import { afterEach, describe, expect, it } from 'vitest';
import { collidingPairs, k, openTiny, removeTempDirs, rng } from '../test/support.js';
import { LIVE_BATCH } from './live-walker.js';
import { Liveness, LivenessChecker } from './liveness.js';
import { LogIterator } from './log-iterator.js';
import { PendingChecks } from './pending-checks.js';
import { acceptsRecord, compileFilter, type FilterOptions } from './record-filter.js';
import { countKeys, forEachLive } from './whole-log.js';

afterEach(removeTempDirs);

/** The reference: a visitor per record and `LivenessChecker.check` on each. */
async function referenceLive(store: Store, filter: FilterOptions, now: number): Promise<number[]> {
  const f = compileFilter(filter);
  const checker = new LivenessChecker(store);
  const pending = new PendingChecks(checker);
  const it = new LogIterator(store.log);
  const live: number[] = [];
  await it.iterate({
    from: store.log.begin,
    onRecord: (rec, off, address) => {
      if (!acceptsRecord(f, rec, off)) return true;
      const page = it.page;
      const v = checker.check(rec, off, address, page.onDisk ? page : null, now);
      if (v === Liveness.LIVE) live.push(address);
      else if (v === Liveness.NEEDS_DISK) pending.add(off, address, checker.diskFrom);
      return true;
    },
    onPage: (page) => pending.resolve(page, (_r, _o, address) => live.push(address)),
  });
  await it.close();
  return live;
}

describe('LiveWalker (the whole-log pass)', () => {
  it('gives every record the verdict of LivenessChecker.check, in the same order', async () => {
    let now = 5_000_000;
    // 16 buckets: long chains, many crossing device pages; big pages: batches fill mid-page.
    const store = await openTiny({
      clock: () => now,
      indexBuckets: 16,
      pageSize: 16384,
      memory: 65536,
      segmentSize: 65536,
    });
    const rand = rng(31);
    const pairs = collidingPairs(20, 'w:');
    const write = async (key: string, i: number): Promise<void> => {
      const type = rand() < 0.3 ? RecordType.HASH : RecordType.STRING;
      if (rand() < 0.1) await store.delete(k(key));
      else if (rand() < 0.15)
        await store.set(k(key), k(`v${i}`), { expiresAt: now + Math.floor(rand() * 3000), type });
      else await store.set(k(key), k(`v${i}`), { type });
      now += 1;
    };
    // Older keys of colliding pairs, pages of others, then the newer keys,
    // then more pages: the older records' chains cross device pages.
    for (const [older] of pairs) await write(older, 0);
    for (let i = 0; i < 2000; i++) await write(`k${Math.floor(rand() * 6000)}`, i);
    for (const [, newer] of pairs) await write(newer, 1);
    for (let i = 0; i < 3000; i++) await write(`k${Math.floor(rand() * 6000)}`, i);
    expect(store.log.head).toBeGreaterThan(store.log.begin);
    const filters: FilterOptions[] = [
      {},
      { type: 'hash' },
      { match: 'k1*' },
      { match: 'w:*' },
      { type: 'string', match: 'k2?' },
    ];
    for (const filter of filters) {
      const expected = await referenceLive(store, filter, now);
      const got: number[] = [];
      const stats = await forEachLive(store, filter, (_r, _o, a) => got.push(a), {
        clock: () => now,
      });
      expect(got, JSON.stringify(filter)).toEqual(expected);
      if (filter.match === undefined && filter.type === undefined) {
        expect(stats.livenessDiskReads).toBeGreaterThan(0);
        // More live records than a batch holds on some page: batches flushed mid-page.
        expect(stats.records / (stats.diskPages + stats.memoryPages)).toBeGreaterThan(
          LIVE_BATCH / 4,
        );
      }
    }
    expect(await countKeys(store, { clock: () => now })).toBe(
      (await referenceLive(store, {}, now)).length,
    );
    await store.close();
  });
});
