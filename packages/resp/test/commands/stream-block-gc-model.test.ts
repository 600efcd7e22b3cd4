import { type CollectionStore, reclaimedBlocks } from '@strata/collections';
import type { Store, StoreCore } from '@strata/hlog';
import type { Redis } from 'ioredis';
import { expect, test } from 'vitest';
import { collectOrphanBlocks } from '../../src/commands/streams/stream-block-gc.js';
import { useTempDir } from '../support/collection-helpers.js';
import { afterWalkedPages } from '../support/stream-blocks.js';
import { serversOnDirs } from '../support/test-server.js';

/**
 * The block GC against a model, with the commands that move, copy,
 * overwrite and trim streams run in the middle of passes (after random
 * pages of the walk), the cache evicting (its budget dropped to nothing
 * now and then: write-backs land in place where the walk has been) and
 * compaction between some passes: after every pass every stream reads
 * back exactly what the model holds, and every string too. A seeded run.
 */
const server = serversOnDirs({
  // Pages large enough for heads to be records (written back in place); a small cache.
  store: { memory: 4 << 20, pageSize: 128 << 10, indexBuckets: 4096, segmentSize: 1 << 20 },
  collectionMemory: 256 << 10,
});

function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

type Value = { kind: 'stream'; ids: number[] } | { kind: 'string'; text: string };

const KEYS = ['a', 'b', 'c', 'd', 'e'];
const dir = useTempDir('strata-gc-model-');

test('passes racing stream commands and evictions never lose an entry', async () => {
  const rnd = lcg(20261207);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const t = await server.open(dir());
  const r: Redis = t.redis;
  const cache = t.server.keyspace.collections(0) as CollectionStore;
  const store = t.server.keyspace.get(0) as StoreCore;
  const model = new Map<string, Value>();
  let nextId = 1;

  const xadd = async (key: string, n: number) => {
    const v = model.get(key);
    const ids = v?.kind === 'stream' ? v.ids : [];
    if (v !== undefined && v.kind !== 'stream') await r.del(key);
    const p = r.pipeline();
    for (let i = 0; i < n; i++) {
      const id = nextId++;
      p.xadd(key, `${id}-0`, 'f', `${key}${id}${'x'.repeat(30)}`);
      ids.push(id);
    }
    await p.exec();
    model.set(key, { kind: 'stream', ids });
  };
  const ops: Array<() => Promise<void>> = [
    () => xadd(pick(KEYS), 1 + Math.floor(rnd() * 1500)),
    async () => {
      // A new stream whose head is written before its first block: its
      // stream ID is in the cache only, until a write-back (maybe in place).
      const key = pick(KEYS);
      await r.del(key);
      model.delete(key);
      await xadd(key, 1);
      await xadd(key, 1000 + Math.floor(rnd() * 500));
    },
    async () => {
      const key = pick(KEYS);
      const v = model.get(key);
      if (v?.kind !== 'stream') return;
      const keep = Math.floor(rnd() * v.ids.length);
      await r.xtrim(key, 'MAXLEN', keep);
      v.ids = v.ids.slice(v.ids.length - keep);
    },
    async () => {
      const key = pick(KEYS);
      await r.del(key);
      model.delete(key);
    },
    async () => {
      // A blind overwrite: over a head not cached, its blocks are left for the GC.
      const key = pick(KEYS);
      const text = `s${nextId++}`;
      await r.set(key, text);
      model.set(key, { kind: 'string', text });
    },
    async () => {
      const [from, to] = [pick(KEYS), pick(KEYS)];
      const v = model.get(from);
      if (v === undefined || from === to) return;
      await r.rename(from, to);
      model.delete(from);
      model.set(to, v);
    },
    async () => {
      const [from, to] = [pick(KEYS), pick(KEYS)];
      const v = model.get(from);
      if (v === undefined || from === to) return;
      await r.copy(from, to, 'REPLACE');
      model.set(to, v.kind === 'stream' ? { kind: 'stream', ids: [...v.ids] } : { ...v });
    },
    async () => {
      const [from, to] = [pick(KEYS), pick(KEYS)];
      const v = model.get(from);
      if (v === undefined || from === to) return;
      await r.restore(to, 0, await r.dumpBuffer(from), 'REPLACE');
      model.set(to, v.kind === 'stream' ? { kind: 'stream', ids: [...v.ids] } : { ...v });
    },
    async () => {
      // Cache pressure: every head written back and let go.
      cache.setBudget(0);
      await cache.flushPending();
      cache.setBudget(256 << 10);
    },
  ];

  const check = async (round: number) => {
    for (const key of KEYS) {
      const v = model.get(key);
      const where = `round ${round}, key ${key}`;
      if (v === undefined) expect(await r.exists(key), where).toBe(0);
      else if (v.kind === 'string') expect(await r.get(key), where).toBe(v.text);
      else {
        const got = (await r.xrange(key, '-', '+')).map(([id]) => Number(id.split('-')[0]));
        expect(got, where).toEqual(v.ids);
      }
    }
  };

  for (const key of KEYS) await xadd(key, 1200);
  let swept = 0;
  let orphans = 0;
  for (let round = 0; round < 40; round++) {
    // Commands queued as pages are walked, run one after the other while
    // the pass goes on (so a COPY or RESTORE can span its end), the next
    // queued only when the walk has moved on.
    let queue: Promise<void> = Promise.resolve();
    const undo = afterWalkedPages(async () => {
      if (rnd() < 0.7) queue = queue.then(pick(ops));
      await new Promise((resolve) => setImmediate(resolve));
    });
    let result: Awaited<ReturnType<typeof collectOrphanBlocks>>;
    try {
      result = await collectOrphanBlocks(cache);
    } finally {
      undo();
    }
    await queue;
    if (result.status === 'swept') {
      swept++;
      orphans += result.orphans;
    }
    await reclaimedBlocks(cache);
    await check(round);
    // Between passes: more of the same, and now and then a compaction (old heads dropped).
    for (let i = 0; i < 3; i++) await pick(ops)();
    if (round % 4 === 3) {
      await cache.flush();
      await (store as Store).checkpoint();
      await (store as Store).compact();
    }
  }
  // The run did what it is for: passes swept, and found orphans to collect.
  expect(swept).toBeGreaterThan(20);
  expect(orphans).toBeGreaterThan(0);
}, 300_000);
