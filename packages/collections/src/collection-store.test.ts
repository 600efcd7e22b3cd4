import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordType, Store } from '@strata/hlog';
import { Prng } from '@strata/io';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CollectionStore } from './collection-store.js';
import { HashValue } from './hash-value.js';
import type { CollectionLookup, MaybePending } from './lookup.js';
import { SetValue } from './set-value.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-collections-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = () => Store.open({ dir, memory: 16 * 4096, pageSize: 4096, indexBuckets: 64 });
const k = (s: string) => Buffer.from(s);

async function hashAt(cs: CollectionStore, key: string): Promise<HashValue | null> {
  const r = await (cs.get<HashValue>(k(key), RecordType.HASH) as MaybePending<
    CollectionLookup<HashValue>
  >);
  if (r.status === 'wrongType') throw new Error('wrong type');
  return r.status === 'found' ? r.value : null;
}

/**
 * A cached hash `key` ({f: v}) whose record has gone to the device (the
 * log run past its memory): a write of it that must find the record
 * (a write-back's XX, a delete) goes pending.
 */
async function hashOnDevice(
  store: Store,
  cs: CollectionStore,
  key: string,
  expiresAt = 0,
): Promise<HashValue> {
  const h = HashValue.empty();
  h.set('f', 'v');
  await cs.create(k(key), h, expiresAt);
  for (let i = 0; i < 200; i++) await store.set(k(`pad:${key}:${i}`), Buffer.alloc(1000, 0x61));
  return h;
}

/** A write that replaces `key` without the cache, then tells the cache (SET's order, strings.ts). */
function replaceOutsideCache(store: Store, cs: CollectionStore, key: string, text: string): void {
  expect(store.upsert(k(key), Buffer.from(text)).status).toBe('ok');
  cs.invalidate(k(key));
}

/** The string `key` holds in the store. */
async function stringAt(store: Store, key: string): Promise<string | null> {
  const r = await store.get(k(key));
  return r.status === 'found' && r.type === RecordType.STRING ? r.value.toString() : null;
}

describe('CollectionStore', () => {
  it('creates, changes, evicts to the log and reads back, within its budget', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 8 * 1024 });
    const model = new Map<string, Map<string, string>>();
    const rng = new Prng(5);
    for (let i = 0; i < 3000; i++) {
      const key = `h${rng.nextInt(60)}`;
      const field = `f${rng.nextInt(40)}`;
      const value = `v${i}`;
      let h = await hashAt(cs, key);
      if (h === null) {
        h = HashValue.empty();
        h.set(field, value);
        await cs.create(k(key), h);
      } else {
        h.set(field, value);
        cs.changed(k(key), h);
      }
      let m = model.get(key);
      if (m === undefined) {
        m = new Map();
        model.set(key, m);
      }
      m.set(field, value);
      if (rng.next() < 0.05) {
        const victim = `h${rng.nextInt(60)}`;
        await cs.delete(k(victim));
        model.delete(victim);
      }
    }
    const s = cs.stats();
    expect(s.evictions).toBeGreaterThan(0);
    expect(s.writeBacks).toBeGreaterThan(0);
    expect(s.loads).toBeGreaterThan(0);
    for (let i = 0; i < 60; i++) {
      const h = await hashAt(cs, `h${i}`);
      const m = model.get(`h${i}`);
      if (m === undefined) expect(h).toBeNull();
      else {
        const got = new Map<string, string>();
        h!.forEach((f, v) => {
          got.set(f, v);
        });
        expect(got).toEqual(m);
      }
    }
    await cs.flush();
    await store.close();

    // Everything written back survives a restart.
    const again = await open();
    const cs2 = new CollectionStore(again, { budgetBytes: 8 * 1024 });
    for (const [key, m] of model) expect((await hashAt(cs2, key))!.size).toBe(m.size);
    await again.close();
  });

  it('a smaller budget set live evicts down to it; dirty entries are written back first', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 256 * 1024 });
    for (let i = 0; i < 40; i++) {
      const h = HashValue.empty();
      for (let f = 0; f < 20; f++) h.set(`f${f}`, `value-${i}-${f}`);
      await cs.create(k(`h${i}`), h);
    }
    const before = cs.stats();
    expect(before.entries).toBe(40);
    cs.setBudget(4 * 1024);
    expect(cs.budgetBytes).toBe(4 * 1024);
    await cs.flush();
    await new Promise((r) => setImmediate(r));
    const after = cs.stats();
    expect(after.bytes).toBeLessThanOrEqual(4 * 1024);
    expect(after.evictions).toBeGreaterThan(30);
    // Every hash reads back whole, from the log.
    for (let i = 0; i < 40; i++) {
      const h = await hashAt(cs, `h${i}`);
      expect(h?.get('f19')?.toString()).toBe(`value-${i}-19`);
    }
    await store.close();
  });

  it('a hit answers one object per value, and the new value once the key holds another', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 64 * 1024 });
    const get = () => cs.get<HashValue>(k('h'), RecordType.HASH) as CollectionLookup<HashValue>;
    const a = HashValue.empty();
    a.set('f', 'a');
    await cs.create(k('h'), a);
    const first = get();
    expect(first).toEqual({ status: 'found', value: a });
    expect(get()).toBe(first);
    const b = HashValue.empty();
    b.set('f', 'b');
    await cs.create(k('h'), b);
    expect(get()).toEqual({ status: 'found', value: b });
    expect(first).toEqual({ status: 'found', value: a });
    await cs.delete(k('h'));
    expect(get()).toEqual({ status: 'missing' });
    await cs.create(k('h'), a);
    expect(get()).toEqual({ status: 'found', value: a });
    await store.close();
  });

  it("exists: any type, the cache's creations and deletions included, nothing decoded", async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    await store.set(k('str'), k('x'));
    const s = SetValue.empty();
    s.add('a');
    await cs.create(k('set'), s);
    expect(await cs.exists(k('str'))).toBe(true);
    expect(await cs.exists(k('set'))).toBe(true);
    expect(await cs.exists(k('none'))).toBe(false);
    void cs.delete(k('set')); // the cache knows at once, before the store's write
    expect(await cs.exists(k('set'))).toBe(false);
    await store.close();
  });

  it('answers wrongType and missing from the cache and the store', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    await store.set(k('str'), k('x'));
    const s = SetValue.empty();
    s.add('a');
    await cs.create(k('set'), s);
    expect(await cs.get(k('str'), RecordType.HASH)).toEqual({
      status: 'wrongType',
      type: RecordType.STRING,
    });
    expect(await cs.get(k('set'), RecordType.HASH)).toEqual({
      status: 'wrongType',
      type: RecordType.SET,
    });
    expect(await cs.get(k('none'), RecordType.HASH)).toEqual({ status: 'missing' });
    // The record exists at once with its type.
    const rec = await store.get(k('set'));
    expect(rec.status === 'found' && rec.type).toBe(RecordType.SET);
    // An invalidated entry is read again from the store (a command overwrote the key).
    await store.set(k('set'), k('now a string'));
    cs.invalidate(k('set'));
    expect(await cs.get(k('set'), RecordType.SET)).toEqual({
      status: 'wrongType',
      type: RecordType.STRING,
    });
    await store.close();
  });

  it('drops an entry whose key expired, and never writes an expired key back', async () => {
    let now = 1_000_000;
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20, now: () => now });
    const h = HashValue.empty();
    h.set('f', 'v');
    await cs.create(k('h'), h, Date.now() + 60_000);
    now += 1000;
    expect((await cs.get(k('h'), RecordType.HASH)).status).toBe('found');
    cs.expiryChanged(k('h'), now - 1);
    expect(cs.peek(k('h'))).toBeUndefined();
    await store.close();
  });

  it('a write-back keeps the record expiry set after the create', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    const h = HashValue.empty();
    h.set('f', 'v');
    await cs.create(k('h'), h);
    const at = Date.now() + 3_600_000;
    await store.expireAt(k('h'), at);
    cs.expiryChanged(k('h'), at);
    h.set('g', 'w');
    cs.changed(k('h'), h);
    await cs.writeBack(k('h'));
    expect(await store.ttl(k('h'))).toBeGreaterThan(3_500_000);
    const back = await store.get(k('h'));
    expect(back.status === 'found' && HashValue.decode(back.value).size).toBe(2);
    await store.close();
  });

  it('a write-back pending on the device does not land over a write that replaced the key meanwhile', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    const h = await hashOnDevice(store, cs, 'h');
    h.set('f', 'changed');
    cs.changed(k('h'), h);
    // Over an existing record only, keeping its TTL: the record is looked for on the device.
    const writeBack = cs.writeBack(k('h'));
    expect(writeBack).toBeInstanceOf(Promise);
    replaceOutsideCache(store, cs, 'h', 'a string');
    await writeBack;
    expect(await stringAt(store, 'h')).toBe('a string');

    // A create queued behind a pending write-back, the key then replaced: neither lands.
    const h2 = await hashOnDevice(store, cs, 'h2');
    h2.set('f', 'changed');
    cs.changed(k('h2'), h2);
    const pending = cs.writeBack(k('h2'));
    expect(pending).toBeInstanceOf(Promise);
    const queued = cs.create(k('h2'), HashValue.empty());
    replaceOutsideCache(store, cs, 'h2', 'newest');
    await Promise.all([pending, queued]);
    expect(await stringAt(store, 'h2')).toBe('newest');
    await store.close();
  });

  it("the cache's own delete pending on the device does not land over a write that replaced the key", async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    await hashOnDevice(store, cs, 'h');
    // As the field-expiry cycle deletes a hash whose last field expired.
    const deleted = cs.delete(k('h'));
    expect(deleted).toBeInstanceOf(Promise);
    replaceOutsideCache(store, cs, 'h', 'a string');
    await deleted;
    expect(await stringAt(store, 'h')).toBe('a string');
    await store.close();
  });

  it('an entry dropped as expired while its write-back is pending: the write-back does not land', async () => {
    let now = 1_000_000;
    const store = await Store.open({
      dir,
      memory: 16 * 4096,
      pageSize: 4096,
      indexBuckets: 64,
      clock: () => now,
    });
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    const h = await hashOnDevice(store, cs, 'h', now + 1000);
    h.set('f', 'changed');
    cs.changed(k('h'), h);
    const writeBack = cs.writeBack(k('h'));
    expect(writeBack).toBeInstanceOf(Promise);
    now += 2000; // the key expires while the write-back reads the device
    const r = cs.get(k('h'), RecordType.HASH); // found expired: the entry goes
    expect(r instanceof Promise ? 'pending' : r.status).not.toBe('found');
    replaceOutsideCache(store, cs, 'h', 'a string'); // no entry left to tell
    await writeBack;
    expect(await stringAt(store, 'h')).toBe('a string');
    await store.close();
  });

  it('the background write-back writes idle dirty entries, and a busy one after 12 periods', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20 });
    const idle = HashValue.empty();
    idle.set('a', '1');
    await cs.create(k('idle'), idle);
    const busy = HashValue.empty();
    busy.set('a', '1');
    await cs.create(k('busy'), busy);
    idle.set('b', '2');
    cs.changed(k('idle'), idle);
    const fields = async (key: string) => {
      const r = await store.get(k(key));
      return r.status === 'found' ? HashValue.decode(r.value).size : -1;
    };
    for (let period = 1; period <= 12; period++) {
      busy.set(`f${period}`, 'x');
      cs.changed(k('busy'), busy);
      cs.backgroundWriteBack();
      await cs.flushPending();
      if (period === 2) expect(await fields('idle')).toBe(2);
      if (period < 12) expect(await fields('busy')).toBe(1);
    }
    expect(await fields('busy')).toBe(13);
    expect(cs.stats().dirty).toBe(0);
    await store.close();
  });

  it('a clean entry evicted by another key stays the cached one for the rest of the turn', async () => {
    // SMOVE/LMOVE hold the first key's structure while the second key's
    // load evicts it: their change to it must not go to a copy the cache let go.
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 4 * 1024 });
    const fill = (h: HashValue, tag: string) => {
      for (let i = 0; i < 100; i++) h.set(`${tag}-field-${i}`, `value-${i}`);
      return h;
    };
    await cs.create(k('a'), fill(HashValue.empty(), 'a'));
    await cs.create(k('b'), fill(HashValue.empty(), 'b'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cs.peek(k('a'))).toBeUndefined(); // b's create evicted a (clean: dropped at the turn's end)
    const a = (await hashAt(cs, 'a'))!;
    const b = (await hashAt(cs, 'b'))!; // evicts a, which is clean
    a.set('moved', '1');
    cs.changed(k('a'), a);
    b.set('moved', '1');
    cs.changed(k('b'), b);
    await cs.flush();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await cs.flush();
    expect((await hashAt(cs, 'a'))?.get('moved')).toBe('1');
    expect((await hashAt(cs, 'b'))?.get('moved')).toBe('1');
    await store.close();
  });

  it('keeps at most 8 evicted clean entries to the end of the turn', async () => {
    const store = await open();
    const cs = new CollectionStore(store, { budgetBytes: 1024 });
    for (let i = 0; i < 20; i++) {
      const h = HashValue.empty();
      for (let f = 0; f < 20; f++) h.set(`field-${f}`, `value-${i}-${f}`);
      await cs.create(k(`h${i}`), h);
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    // One turn reading every hash (a pipeline): each load evicts the one before.
    for (let i = 0; i < 20; i++)
      expect(cs.get(k(`h${i}`), RecordType.HASH)).not.toBeInstanceOf(Promise);
    expect(cs.stats().entries).toBeLessThanOrEqual(9);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cs.stats().entries).toBe(1);
    await store.close();
  });
});
