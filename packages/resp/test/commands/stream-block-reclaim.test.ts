import { reclaimedBlocks } from '@strata/collections';
import type { Store } from '@strata/hlog';
import type { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { useTempDir } from '../support/collection-helpers.js';
import { dbOf, fillStream, blockKeysOf as keysOf, present } from '../support/stream-blocks.js';
import { type DirServer, SMALL_STORE, serversOnDirs } from '../support/test-server.js';

/**
 * A stream's sealed blocks are records of their own: whatever removes or
 * replaces the stream (DEL and UNLINK of a head on disk or cached, SET over
 * a cached one, RENAME or COPY REPLACE onto it, MOVE of it, RESTORE
 * REPLACE, a STORE command over a cached one, XTRIM, the expiry of a
 * cached one) deletes its
 * blocks too, in the background, so that compaction gets the log back to
 * what it was. (A SET over a stream whose head is not cached, and the
 * expiry of one not cached, leave their blocks: a blind write reads
 * nothing, and the store's expiry says nothing; the block GC collects
 * them, stream-block-gc.test.ts.) The stores are small (most blocks on disk, the cache under
 * one block) and the server restarts before each removal, so the heads
 * are on disk, not cached.
 */
const STORE = { ...SMALL_STORE, segmentSize: 64 * 1024 };
const ENTRIES = 12_000; // 12 sealed blocks of 1000 entries

type Running = DirServer;
const { open, restart } = serversOnDirs({ store: STORE, collectionMemory: 64 * 1024 });

const fill = (r: Redis, key: string, n: number) => fillStream(r, key, n);
const db = dbOf;

/** The head's block keys (more than three: the cases need blocks on disk). */
async function blockKeysOf(t: Running, key: string, i = 0): Promise<Buffer[]> {
  const keys = await keysOf(t, key, i);
  expect(keys.length).toBeGreaterThan(3);
  return keys;
}

/** Compacts everything below the head and returns the bytes the log keeps on the device. */
async function compacted(t: Running, i = 0): Promise<number> {
  const { store, collections } = db(t, i);
  await collections.flush();
  const s = store as Store;
  await s.checkpoint();
  await s.compact();
  return s.stats().logBytes;
}

describe('a stream removed takes its blocks with it', () => {
  const dir = useTempDir('strata-stream-reclaim-');

  test('DEL of a large stream on disk: its blocks deleted, the log compacts back to what it was', async () => {
    let t = await open(dir());
    await t.redis.set('other', 'v');
    const before = await compacted(t);
    await fill(t.redis, 's', ENTRIES);
    const blocks = await blockKeysOf(t, 's');
    const grown = await compacted(t);
    expect(grown).toBeGreaterThan(before + 500_000);

    t = await restart(dir());
    expect(db(t).collections.peek(Buffer.from('s'))).toBeUndefined();
    expect(await t.redis.del('s')).toBe(1);
    await reclaimedBlocks(db(t).collections);
    expect(await present(db(t).store, blocks)).toBe(0);
    const after = await compacted(t);
    // Back to what it was, give or take the tombstones and where the log's
    // memory and its segments end (compaction keeps whole segments).
    expect(after).toBeLessThan(before + 3 * STORE.segmentSize);
    expect(await t.redis.get('other')).toBe('v');
    expect(await t.redis.dbsize()).toBe(1);
  }, 120_000);

  test('lazyfree: DEL answers once the blocks are gone (lazyfree-lazy-user-del no, the default), at once with yes and as UNLINK; INFO counts what went after the reply', async () => {
    const lazyfreed = async (r: Redis) =>
      Number(/lazyfreed_objects:(\d+)/.exec(await r.info('memory'))?.[1] ?? -1);
    const pending = async (r: Redis) =>
      Number(/lazyfree_pending_objects:(\d+)/.exec(await r.info('memory'))?.[1] ?? -1);
    const cases: Array<[string, boolean, (r: Redis) => Promise<unknown>]> = [
      ['del', false, (r) => r.del('s')],
      ['del, lazyfree-lazy-user-del yes', true, (r) => r.del('s')],
      ['unlink', true, (r) => r.unlink('s')],
      ['set over a cached stream', false, (r) => r.xlen('s').then(() => r.set('s', 'x'))],
      ['set, lazyfree-lazy-server-del yes', true, (r) => r.xlen('s').then(() => r.set('s', 'x'))],
    ];
    let t = await open(dir());
    for (const [name, lazy, remove] of cases) {
      await fill(t.redis, 's', ENTRIES);
      const blocks = await blockKeysOf(t, 's');
      t = await restart(dir());
      if (name.includes('user-del yes'))
        await t.redis.config('SET', 'lazyfree-lazy-user-del', 'yes');
      if (name.includes('server-del yes')) {
        await t.redis.config('SET', 'lazyfree-lazy-server-del', 'yes');
      }
      await remove(t.redis);
      if (!lazy) {
        // No wait for the reclaimer: the reply came after the blocks were deleted.
        expect(await present(db(t).store, blocks), name).toBe(0);
        expect(await pending(t.redis), name).toBe(0);
        expect(await lazyfreed(t.redis), name).toBe(0);
      } else {
        await reclaimedBlocks(db(t).collections);
        expect(await present(db(t).store, blocks), name).toBe(0);
        expect(await lazyfreed(t.redis), name).toBe(blocks.length);
      }
      await t.redis.del('s');
    }
  }, 180_000);

  test('a clean close right after the DEL deletes the queued blocks first', async () => {
    let t = await open(dir());
    await fill(t.redis, 's', ENTRIES);
    const blocks = await blockKeysOf(t, 's');
    t = await restart(dir());
    expect(await t.redis.del('s')).toBe(1);
    // Closed at once: the blocks are still queued.
    t = await restart(dir());
    expect(await present(db(t).store, blocks)).toBe(0);
    expect(await t.redis.exists('s')).toBe(0);
  }, 120_000);

  test('UNLINK, RENAME onto, MOVE, COPY REPLACE onto, RESTORE REPLACE over a stream on disk', async () => {
    let t = await open(dir());
    const cases: Array<[string, (r: Redis) => Promise<unknown>]> = [
      ['unlink', (r) => r.unlink('s')],
      ['rename', (r) => r.rename('src', 's')],
      // MOVE never overwrites: the stream itself moves, its blocks copied there and deleted here.
      ['move', (r) => r.move('s', 1)],
      ['copy', (r) => r.copy('src', 's', 'REPLACE')],
      ['restore', async (r) => r.restore('s', 0, await r.dumpBuffer('src'), 'REPLACE')],
    ];
    for (const [name, replace] of cases) {
      await t.redis.set('src', `string-for-${name}`);
      await fill(t.redis, 's', 6000);
      const blocks = await blockKeysOf(t, 's');
      t = await restart(dir());
      await replace(t.redis);
      expect(await t.redis.type('s'), name).toBe(
        name === 'unlink' || name === 'move' ? 'none' : 'string',
      );
      await reclaimedBlocks(db(t).collections);
      expect(await present(db(t).store, blocks), name).toBe(0);
      await t.redis.del('s', 'src');
    }
    await t.redis.select(1);
    expect(await t.redis.xlen('s')).toBe(6000);
    await t.redis.select(0);
  }, 180_000);

  test('DEL, SET over, STOREs over and expiry of a cached stream, and XTRIM of whole blocks', async () => {
    const t = await open(dir());
    await fill(t.redis, 's', 6000);
    let blocks = await blockKeysOf(t, 's');
    await t.redis.xlen('s'); // the head cached
    expect(await t.redis.del('s')).toBe(1);
    await reclaimedBlocks(db(t).collections);
    expect(await present(db(t).store, blocks)).toBe(0);

    await fill(t.redis, 's', 6000);
    blocks = await blockKeysOf(t, 's');
    await t.redis.xlen('s');
    expect(await t.redis.set('s', 'x')).toBe('OK');
    await reclaimedBlocks(db(t).collections);
    expect(await present(db(t).store, blocks)).toBe(0);

    await t.redis.del('s');
    await fill(t.redis, 's', 6000);
    blocks = await blockKeysOf(t, 's');
    expect(await t.redis.xtrim('s', 'MINID', '3001-0')).toBe(3000);
    await reclaimedBlocks(db(t).collections);
    // The first three blocks went; the others are still the stream's.
    expect(await present(db(t).store, blocks.slice(0, 3))).toBe(0);
    expect(await present(db(t).store, blocks.slice(3))).toBe(blocks.length - 3);
    expect(await t.redis.xlen('s')).toBe(3000);

    // STORE commands over a cached stream: a new value, or the key deleted by an empty result.
    await t.redis.sadd('set:a', 'x');
    for (const store of [
      (r: Redis) => r.sunionstore('s', 'set:a'),
      (r: Redis) => r.zunionstore('s', 1, 'set:a'),
      (r: Redis) => r.sinterstore('s', 'set:a', 'set:none'),
    ]) {
      await t.redis.del('s');
      await fill(t.redis, 's', 6000);
      blocks = await blockKeysOf(t, 's');
      await t.redis.xlen('s');
      await store(t.redis);
      await reclaimedBlocks(db(t).collections);
      expect(await present(db(t).store, blocks)).toBe(0);
    }
    expect(await t.redis.exists('s')).toBe(0);

    // A cached stream that expires: found expired by a lookup, its blocks go after it.
    await t.redis.del('s');
    await fill(t.redis, 's', 6000);
    blocks = await blockKeysOf(t, 's');
    await t.redis.xlen('s');
    expect(await t.redis.pexpire('s', 20)).toBe(1);
    while ((await t.redis.xlen('s')) !== 0) await new Promise((r) => setTimeout(r, 10));
    await reclaimedBlocks(db(t).collections);
    expect(await present(db(t).store, blocks)).toBe(0);
  }, 120_000);
});

describe('what DEL reads and tells', () => {
  const dir = useTempDir('strata-del-cached-');

  test('DEL of a cached collection forgets the entry once: its key is told gone once (blocked clients signalled once)', async () => {
    const t = await open(dir());
    await fill(t.redis, 's', 2000);
    await t.redis.hset('h', 'f', 'v');
    await t.redis.xlen('s'); // the head cached
    await t.redis.hget('h', 'f');
    const { collections } = db(t);
    const gone: string[] = [];
    const previous = collections.onKeyGone;
    collections.onKeyGone = (key) => {
      // The stream's blocks (internal keys) are told gone as the reclaimer deletes them.
      const name = key === null ? '*' : Buffer.from(key).toString('latin1');
      if (!name.includes('strata:')) gone.push(name);
      previous?.(key);
    };
    expect(await t.redis.del('h')).toBe(1);
    expect(await t.redis.del('s')).toBe(1);
    await reclaimedBlocks(collections);
    expect(gone).toEqual(['h', 's']);
  }, 60_000);

  test('DEL of a stream on disk: the delete that kept it says it is a stream, no probe of the key follows', async () => {
    let t = await open(dir());
    await fill(t.redis, 's', 6000);
    const blocks = await blockKeysOf(t, 's');
    t = await restart(dir());
    const { store, collections } = db(t);
    const probed: string[] = [];
    const probe = store.probe.bind(store);
    store.probe = (key) => {
      probed.push(Buffer.from(key).toString('latin1'));
      return probe(key);
    };
    expect(await t.redis.del('s')).toBe(1);
    await reclaimedBlocks(collections);
    expect(probed.filter((k) => k === 's')).toEqual([]);
    expect(await present(store, blocks)).toBe(0);
    expect(await t.redis.exists('s')).toBe(0);
  }, 60_000);

  test('COPY, MOVE and RENAMENX onto a missing key probe it once (the refusal check), not again for a stream there', async () => {
    const t = await open(dir());
    await t.redis.set('src', 'v');
    const { store } = db(t);
    const probed: string[] = [];
    const probe = store.probe.bind(store);
    store.probe = (key) => {
      probed.push(Buffer.from(key).toString('latin1'));
      return probe(key);
    };
    expect(await t.redis.copy('src', 'c')).toBe(1);
    expect(await t.redis.renamenx('src', 'r')).toBe(1);
    expect(probed.filter((k) => k === 'c' || k === 'r')).toEqual(['c', 'r']);
    expect(await t.redis.get('c')).toBe('v');
    expect(await t.redis.get('r')).toBe('v');
  }, 60_000);
});
