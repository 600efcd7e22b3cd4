import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordType, Store } from '@strata/hlog';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bigCollection } from '../test/big-collection.js';
import { CollectionStore } from './collection-store.js';
import type { CollectionValue } from './collection-value.js';
import { HashValue } from './hash-value.js';
import { List } from './list.js';
import type { CollectionLookup, MaybePending } from './lookup.js';
import { SetValue } from './set-value.js';
import { SortedSet } from './zset.js';

// Large dirty collections are written back in slices over event-loop turns,
// their key held meanwhile. Every test runs one slice a turn (sliceMs: 0),
// so "several turns" holds however fast the machine encodes.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-sliced-wb-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const k = (s: string) => Buffer.from(s);
const N = 200_000;
const TYPES = [
  ['hash', RecordType.HASH],
  ['set', RecordType.SET],
  ['sorted set', RecordType.ZSET],
  ['list', RecordType.LIST],
] as const;

const big = (type: number, n = N) => bigCollection(type, n);

/** One more member (a one-member write to the structure). */
function change(v: CollectionValue, i: number): void {
  if (v instanceof HashValue) v.set(`new:${i}`, `v${i}`);
  else if (v instanceof SetValue) v.add(`new:${i}`);
  else if (v instanceof SortedSet) v.add(`new:${i}`, -i);
  else if (v instanceof List) v.pushBack(`new:${i}`);
}

const openStore = () => Store.open({ dir, memory: 64 << 20, pageSize: 1 << 20, indexBuckets: 64 });

async function lookup(cs: CollectionStore, key: string, type: number): Promise<CollectionLookup> {
  return await (cs.get(k(key), type) as MaybePending<CollectionLookup>);
}

/** The record at `key` as the log has it: its type and value bytes (a copy), or null. */
async function readRecord(
  store: Store,
  key: string,
): Promise<{ type: number; bytes: Buffer } | null> {
  const r = store.read(k(key));
  if (r.status === 'notFound') return null;
  if (r.status === 'found') {
    return { type: r.type, bytes: Buffer.from(r.bytes.subarray(r.offset, r.offset + r.length)) };
  }
  const p = await r.pending;
  if (p.status === 'notFound') return null;
  return { type: p.type, bytes: Buffer.from(p.value) };
}

/** Counts event-loop turns (setImmediate) until stopped. */
function turnCounter(): { stop: () => number } {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      on = false;
      return turns;
    },
  };
}

/** A big dirty collection at `big` in a cache whose budget holds it. */
async function setup(type: number) {
  const store = await openStore();
  const cs = new CollectionStore(store, { budgetBytes: 1 << 30, sliceMs: 0 });
  const value = big(type);
  await cs.create(k('big'), value);
  change(value, 0);
  cs.changed(k('big'), value);
  return { store, cs, value };
}

describe('CollectionStore: large write-backs run in slices', () => {
  for (const [name, type] of TYPES) {
    it(`a ${name} is written back over several turns; lookups wait and see it; the record reads back equal`, async () => {
      const { store, cs, value } = await setup(type);
      const turns = turnCounter();
      const written = cs.writeBack(k('big'));
      expect(written).toBeInstanceOf(Promise);
      // Held while it encodes: the lookup waits.
      const during = cs.get(k('big'), type);
      expect(during).toBeInstanceOf(Promise);
      const [, found] = await Promise.all([written, during]);
      const n = turns.stop();
      expect(n).toBeGreaterThan(20); // ~400 slices of 512 members, one a turn
      expect((found as CollectionLookup).status).toBe('found');
      if ((found as CollectionLookup).status === 'found') {
        expect((found as { value: CollectionValue }).value).toBe(value);
      }
      expect(cs.stats().dirty).toBe(0);
      // Released: the next lookup is synchronous.
      expect(cs.get(k('big'), type)).not.toBeInstanceOf(Promise);
      const expected = value.encode();
      cs.dispose();
      await store.close();

      const again = await openStore();
      const cs2 = new CollectionStore(again, { budgetBytes: 1 << 30 });
      const r = await lookup(cs2, 'big', type);
      expect(r.status).toBe('found');
      if (r.status === 'found') {
        expect(r.value.size).toBe(N + 1);
        expect(r.value.encode().equals(expected)).toBe(true);
      }
      cs2.dispose();
      await again.close();
    }, 60_000);
  }

  it('a sliced encode equals the whole-step one for every type', () => {
    for (const [, type] of TYPES) {
      const v = big(type, 5000);
      const job = v.encodeSliced();
      let slices = 0;
      let r = job.next();
      while (!r.done) {
        slices++;
        r = job.next();
      }
      expect(slices).toBeGreaterThan(3);
      expect(r.value.equals(v.encode())).toBe(true);
    }
  });

  it('a key replaced by a string while it encodes is not overwritten; waiters see the string', async () => {
    const { store, cs } = await setup(RecordType.ZSET);
    const written = cs.writeBack(k('big'));
    const waiting = cs.get(k('big'), RecordType.ZSET) as Promise<CollectionLookup>;
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // SET big str, at the record level, mid-encode.
    const w = store.upsert(k('big'), Buffer.from('str'));
    if (w.status === 'pending') await w.pending;
    cs.invalidate(k('big'));
    expect(await waiting).toEqual({ status: 'wrongType', type: 0 });
    await written;
    await cs.flushPending();
    expect(await readRecord(store, 'big')).toEqual({ type: 0, bytes: Buffer.from('str') });
    await store.close();
  }, 60_000);

  it('a key deleted, re-expired into the past or flushed while it encodes is not written over', async () => {
    for (const how of ['delete', 'expire', 'flush'] as const) {
      dir = await mkdtemp(join(tmpdir(), 'strata-sliced-wb-'));
      const { store, cs } = await setup(RecordType.HASH);
      const written = cs.writeBack(k('big'));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      // DEL / EXPIRE in the past / FLUSHDB at the record level, mid-encode ...
      const r = store.remove(k('big'));
      if (r.status === 'pending') await r.pending;
      if (how === 'delete') cs.invalidate(k('big'));
      else if (how === 'expire') cs.expiryChanged(k('big'), Date.now() - 1);
      else cs.clear();
      // ... and the key made again: as a set (SADD), or a string (SET).
      const s = SetValue.empty();
      s.add('x');
      if (how === 'delete') await cs.create(k('big'), s);
      else {
        const w = store.upsert(k('big'), Buffer.from('str'));
        if (w.status === 'pending') await w.pending;
      }
      await written;
      await cs.flushPending();
      const got = await readRecord(store, 'big');
      expect(got).toEqual(
        how === 'delete'
          ? { type: RecordType.SET, bytes: s.encode() }
          : { type: 0, bytes: Buffer.from('str') },
      );
      if (how === 'delete') expect(cs.peek(k('big'))).toBe(s);
      cs.dispose();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a change made in the turn its write-back starts is written, not torn', async () => {
    const { store, cs, value } = await setup(RecordType.SET);
    const written = cs.writeBack(k('big'));
    // A command that looked the set up before the hold changes it in this turn.
    change(value, 1);
    cs.changed(k('big'), value);
    await written;
    expect(cs.stats().dirty).toBe(1);
    await cs.flush();
    const expected = value.encode();
    cs.dispose();
    await store.close();
    const again = await openStore();
    const cs2 = new CollectionStore(again, { budgetBytes: 1 << 30 });
    const r = await lookup(cs2, 'big', RecordType.SET);
    if (r.status !== 'found') throw new Error(r.status);
    expect(r.value.encode().equals(expected)).toBe(true);
    cs2.dispose();
    await again.close();
  }, 60_000);

  it('an evicted large entry is written in slices; its lookup waits, then loads the change', async () => {
    const store = await openStore();
    const cs = new CollectionStore(store, { budgetBytes: 1 << 20, sliceMs: 0 });
    const value = big(RecordType.HASH);
    await cs.create(k('big'), value);
    change(value, 7);
    cs.changed(k('big'), value);
    // Another key used: the big one is evicted, dirty, so written back.
    await cs.create(k('small'), HashValue.empty());
    const r = cs.get(k('big'), RecordType.HASH);
    expect(r).toBeInstanceOf(Promise);
    const found = await (r as Promise<CollectionLookup>);
    if (found.status !== 'found') throw new Error(found.status);
    expect((found.value as HashValue).get('new:7')).toBe('v7');
    expect(found.value.size).toBe(N + 1);
    await store.close();
  }, 60_000);

  for (const [name, type] of [
    ['sorted set', RecordType.ZSET],
    ['list', RecordType.LIST],
  ] as const) {
    it(`a checkpoint under constant writes to a large ${name} completes and holds a prefix of them`, async () => {
      const { store, cs, value } = await setup(type);
      let writes = 0;
      let running = true;
      const writer = (async () => {
        while (running) {
          const r = await lookup(cs, 'big', type);
          if (r.status !== 'found') throw new Error(r.status);
          writes++;
          change(r.value, writes);
          cs.changed(k('big'), r.value);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      // Two checkpoints back to back while the writer never stops.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const before = writes;
      await store.checkpoint();
      const duringFirst = writes;
      await store.checkpoint();
      running = false;
      await writer;
      expect(duringFirst).toBeGreaterThan(before);
      expect(writes).toBeGreaterThan(duringFirst);
      await store.abandon();

      const again = await openStore();
      const cs2 = new CollectionStore(again, { budgetBytes: 1 << 30 });
      const r = await lookup(cs2, 'big', type);
      if (r.status !== 'found') throw new Error(r.status);
      // Every change up to some write, none after: a consistent snapshot
      // holding at least what was acknowledged before the second checkpoint began.
      const got = r.value.size - N - 1;
      expect(got).toBeGreaterThanOrEqual(duringFirst);
      expect(got).toBeLessThanOrEqual(writes);
      const model = big(type);
      for (let i = 0; i <= got; i++) change(model, i);
      expect(r.value.encode().equals(model.encode())).toBe(true);
      expect(value.size).toBe(N + 1 + writes);
      cs2.dispose();
      await again.close();
    }, 120_000);
  }

  it('a hook call with nothing left but no mark after it (the log could not seal yet) keeps the key held', async () => {
    const { store, cs, value } = await setup(RecordType.HASH);
    // The hook called by hand, as hlog calls it: no fold-over mark follows.
    const first = cs.beforeCheckpoint();
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(cs.beforeCheckpoint()).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    // Still held: a write now would be missing from the checkpoint that
    // retries its seal, and re-dirty the key for another encode.
    const waiting = cs.get(k('big'), RecordType.HASH);
    expect(waiting).toBeInstanceOf(Promise);
    expect(cs.beforeCheckpoint()).toBeUndefined();
    expect(cs.stats().writeBacks).toBe(1);
    // The next real checkpoint marks: the hold ends, the lookup goes on.
    await store.checkpoint();
    const r = await (waiting as Promise<CollectionLookup>);
    expect(r.status === 'found' && r.value === value).toBe(true);
    expect(cs.stats().writeBacks).toBe(1);
    await store.close();
  }, 60_000);
});
