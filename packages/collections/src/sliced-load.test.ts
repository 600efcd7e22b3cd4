import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordType, Store } from '@strata/hlog';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bigCollection } from '../test/big-collection.js';
import { CollectionStore } from './collection-store.js';
import { HashValue } from './hash-value.js';
import type { CollectionLookup, MaybePending } from './lookup.js';
import { SetValue } from './set-value.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-sliced-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const k = (s: string) => Buffer.from(s);
const N = 40_000; // about 1 MB encoded: well past the sliced-load threshold

const big = (type: number) => bigCollection(type, N);

/** A store whose cache holds nothing for long: every get decodes the record again. */
async function setup(type: number) {
  const store = await Store.open({ dir, memory: 64 << 20, pageSize: 1 << 20, indexBuckets: 64 });
  // One slice a turn: "several turns" holds however fast the machine decodes.
  const cs = new CollectionStore(store, { budgetBytes: 1024, sliceMs: 0 });
  const value = big(type);
  await cs.create(k('big'), value);
  // A small key used afterwards evicts the big one (clean: dropped, record kept).
  await cs.create(k('small'), HashValue.empty());
  // An evicted clean entry is dropped at the end of the turn.
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(cs.peek(k('big'))).toBeUndefined();
  return { store, cs, encoded: value.encode() };
}

describe('CollectionStore: large records decode in slices', () => {
  for (const [name, type] of [
    ['hash', RecordType.HASH],
    ['set', RecordType.SET],
    ['sorted set', RecordType.ZSET],
    ['list', RecordType.LIST],
  ] as const) {
    it(`a ${name} loads over several event-loop turns; lookups meanwhile share the load`, async () => {
      const { store, cs, encoded } = await setup(type);
      let turns = 0;
      let ticking = true;
      const tick = () => {
        turns++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const first = cs.get(k('big'), type);
      expect(first).toBeInstanceOf(Promise);
      const second = cs.get(k('big'), type);
      expect(second).toBeInstanceOf(Promise);
      const [a, b] = (await Promise.all([first, second])) as CollectionLookup[];
      ticking = false;
      expect(turns).toBeGreaterThan(1);
      expect(a!.status).toBe('found');
      if (a!.status !== 'found' || b!.status !== 'found') throw new Error('not found');
      expect(b!.value).toBe(a!.value);
      expect(a!.value.size).toBe(N);
      expect(a!.value.encode().equals(encoded)).toBe(true);
      // Cached now: the next lookup is synchronous.
      expect(cs.get(k('big'), type)).not.toBeInstanceOf(Promise);
      await store.close();
    });
  }

  it('a record changed while it decodes is looked up again, not cached stale', async () => {
    const { store, cs } = await setup(RecordType.HASH);
    const pending = cs.get(k('big'), RecordType.HASH) as Promise<CollectionLookup>;
    // A record-level delete (DEL) while the slices run.
    store.remove(k('big'));
    cs.invalidate(k('big'));
    expect((await pending).status).toBe('missing');
    expect(cs.peek(k('big'))).toBeUndefined();

    // And a key recreated meanwhile answers with the new value.
    const cs2 = cs;
    await cs2.create(k('big'), big(RecordType.SET));
    await cs2.create(k('small2'), HashValue.empty());
    await new Promise((resolve) => setTimeout(resolve, 0));
    const p2 = cs2.get(k('big'), RecordType.SET) as MaybePending<CollectionLookup>;
    const fresh = SetValue.empty();
    fresh.add('only');
    store.remove(k('big'));
    cs2.invalidate(k('big'));
    await cs2.create(k('big'), fresh);
    const r = await p2;
    expect(r.status).toBe('found');
    if (r.status === 'found') expect(r.value).toBe(fresh);
    await store.close();
  });

  it('an expiry change while it decodes is kept without decoding again', async () => {
    const { store, cs } = await setup(RecordType.LIST);
    const loads = cs.stats().loads;
    const pending = cs.get(k('big'), RecordType.LIST) as Promise<CollectionLookup>;
    cs.expiryChanged(k('big'), Date.now() + 3_600_000);
    expect((await pending).status).toBe('found');
    expect(cs.stats().loads).toBe(loads + 1);
    expect(cs.peek(k('big'))?.size).toBe(N);
    await store.close();
  });

  it('a corrupt large record rejects every waiter and is not cached', async () => {
    const store = await Store.open({ dir, memory: 64 << 20, pageSize: 1 << 20, indexBuckets: 64 });
    const cs = new CollectionStore(store, { budgetBytes: 1024 });
    const bytes = big(RecordType.SET).encode();
    bytes.writeUInt32LE(N + 5, 1); // claims more members than it holds
    const w = store.upsert(k('bad'), bytes, 0, 0, RecordType.SET as never);
    if (w.status === 'pending') await w.pending;
    const a = cs.get(k('bad'), RecordType.SET);
    const b = cs.get(k('bad'), RecordType.SET);
    await expect(a).rejects.toThrow(/cut short/);
    await expect(b).rejects.toThrow(/cut short/);
    expect(cs.peek(k('bad'))).toBeUndefined();
    await store.close();
  });
});
