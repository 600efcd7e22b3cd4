import { open, readdir, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryDevice } from '@strata/io';
import { afterAll, describe, expect, it } from 'vitest';
import { fill, removeStoreDirs, smallStoreOptions, value } from '../test/consistent-store.js';
import { rebuildThreadsUnderTest } from '../test/rebuild-threads.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { Store, type StoreOptions } from './hlog-store.js';

/**
 * `consistentRecovery`: a restart after a crash recovers one moment, the
 * newest checkpoint or a clean close after it, never the tail a crash left
 * (pages that reached the device as they left memory). The tail is kept,
 * not replayed, and put behind a checkpoint taken at open.
 */

afterAll(removeStoreDirs);

async function options(consistent: boolean): Promise<StoreOptions> {
  return {
    ...(await smallStoreOptions('hlog-consistent-', consistent)),
    ...rebuildThreadsUnderTest(),
  };
}

/** a:0..9 checkpointed, then b:0..299 written and on the device, then a crash. */
async function checkpointThenCrash(o: StoreOptions): Promise<void> {
  const store = await Store.open(o);
  await fill(store, 'a', 10, 'old');
  await store.checkpoint();
  await fill(store, 'b', 300, 'tail');
  await store.log.sealAndFlush();
  await store.abandon();
}

describe('consistentRecovery', () => {
  it('recovers the checkpoint, not the tail a crash left; the tail is kept and put behind a checkpoint', async () => {
    const o = await options(true);
    let store = await Store.open(o);
    await fill(store, 'a', 100, 'old');
    await store.checkpoint();
    await fill(store, 'a', 50, 'new');
    await fill(store, 'b', 300, 'tail');
    // Every page of the tail on the device, as a crash long after the writes finds it.
    await store.log.sealAndFlush();
    const end = store.log.tail;
    await store.abandon();

    store = await Store.open(o);
    expect(store.recovery.unreplayedBytes).toBeGreaterThan(0);
    expect(await value(store, 'a:0')).toBe('old');
    expect(await value(store, 'a:99')).toBe('old');
    expect(await value(store, 'b:0')).toBeNull();
    expect(await store.exactCount()).toBe(100);
    // Nothing of the tail is overwritten: the new log starts after it.
    expect(store.log.tail).toBeGreaterThanOrEqual(end);
    const seq = store.recovery.checkpoint!;
    // Open checkpointed: the next recovery starts after the unreplayed tail.
    expect(await readdir(o.dir!)).toContain(`checkpoint.${seq + 1}.meta`);

    // A clean close (no checkpoint) is one moment: replayed, the old tail still not.
    await fill(store, 'c', 20, 'after');
    await store.close();
    store = await Store.open(o);
    expect(store.recovery.checkpoint).toBe(seq + 1);
    expect(store.recovery.unreplayedBytes).toBe(0);
    expect(await value(store, 'c:19')).toBe('after');
    expect(await value(store, 'a:0')).toBe('old');
    expect(await value(store, 'b:299')).toBeNull();
    expect(await store.exactCount()).toBe(120);
    await store.close();
  });

  it('a new store records its empty start: a crash before its first checkpoint recovers it empty', async () => {
    const o = await options(true);
    let store = await Store.open(o);
    expect(await readdir(o.dir!)).toContain('clean-close');
    await fill(store, 'k', 300, 'v');
    await store.log.sealAndFlush();
    await store.abandon();
    store = await Store.open(o);
    expect(store.recovery.checkpoint).toBeNull();
    expect(store.recovery.unreplayedBytes).toBeGreaterThan(0);
    expect(await value(store, 'k:0')).toBeNull();
    expect(await store.exactCount()).toBe(0);
    // The unreplayed tail is put behind a checkpoint, which supersedes the clean close.
    expect(await readdir(o.dir!)).toContain('checkpoint.1.meta');
    expect(await readdir(o.dir!)).not.toContain('clean-close');
    await fill(store, 'n', 5, 'v');
    await store.close();
    store = await Store.open(o);
    expect(await value(store, 'n:4')).toBe('v');
    expect(await value(store, 'k:0')).toBeNull();
    expect(await store.exactCount()).toBe(5);
    await store.close();
  });

  it('when the checkpoint after recovery fails, the store serves, and no clean close spans the unreplayed tail', async () => {
    const checkpoints = new MemoryCheckpointStore();
    const warnings: string[] = [];
    const o: StoreOptions = {
      device: new MemoryDevice(),
      checkpoints,
      memory: 8192,
      pageSize: 1024,
      expiry: false,
      checkpointOnClose: false,
      consistentRecovery: true,
      ...rebuildThreadsUnderTest(),
      logger: { warn: (m) => warnings.push(m) },
    };
    await checkpointThenCrash(o);

    checkpoints.failNextWrite = true;
    let store = await Store.open(o);
    expect(warnings.some((w) => w.startsWith('the checkpoint after recovery failed'))).toBe(true);
    expect(await value(store, 'a:9')).toBe('old');
    expect(await value(store, 'b:0')).toBeNull();
    await fill(store, 'c', 5, 'new');
    await store.close();
    expect(await checkpoints.readCleanClose()).toBeNull();

    // The same moment again: c was written after the gap, b stays out.
    store = await Store.open(o);
    expect(await value(store, 'b:0')).toBeNull();
    expect(await value(store, 'c:0')).toBeNull();
    expect(await store.exactCount()).toBe(10);
    await store.close();
  });

  it('a log cut short before a clean close is reported, with how much is missing', async () => {
    const o = await options(true);
    const warnings: string[] = [];
    o.logger = { warn: (m) => warnings.push(m) };
    let store = await Store.open(o);
    await fill(store, 'a', 300, 'v');
    // SHUTDOWN NOSAVE: no checkpoint, a clean close records where the log is durable.
    await store.close();
    const files = (await readdir(o.dir!)).filter((f) => /^log\.\d+$/.test(f)).sort();
    const last = join(o.dir!, files[files.length - 1]!);
    const size = (await stat(last)).size;
    await truncate(last, Math.floor(size / 2));
    store = await Store.open(o);
    const cut = warnings.find((w) => w.includes('bytes of it are missing'));
    expect(cut, warnings.join('\n')).toMatch(
      /the log ends at \d+, before \d+, where the last clean close left it durable: \d+ bytes/,
    );
    await store.close();
  });

  it('a damaged page below a clean close is skipped, not cut: the records after it are kept', async () => {
    const o = await options(true);
    const warnings: string[] = [];
    o.logger = { warn: (m) => warnings.push(m) };
    let store = await Store.open(o);
    await fill(store, 'a', 300, 'v');
    const end = store.log.tail;
    await store.close();
    // Zeros over one page a few pages before the end: too close to the end
    // to pass for mid-log damage by itself, but below the clean close.
    const page = 1024;
    const at = (Math.floor(end / page) - 3) * page;
    const seg = 1 << 16;
    const f = await open(join(o.dir!, `log.${Math.floor(at / seg)}`), 'r+');
    await f.write(Buffer.alloc(page), 0, page, at % seg);
    await f.close();
    store = await Store.open(o);
    expect(warnings.join('\n')).toContain('skipped 1 damaged page');
    // The last keys, written after the damaged page, are all there.
    for (let i = 290; i < 300; i++) expect(await value(store, `a:${i}`)).toBe('v');
    await store.close();
  });

  /** Zeros the page at `at` in the test's 64 KiB segment files. */
  async function zeroPage(dir: string, at: number): Promise<void> {
    const page = 1024;
    const seg = 1 << 16;
    const f = await open(join(dir, `log.${Math.floor(at / seg)}`), 'r+');
    await f.write(Buffer.alloc(page), 0, page, at % seg);
    await f.close();
  }

  it('a recount after damage passes over a crash tail left unreplayed below a later checkpoint: it holds no keys', async () => {
    const o = await options(true);
    const warnings: string[] = [];
    o.logger = { warn: (m) => warnings.push(m) };
    // a:0..9 checkpointed, b:0..299 a crash tail; the open puts it behind a checkpoint.
    await checkpointThenCrash(o);
    let store = await Store.open(o);
    expect(store.recovery.unreplayedBytes).toBeGreaterThan(0);
    const from = store.log.tail;
    await fill(store, 'c', 200, 'after');
    const end = store.log.tail;
    // A clean close: the log after that checkpoint is replayed at the next open.
    await store.close();
    // One page in the middle of c's records: skipped, and the count recounted from the log.
    await zeroPage(o.dir!, Math.floor((from + end) / 2 / 1024) * 1024);
    store = await Store.open(o);
    expect(warnings.join('\n')).toContain('skipped 1 damaged page');
    expect(store.recovery.count).toBe('recount');
    let found = 0;
    for (let i = 0; i < 200; i++) if ((await value(store, `c:${i}`)) === 'after') found++;
    expect(found).toBeGreaterThan(150);
    expect(await value(store, 'b:0')).toBeNull();
    // a:0..9 and the c keys that read: never the unreplayed b keys (300 too many before).
    expect(await store.exactCount()).toBe(10 + found);
    await store.close();
  });

  it('damage past the recovered moment (in a crash tail not replayed) leaves the count from the checkpoint in use', async () => {
    const o = await options(true);
    const warnings: string[] = [];
    o.logger = { warn: (m) => warnings.push(m) };
    let store = await Store.open(o);
    await fill(store, 'a', 10, 'old');
    await store.checkpoint();
    const from = store.log.tail;
    await fill(store, 'b', 2000, 'tail');
    await store.log.sealAndFlush();
    await store.abandon();
    // Mid-log damage in the tail: many valid pages of the same session follow it.
    await zeroPage(o.dir!, Math.ceil(from / 1024) * 1024 + 4 * 1024);
    store = await Store.open(o);
    expect(warnings.join('\n')).toContain('skipped 1 damaged page');
    // No chain below the recovered moment runs through that page: no recount.
    expect(store.recovery.count).toBe('checkpoint');
    expect(await store.exactCount()).toBe(10);
    await store.close();
  });

  it('is off by default: every record that reached the device is replayed', async () => {
    const o = await options(false);
    await checkpointThenCrash(o);
    const store = await Store.open(o);
    expect(store.recovery.unreplayedBytes).toBe(0);
    expect(await value(store, 'b:299')).toBe('tail');
    await store.close();
  });
});
