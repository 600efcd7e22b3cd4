import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Prng } from '@strata/io';
import { afterAll, describe, expect, it } from 'vitest';
import { rebuildThreadsUnderTest } from '../test/rebuild-threads.js';
import { Store, type StoreOptions } from './hlog-store.js';

/**
 * After a whole-log rebuild (no checkpoint) the plain keys are recounted in
 * the background: open returns with the index rebuilt, and writes made
 * while the recount runs (blind overwrites, deletes, expiry changes of keys
 * only on the device, new keys) still leave the count exact.
 */

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('recovery by whole-log rebuild', () => {
  it('recounts the plain keys in the background, exact with writes made meanwhile', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hlog-recover-'));
    dirs.push(dir);
    const now = 1_000_000;
    const options: StoreOptions = {
      dir,
      memory: 8192,
      pageSize: 1024,
      segmentSize: 1 << 16,
      checkpoints: null,
      ...rebuildThreadsUnderTest(),
      expiry: false,
      clock: () => now,
    };
    const rng = new Prng(5);
    const int = (n: number): number => Math.floor(rng.next() * n);
    const key = (i: number) => Buffer.from(`key:${i}`);
    // The model: key -> expiresAt (0: none); absent keys are not in it.
    const model = new Map<number, number>();
    let store = await Store.open(options);
    const N = 3000;
    for (let i = 0; i < N; i++) {
      const r = int(10);
      if (r < 6) {
        await store.set(key(i), Buffer.from(`v${i}`));
        model.set(i, 0);
      } else if (r < 8) {
        await store.set(key(i), Buffer.from(`t${i}`), { ttlMs: 1000 + int(1000) });
        model.set(i, 1);
      } else if (r < 9) {
        // Expired by the time of the count.
        await store.set(key(i), Buffer.from(`x${i}`), { ttlMs: 1000 });
        await store.set(key(i), Buffer.from(`p${i}`));
        model.set(i, 0);
      }
    }
    // Overwrite and delete some keys again, later in the log.
    for (let i = 0; i < N; i += 7) {
      if (model.has(i) && int(2) === 0) {
        await store.delete(key(i));
        model.delete(i);
      } else {
        await store.set(key(i), Buffer.from('again'), int(2) === 0 ? { ttlMs: 5000 } : {});
        model.set(i, 1);
      }
    }
    await store.log.sealAndFlush();
    await store.abandon();

    store = await Store.open(options);
    expect(store.recovery.checkpoint).toBeNull();
    expect(store.recovery.count).toBe('recount');
    // The recount runs after open, in slices.
    expect(store.unresolvedCount).toBeGreaterThan(0);
    expect(store.approxCount()).toBeGreaterThanOrEqual(model.size);
    // Writes while it runs, over keys whose versions are only on the device.
    const ops: Promise<unknown>[] = [];
    for (let round = 0; round < 6; round++) {
      // Distinct keys in flight at once: the model knows their order.
      const batch = new Set<number>();
      while (batch.size < 60) batch.add(int(N + 200));
      for (const i of batch) {
        const r = int(5);
        if (r === 0) {
          ops.push(store.set(key(i), Buffer.from('blind')));
          model.set(i, 0);
        } else if (r === 1) {
          ops.push(store.delete(key(i)));
          model.delete(i);
        } else if (r === 2) {
          ops.push(store.set(key(i), Buffer.from('ttl'), { ttlMs: 3000 }));
          model.set(i, 1);
        } else if (r === 3) {
          ops.push(store.persist(key(i)));
        } else {
          ops.push(store.expire(key(i), 4000));
        }
      }
      await Promise.all(ops);
      await turn();
    }
    // Every key of the model is live (nothing has passed its expiry yet).
    expect(await store.exactCount()).toBe(model.size);
    expect(store.unresolvedCount).toBe(0);
    for (let i = 0; i < N + 200; i += 97) {
      const r = await store.get(key(i));
      expect(r.status).toBe(model.has(i) ? 'found' : 'notFound');
    }
    await store.close();
  }, 60_000);

  it('an abandoned store stops its background recount', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hlog-recover-'));
    dirs.push(dir);
    const options: StoreOptions = {
      dir,
      memory: 8192,
      pageSize: 1024,
      checkpoints: null,
      ...rebuildThreadsUnderTest(),
      expiry: false,
    };
    let store = await Store.open(options);
    for (let i = 0; i < 2000; i++) await store.set(Buffer.from(`k${i}`), Buffer.from('v'));
    await store.log.sealAndFlush();
    await store.abandon();
    store = await Store.open(options);
    expect(store.unresolvedCount).toBeGreaterThan(0);
    await store.abandon();
    store = await Store.open(options);
    expect(await store.exactCount()).toBe(2000);
    await store.close();
  });
});
