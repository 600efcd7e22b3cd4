import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store, type StoreOptions } from './hlog-store.js';

const k = (s: string) => Buffer.from(s);
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'hlog-hooks-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const small: Partial<StoreOptions> = {
  memory: 8192,
  pageSize: 1024,
  segmentSize: 4096,
  indexBuckets: 16,
  expiry: false,
};

/** A write-back cache in miniature: dirty entries are upserted by the hook. */
function cacheOn(store: Store): { dirty: Map<string, string>; calls: number[] } {
  const dirty = new Map<string, string>();
  const calls: number[] = [];
  store.onBeforeCheckpoint(() => {
    calls.push(dirty.size);
    for (const [key, value] of dirty) store.upsert(k(key), k(value));
    dirty.clear();
  });
  return { dirty, calls };
}

async function stored(store: Store, key: string): Promise<string | null> {
  const r = await store.get(k(key));
  return r.status === 'found' ? r.value.toString() : null;
}

describe('onBeforeCheckpoint', () => {
  it("a hook's writes are in the checkpoint: they survive a crash right after it", async () => {
    const dir = await tempDir();
    const s1 = await Store.open({ dir, ...small });
    for (let i = 0; i < 100; i++) await s1.set(k(`k${i}`), k(`v${i}`));
    const cache = cacheOn(s1);
    cache.dirty.set('cached', 'written-back');
    cache.dirty.set('k3', 'changed');
    await s1.checkpoint();
    expect(cache.calls[0]).toBe(2);
    await s1.abandon();

    const s2 = await Store.open({ dir, ...small });
    expect(s2.recovery.checkpoint).toBe(1);
    expect(await stored(s2, 'cached')).toBe('written-back');
    expect(await stored(s2, 'k3')).toBe('changed');
    expect(await stored(s2, 'k4')).toBe('v4');
    expect(await s2.exactCount()).toBe(101);
    await s2.close();
  });

  it('waits for hook writes that went pending (no free frame) before its mark', async () => {
    const dir = await tempDir();
    const s1 = await Store.open({ dir, ...small });
    const cache = cacheOn(s1);
    // Written in one synchronous hook call, ~40 pages do not fit a ring of
    // 8 frames that cannot flush meanwhile: later upserts go pending.
    for (let i = 0; i < 200; i++) cache.dirty.set(`big${i}`, `${i}:${'x'.repeat(180)}`);
    const before = s1.stats().ops.pending ?? 0;
    await s1.checkpoint();
    expect((s1.stats().ops.pending ?? 0) - before).toBeGreaterThan(0);
    // Called again after the pending writes settled, with nothing left.
    expect(cache.calls[0]).toBe(200);
    expect(cache.calls.slice(1).every((n) => n === 0)).toBe(true);
    await s1.abandon();

    const s2 = await Store.open({ dir, ...small });
    expect(s2.recovery.checkpoint).toBe(1);
    for (let i = 0; i < 200; i++)
      expect(await stored(s2, `big${i}`)).toBe(`${i}:${'x'.repeat(180)}`);
    await s2.close();
  });

  it('runs on close and on the checkpoint compaction takes; unsubscribe stops it', async () => {
    const dir = await tempDir();
    const s1 = await Store.open({ dir, ...small, memory: 4096 });
    for (let round = 0; round < 10; round++) {
      // Values that grow each round: every overwrite copies to the tail.
      for (let i = 0; i < 60; i++)
        await s1.set(k(`k${i}`), k(`r${round}-${i}-${'.'.repeat(round * 4)}`));
    }
    const cache = cacheOn(s1);
    cache.dirty.set('from-compaction', 'yes');
    const result = await s1.compact();
    expect(result.bytesFreed).toBeGreaterThan(0);
    expect(cache.calls.length).toBeGreaterThan(0);
    expect(cache.calls[0]).toBe(1);
    await s1.abandon();

    const s2 = await Store.open({ dir, ...small });
    expect(await stored(s2, 'from-compaction')).toBe('yes');
    const cache2 = cacheOn(s2);
    cache2.dirty.set('on-close', 'yes');
    let other = 0;
    const off = s2.onBeforeCheckpoint(() => other++);
    off();
    await s2.close();
    expect(cache2.calls).toEqual([1]);
    expect(other).toBe(0);

    const s3 = await Store.open({ dir, ...small });
    expect(await stored(s3, 'on-close')).toBe('yes');
    expect(await stored(s3, 'k7')).toBe(`r9-7-${'.'.repeat(36)}`);
    await s3.close();
  });

  it('a hook that throws fails the checkpoint', async () => {
    const dir = await tempDir();
    const s1 = await Store.open({ dir, ...small });
    const off = s1.onBeforeCheckpoint(() => {
      throw new Error('cache broken');
    });
    await expect(s1.checkpoint()).rejects.toThrow('cache broken');
    off();
    expect(await s1.checkpoint()).toBeGreaterThan(0);
    await s1.close();
  });

  it('runs afterFoldOver once per fold-over, in the step right after the mark, and when it fails', async () => {
    const dir = await tempDir();
    const s1 = await Store.open({ dir, ...small });
    const events: string[] = [];
    let fail = false;
    let tailAtHook = 0;
    const off = s1.onBeforeCheckpoint(
      () => {
        events.push('before');
        tailAtHook = s1.stats().log.tail;
        if (fail) throw new Error('cache broken');
      },
      () => {
        // The mark was taken: the seal made everything the hook saw read-only.
        events.push(s1.stats().log.readOnly >= tailAtHook ? 'after-mark' : 'after');
      },
    );
    await s1.set(k('a'), k('1'));
    const run = s1.checkpoint();
    await run;
    expect(events).toEqual(['before', 'after-mark']);
    events.length = 0;
    fail = true;
    await expect(s1.checkpoint()).rejects.toThrow('cache broken');
    expect(events).toEqual(['before', 'after']);
    off();
    await s1.close();
  });
});
