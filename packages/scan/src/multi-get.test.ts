import type { ReadResult } from '@strata/hlog';
import { afterEach, describe, expect, it } from 'vitest';
import { multiGet } from './multi-get.js';
import { collidingPairs, k, openTiny, removeTempDirs, rng } from './test-support.js';

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
