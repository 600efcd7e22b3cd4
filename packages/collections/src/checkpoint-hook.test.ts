import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordType, Store } from '@strata/hlog';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CollectionStore } from './collection-store.js';
import { HashValue } from './hash-value.js';
import type { CollectionLookup, MaybePending } from './lookup.js';

// Every checkpoint the store takes itself (checkpoint(), compaction's,
// close()) holds the cache's changes made before it, with no flush() by
// anyone: the cache writes back in the checkpoint's hook. Each test then
// crashes (abandon: nothing more written) and recovers.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-collections-hook-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = () =>
  Store.open({ dir, memory: 16 * 4096, pageSize: 4096, indexBuckets: 64, segmentSize: 8 * 4096 });
const k = (s: string) => Buffer.from(s);

async function hashAt(cs: CollectionStore, key: string): Promise<HashValue | null> {
  const r = await (cs.get<HashValue>(k(key), RecordType.HASH) as MaybePending<
    CollectionLookup<HashValue>
  >);
  if (r.status === 'wrongType') throw new Error('wrong type');
  return r.status === 'found' ? r.value : null;
}

/** The hash as recovered from the log alone (a fresh cache over a reopened store). */
async function recovered(key: string): Promise<Record<string, string> | null> {
  const store = await open();
  const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
  const h = await hashAt(cs, key);
  let out: Record<string, string> | null = null;
  if (h !== null) {
    const fields: Record<string, string> = {};
    h.forEach((f, v) => {
      fields[f] = v;
    });
    out = fields;
  }
  cs.dispose();
  await store.close();
  return out;
}

/** Pushes every earlier record out of the store's memory (to the device). */
async function fill(store: Store, n = 800): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = store.upsert(k(`fill:${i}`), Buffer.alloc(200, 46));
    if (r.status === 'pending') await r.pending;
  }
}

async function createHash(cs: CollectionStore, key: string, field: string, value: string) {
  const h = HashValue.empty();
  h.set(field, value);
  await cs.create(k(key), h);
  return h;
}

describe('checkpoints write the collection cache back themselves', () => {
  it('a change only in the cache is in a checkpoint taken on the store', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    expect(cs.checkpointHooked).toBe(true);
    const h = await createHash(cs, 'h', 'a', '1');
    h.set('b', '2');
    cs.changed(k('h'), h);
    expect(cs.stats().dirty).toBe(1);
    await store.checkpoint();
    expect(cs.stats().dirty).toBe(0);
    await store.abandon();
    expect(await recovered('h')).toEqual({ a: '1', b: '2' });
  });

  it('a change whose record is on the device: the write-back goes pending, the checkpoint waits', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    const h = await createHash(cs, 'h', 'a', '1');
    await fill(store);
    h.set('b', '2');
    cs.changed(k('h'), h);
    await store.checkpoint();
    await store.abandon();
    expect(await recovered('h')).toEqual({ a: '1', b: '2' });
  });

  it('a write-back issued before the checkpoint and still in flight is waited for', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    const h = await createHash(cs, 'h', 'a', '1');
    await fill(store);
    h.set('b', '2');
    cs.changed(k('h'), h);
    const inFlight = cs.writeBack(k('h')); // XX over a record on the device: pending
    expect(inFlight).toBeInstanceOf(Promise);
    expect(cs.stats().dirty).toBe(0);
    const cp = store.checkpoint();
    h.set('c', '3'); // while the checkpoint waits: its rerun of the hook writes it too
    cs.changed(k('h'), h);
    await cp;
    await inFlight;
    await store.abandon();
    expect(await recovered('h')).toEqual({ a: '1', b: '2', c: '3' });
  });

  it("compaction's checkpoint holds the cache's changes", async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    const h = await createHash(cs, 'h', 'a', '1');
    await fill(store);
    await fill(store); // the first records are dead now: compaction frees their segments
    h.set('b', '2');
    cs.changed(k('h'), h);
    const r = await store.compact();
    expect(r.bytesFreed).toBeGreaterThan(0);
    await store.abandon();
    expect(await recovered('h')).toEqual({ a: '1', b: '2' });
  });

  it('close writes the cache back; a disposed cache is not written by later checkpoints', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    const h = await createHash(cs, 'h', 'a', '1');
    h.set('b', '2');
    cs.changed(k('h'), h);
    await store.close();
    expect(await recovered('h')).toEqual({ a: '1', b: '2' });

    const again = await open();
    const cs2 = new CollectionStore(again, { budgetBytes: 1 << 20 });
    const h2 = (await hashAt(cs2, 'h'))!;
    h2.set('c', '3');
    cs2.changed(k('h'), h2);
    cs2.dispose();
    expect(cs2.checkpointHooked).toBe(false);
    await again.checkpoint();
    await again.abandon();
    expect(await recovered('h')).toEqual({ a: '1', b: '2' });
  });
});
