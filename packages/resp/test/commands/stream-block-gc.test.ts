import {
  beginStreamBuild,
  type CollectionStore,
  reclaimedBlocks,
  type StreamValue,
} from '@strata/collections';
import type { Store, StoreCore } from '@strata/hlog';
import type { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { collectOrphanBlocks } from '../../src/commands/streams/stream-block-gc.js';
import { useTempDir } from '../support/collection-helpers.js';
import {
  afterWalkedPages,
  blockKeysOf,
  dbOf,
  fillStream,
  present,
} from '../support/stream-blocks.js';
import { type DirServer, SMALL_STORE, serversOnDirs } from '../support/test-server.js';

/**
 * The block GC (stream-block-gc.ts) deletes the blocks that no head names:
 * those a blind SET over a head not cached leaves, and those of a stream
 * that expired while not cached, once compaction has dropped the old head;
 * never a block of a live stream, on disk or only in the cache, nor while a
 * stream is built outside the cache. Small stores (most blocks on disk),
 * restarts so that heads are not cached.
 */
const STORE = { ...SMALL_STORE, segmentSize: 64 * 1024 };
const { open, restart } = serversOnDirs({ store: STORE, collectionMemory: 64 * 1024 });
/** Pages large enough that a head is a record in a page (not a blob), written back in place. */
const large = serversOnDirs({
  store: { memory: 8 << 20, pageSize: 256 << 10, indexBuckets: 1024 },
  collectionMemory: 16 << 20,
});
/** A cache large enough that a head stays in it, dirty, until the close writes it back. */
const roomy = serversOnDirs({ store: STORE, collectionMemory: 16 * 1024 * 1024 });

const fill = fillStream;
const db = dbOf;

/** Writes the cache back, checkpoints, and compacts everything below the log's head. */
async function compact(t: DirServer): Promise<void> {
  const { store, collections } = db(t);
  await collections.flush();
  await (store as Store).checkpoint();
  await (store as Store).compact();
}

/** A GC pass that swept, and its blocks deleted. */
async function swept(t: DirServer): Promise<number> {
  const r = await collectOrphanBlocks(db(t).collections);
  if (r.status !== 'swept') throw new Error(`the pass skipped: ${r.reason}`);
  await reclaimedBlocks(db(t).collections);
  return r.orphans;
}

describe('the stream block GC', () => {
  const dir = useTempDir('strata-stream-gc-');

  test('a blind SET over a stream on disk, and a stream expired on disk: their blocks go once compaction dropped the old heads; the live streams keep theirs', async () => {
    let t = await open(dir());
    await fill(t.redis, 'over', 6000);
    await fill(t.redis, 'expires', 5000);
    await fill(t.redis, 'live', 7000);
    const over = await blockKeysOf(t, 'over');
    const expires = await blockKeysOf(t, 'expires');
    const live = await blockKeysOf(t, 'live');
    expect(over.length).toBeGreaterThan(3);

    t = await restart(dir());
    expect(db(t).collections.peek(Buffer.from('over'))).toBeUndefined();
    expect(await t.redis.set('over', 'a string now')).toBe('OK');
    expect(await t.redis.pexpire('expires', 1)).toBe(1);
    t = await restart(dir());
    await new Promise((r) => setTimeout(r, 20));
    // The blind SET and the expiry read no head: their blocks are left.
    expect(await present(db(t).store, over)).toBe(over.length);
    expect(await present(db(t).store, expires)).toBe(expires.length);
    // While the old heads are in the log, they still name their blocks.
    expect(await swept(t)).toBe(0);
    expect(await present(db(t).store, over)).toBe(over.length);

    await compact(t);
    expect(await swept(t)).toBe(over.length + expires.length);
    expect(await present(db(t).store, over)).toBe(0);
    expect(await present(db(t).store, expires)).toBe(0);
    expect(await present(db(t).store, live)).toBe(live.length);
    expect(await t.redis.xlen('live')).toBe(7000);
    expect(await t.redis.xrange('live', '-', '+', 'COUNT', 2)).toHaveLength(2);
    expect((await t.redis.xrange('live', '-', '+')).length).toBe(7000);
    expect(await t.redis.get('over')).toBe('a string now');
    // Nothing left to collect.
    await compact(t);
    expect(await swept(t)).toBe(0);
  }, 180_000);

  test('blocks named only by a head in the cache (its record written before its first block) stay', async () => {
    let t = await roomy.open(dir());
    // The head's record is written with no stream ID; its blocks seal later, on the cached head.
    await t.redis.xadd('fresh', '1-0', 'f', 'v');
    await fill(t.redis, 'fresh', 4000, 2);
    const r = await collectOrphanBlocks(db(t).collections);
    expect(r).toMatchObject({ status: 'swept', orphans: 0 });
    expect(r.status === 'swept' && r.blocks).toBeGreaterThan(3);
    await reclaimedBlocks(db(t).collections);
    expect(await t.redis.xlen('fresh')).toBe(4001);
    t = await roomy.restart(dir());
    expect((await t.redis.xrange('fresh', '-', '+')).length).toBe(4001);
    await t.redis.del('fresh');
  }, 120_000);

  test('a pass during a stream build outside the cache deletes nothing; COPY, MOVE and RESTORE between passes keep every block', async () => {
    let t = await open(dir());
    await fill(t.redis, 'src', 5000);
    t = await restart(dir());
    const build = beginStreamBuild(db(t).collections);
    expect(await collectOrphanBlocks(db(t).collections)).toEqual({
      status: 'skipped',
      reason: 'building',
    });
    build.end();
    // Passes racing the commands that build streams outside the cache.
    let stop = false;
    const passes = (async () => {
      let n = 0;
      while (!stop) {
        const r = await collectOrphanBlocks(db(t).collections);
        if (r.status === 'swept') n++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return n;
    })();
    for (let i = 0; i < 3; i++) {
      expect(await t.redis.copy('src', `copy${i}`)).toBe(1);
      await t.redis.restore(`restored${i}`, 0, await t.redis.dumpBuffer('src'));
    }
    await t.redis.copy('src', 'moved');
    expect(await t.redis.move('moved', 1)).toBe(1);
    stop = true;
    expect(await passes).toBeGreaterThan(0);
    await compact(t);
    await swept(t);
    t = await restart(dir());
    for (const key of ['src', 'copy0', 'copy1', 'copy2', 'restored0', 'restored1', 'restored2']) {
      expect((await t.redis.xrange(key, '-', '+')).length, key).toBe(5000);
    }
    await t.redis.select(1);
    expect((await t.redis.xrange('moved', '-', '+')).length).toBe(5000);
  }, 180_000);
});

/**
 * Runs `action` once during the next pass, after the walk's first page:
 * a deterministic moment at which the pass has walked part of the log.
 */
function duringNextPass(action: () => Promise<void>): () => void {
  let done = false;
  return afterWalkedPages(async () => {
    if (done) return;
    done = true;
    await action();
  });
}

describe('the block GC and writes in place during a pass', () => {
  const dir = useTempDir('strata-stream-gc-inplace-');
  let n = 0;
  const start = async () => {
    const t = await large.open(`${dir()}/${n++}`);
    const cache = t.server.keyspace.collections(0) as CollectionStore;
    cache.stopBackground();
    return { r: t.redis, cache, store: t.server.keyspace.get(0) as StoreCore };
  };
  const adds = async (redis: Redis, key: string, from: number, n: number, tag = 'v') => {
    const p = redis.pipeline();
    for (let i = from; i < from + n; i++) p.xadd(key, `${i + 1}-0`, 'f', `${tag}${i}`);
    await p.exec();
  };

  test('a head given its stream ID by its first seal, written back in place behind the walk and evicted, keeps its blocks', async () => {
    const { r, cache } = await start();
    await adds(r, 's', 0, 600);
    await cache.flush(); // the head's record: 600 entries, no stream ID
    await r.set('pad', 'x'.repeat(100));
    await adds(r, 's', 600, 450); // block 0 seals: a stream ID, the head dirty in the cache
    const head = cache.peek(Buffer.from('s')) as StreamValue;
    expect(head.sid).not.toBeNull();
    const undo = duringNextPass(async () => {
      // Memory pressure: the head is written back (in place: sealing emptied its tail) and let go.
      cache.setBudget(0);
      await cache.flushPending();
      cache.setBudget(16 << 20);
    });
    try {
      expect(await collectOrphanBlocks(cache)).toMatchObject({ status: 'swept', orphans: 0 });
    } finally {
      undo();
    }
    expect(cache.peek(Buffer.from('s'))).toBeUndefined();
    await reclaimedBlocks(cache);
    expect((await r.xrange('s', '-', '+')).length).toBe(1050);
  });

  test('RENAME onto a key the walk has passed, its source deleted in place ahead of the walk, keeps the blocks', async () => {
    const { r, cache, store } = await start();
    await r.set('dst', 'y'.repeat(30000)); // a slot the head fits in, early in the log
    await adds(r, 'src', 0, 2500); // two blocks sealed
    for (let i = 0; store.log.tail < (256 << 10) + 1000; i++)
      await r.set(`pad${i}`, 'x'.repeat(1000));
    await cache.flush(); // the source's head, with its stream ID, on the second page
    const undo = duringNextPass(async () => {
      expect(await r.rename('src', 'dst')).toBe('OK');
    });
    try {
      expect(await collectOrphanBlocks(cache)).toMatchObject({ status: 'swept', orphans: 0 });
    } finally {
      undo();
    }
    await reclaimedBlocks(cache);
    expect((await r.xrange('dst', '-', '+')).length).toBe(2500);
  });

  test('COPY of a stream with a stream ID and no block left: the copy seals under its own', async () => {
    const { r, cache } = await start();
    await adds(r, 's', 0, 1000, 's'); // block 0 sealed: a stream ID
    expect(await r.xtrim('s', 'MAXLEN', 0)).toBe(1000); // no block left, the ID kept
    expect(await r.copy('s', 'c')).toBe(1);
    await adds(r, 's', 1000, 1000, 's');
    await adds(r, 'c', 1000, 1000, 'c');
    expect((await r.xrange('s', '-', '+', 'COUNT', 1))[0]![1]).toEqual(['f', 's1000']);
    expect((await r.xrange('c', '-', '+', 'COUNT', 1))[0]![1]).toEqual(['f', 'c1000']);
    expect(await r.del('c')).toBe(1);
    await reclaimedBlocks(cache);
    expect((await r.xrange('s', '-', '+')).length).toBe(1000);
  });
});
