import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store, type StoreOptions } from './hlog-store.js';
import { INTERNAL_KEY_PREFIX, internalKey, isInternalKey } from './internal-keys.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const b = (s: string) => Buffer.from(s, 'latin1');

async function storedValue(store: Store, key: Buffer): Promise<string | null> {
  const r = await store.get(key);
  return r.status === 'found' ? r.value.toString() : null;
}

describe('internal keys', () => {
  it('are the keys with the prefix, wherever they sit in a buffer', () => {
    const k = internalKey(b('block-1'));
    expect(k.subarray(0, INTERNAL_KEY_PREFIX.length)).toEqual(INTERNAL_KEY_PREFIX);
    expect(isInternalKey(k)).toBe(true);
    expect(isInternalKey(Buffer.concat([b('xx'), k]), 2, k.length)).toBe(true);
    expect(isInternalKey(INTERNAL_KEY_PREFIX)).toBe(true);
    expect(isInternalKey(INTERNAL_KEY_PREFIX.subarray(0, 8))).toBe(false);
    expect(isInternalKey(b('\xff\x00strata;x'))).toBe(false);
    expect(isInternalKey(b('strata:x'))).toBe(false);
    expect(isInternalKey(b(''))).toBe(false);
  });

  it('are stored and read like any key, but never counted: live, after a checkpoint, a replayed tail and a recount', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hlog-internal-'));
    dirs.push(dir);
    const options: StoreOptions = { dir, memory: 4096, pageSize: 1024, expiry: false };
    let store = await Store.open(options);
    for (let i = 0; i < 40; i++) {
      await store.set(b(`user:${i}`), b('v'.repeat(30)));
      await store.set(internalKey(b(`block:${i}`)), b('w'.repeat(30)));
    }
    expect(await store.exactCount()).toBe(40);
    await store.delete(internalKey(b('block:0')));
    await store.delete(b('user:0'));
    expect(await store.exactCount()).toBe(39);
    // On the device by now (4 KiB of memory), and read back whole.
    expect(await storedValue(store, internalKey(b('block:1')))).toBe('w'.repeat(30));
    await store.close();

    store = await Store.open(options);
    expect(store.recovery.count).toBe('checkpoint');
    expect(await store.exactCount()).toBe(39);
    // A tail after the checkpoint, replayed by the next open.
    await store.set(internalKey(b('block:new')), b('w'));
    await store.set(internalKey(b('block:1')), b('overwritten'));
    await store.set(b('user:new'), b('v'));
    await store.log.sealAndFlush();
    await store.abandon();

    store = await Store.open(options);
    expect(store.recovery.records).toBeGreaterThan(0);
    expect(await store.exactCount()).toBe(40);
    expect(await storedValue(store, internalKey(b('block:1')))).toBe('overwritten');
    await store.close();

    store = await Store.open({ ...options, rebuildIndex: true });
    expect(store.recovery.count).toBe('recount');
    expect(await store.exactCount()).toBe(40);
    await store.close();
  });
});
