import type { ReadResult } from '@strata/hlog';
import { afterEach, describe, expect, it } from 'vitest';
import { collidingPairs, k, openTiny, removeTempDirs, rng } from '../test/support.js';
import { multiGet } from './multi-get.js';

afterEach(removeTempDirs);

function show(r: ReadResult): string {
  return r.status === 'found' ? `found:${r.value.toString('hex')}:${r.expiresAt}` : 'notFound';
}

describe('multiGet', () => {
  it('gives the results of one get per key (memory, disk, deleted, expired, blobs, chains)', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const store = await openTiny({ clock });
    const rand = rng(3);
    const pairs = collidingPairs(8).flat();
    const names: string[] = [...pairs];
    for (const key of pairs) await store.set(k(key), k(`pair-${key}`));
    for (let i = 0; i < 700; i++) {
      const key = `g:${Math.floor(rand() * 300)}`;
      names.push(key);
      const r = rand();
      if (r < 0.1) await store.delete(k(key));
      else if (r < 0.2)
        await store.set(k(key), k(`t${i}`), { ttlMs: 1 + Math.floor(rand() * 300) });
      else if (r < 0.23) await store.set(k(key), Buffer.alloc(500 + i, 3));
      else await store.set(k(key), k(`v${i}${'-'.repeat(i % 30)}`));
      now++;
    }
    now += 150;
    names.push('missing:1', 'missing:2');
    const keys = [...new Set(names)].map(k);
    const { results, pageReads, fallbacks } = await multiGet(store, keys, { clock });
    const expected: string[] = [];
    for (const key of keys) expected.push(show(await store.get(key)));
    expect(results.map(show)).toEqual(expected);
    expect(pageReads).toBeGreaterThan(0);
    expect(pageReads).toBeLessThan(keys.length);
    expect(fallbacks).toBeLessThan(keys.length / 4);
    await store.close();
  });

  it('reads each device page once for the keys in it', async () => {
    const store = await openTiny({ indexBuckets: 1 << 12 });
    for (let i = 0; i < 1200; i++) await store.set(k(`c:${i}`), k(`value-${i}`));
    // 100 keys written together: a handful of pages, long evicted.
    const clustered = Array.from({ length: 100 }, (_, i) => k(`c:${200 + i}`));
    const reads0 = store.stats().device.reads;
    const a = await multiGet(store, clustered);
    expect(a.results.every((r) => r.status === 'found')).toBe(true);
    expect(a.pageReads).toBeLessThanOrEqual(8);
    // The device saw exactly those reads (one get per key would make 100).
    expect(store.stats().device.reads - reads0).toBe(a.pageReads);
    const scattered = Array.from({ length: 100 }, (_, i) => k(`c:${(i * 37) % 900}`));
    const b = await multiGet(store, scattered);
    expect(b.results.map((r) => (r.status === 'found' ? r.value.toString() : ''))).toEqual(
      scattered.map((key) => `value-${key.toString().slice(2)}`),
    );
    expect(b.pageReads).toBeLessThan(100);
    await store.close();
  });

  it('reads about the records, not whole pages, for keys far apart', async () => {
    // 16 KiB pages: a whole-page read per key would be ~16 KiB, a record ~140 bytes.
    const store = await openTiny({
      pageSize: 16384,
      memory: 65536,
      segmentSize: 1 << 20,
      indexBuckets: 1 << 14,
    });
    const value = (i: number): Buffer => Buffer.from(`value-${i}-${'x'.repeat(100)}`);
    for (let i = 0; i < 4000; i++) await store.set(k(`s:${i}`), value(i));
    // 20 keys ~21 KB apart (150 records of ~140 bytes), long evicted.
    const scattered = Array.from({ length: 20 }, (_, i) => k(`s:${i * 150}`));
    let single = store.stats().device;
    for (const key of scattered) await store.get(key);
    const singleBytes = store.stats().device.bytesRead - single.bytesRead;
    const before = store.stats().device;
    const r = await multiGet(store, scattered, { maxGap: 1024 });
    const after = store.stats().device;
    expect(r.results.map((v) => (v.status === 'found' ? v.value.toString() : ''))).toEqual(
      Array.from({ length: 20 }, (_, i) => value(i * 150).toString()),
    );
    expect(r.fallbacks).toBe(0);
    // One read per key (its own range), each about a record: no more than
    // the single gets read, far below 20 pages.
    expect(after.reads - before.reads).toBe(r.pageReads);
    expect(r.pageReads).toBe(20);
    expect(after.bytesRead - before.bytesRead).toBe(r.bytesRead);
    expect(r.bytesRead).toBeLessThanOrEqual(singleBytes);
    expect(r.bytesRead).toBeLessThanOrEqual(20 * 512);
    // Records larger than the first read: one follow-up read each, values intact.
    const big = (i: number): Buffer => Buffer.alloc(3000, i % 251);
    for (let i = 0; i < 10; i++) {
      await store.set(k(`big:${i}`), big(i));
      for (let j = 0; j < 150; j++) await store.set(k(`f:${i}:${j}`), value(j));
    }
    single = store.stats().device;
    const bigKeys = Array.from({ length: 10 }, (_, i) => k(`big:${i}`));
    const b = await multiGet(store, bigKeys, { maxGap: 1024 });
    for (let i = 0; i < 10; i++) {
      const v = b.results[i]!;
      expect(v.status === 'found' && v.value.equals(big(i))).toBe(true);
    }
    expect(b.fallbacks).toBe(0);
    expect(b.pageReads).toBeLessThanOrEqual(20);
    expect(store.stats().device.bytesRead - single.bytesRead).toBeLessThanOrEqual(
      10 * (512 + 3100),
    );
    await store.close();
  });

  it('reads a cluster of keys in one device read of their bytes', async () => {
    const store = await openTiny({
      pageSize: 16384,
      memory: 65536,
      segmentSize: 1 << 20,
      indexBuckets: 1 << 14,
    });
    for (let i = 0; i < 4000; i++) await store.set(k(`c:${i}`), k(`value-${i}`));
    // 100 keys written one after the other: contiguous records over a page or two.
    const clustered = Array.from({ length: 100 }, (_, i) => k(`c:${500 + i}`));
    const before = store.stats().device;
    const r = await multiGet(store, clustered);
    const after = store.stats().device;
    expect(r.results.map((v) => (v.status === 'found' ? v.value.toString() : ''))).toEqual(
      clustered.map((key) => `value-${key.toString().slice(2)}`),
    );
    expect(r.pageReads).toBe(1);
    expect(after.reads - before.reads).toBe(1);
    // The records' bytes (~40 each) plus at most a record's worth and a page tail.
    expect(after.bytesRead - before.bytesRead).toBeLessThan(100 * 48 + 2048);
    // With no gap allowed, still one read per contiguous range (pages abut).
    const reads0 = store.stats().device.reads;
    const z = await multiGet(store, clustered, { maxGap: 0 });
    expect(store.stats().device.reads - reads0).toBe(z.pageReads);
    expect(z.pageReads).toBeLessThanOrEqual(2);
    await store.close();
  });

  it('a write racing the batch is never lost', async () => {
    const store = await openTiny();
    for (let i = 0; i < 600; i++) await store.set(k(`r:${i}`), k(`old-${i}`));
    const keys = Array.from({ length: 50 }, (_, i) => k(`r:${i}`));
    const pending = multiGet(store, keys);
    for (let i = 0; i < 50; i += 2) await store.set(k(`r:${i}`), k(`new-${i}`));
    const { results } = await pending;
    for (let i = 0; i < 50; i++) {
      const r = results[i]!;
      expect(r.status).toBe('found');
      const v = r.status === 'found' ? r.value.toString() : '';
      expect(i % 2 === 0 ? [`old-${i}`, `new-${i}`] : [`old-${i}`]).toContain(v);
    }
    await store.close();
  });
});
