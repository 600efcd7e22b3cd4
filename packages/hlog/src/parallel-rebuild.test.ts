import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Store, type StoreOptions } from './hlog-store.js';
import { hashKey } from './key-hash.js';
import { PAGE_HEADER_SIZE } from './page-header.js';
import { rebuildWorkerUrl, useRebuildWorker } from './parallel-rebuild.js';

/**
 * The parallel whole-log rebuild (a worker inserting most buckets while
 * this thread reads the log and inserts the rest) gives the one-thread
 * rebuild's index (the same entries, each pointing at the same record,
 * with the same access word, in the same geometry), its key count and its
 * report, on a log with overwrites, deletes, expiring keys, a damaged page
 * in the middle and a torn tail. The clock is fixed (Date only) so that
 * both rebuilds give new entries the same access word.
 */

const P = 1024;
const SEGMENT = 1 << 16;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
});

const NOW = 1_700_000_000_000;
const options = (dir: string, more: Partial<StoreOptions> = {}): StoreOptions => ({
  dir,
  memory: 16 * P,
  pageSize: P,
  segmentSize: SEGMENT,
  indexBuckets: 1024,
  checkpoints: null,
  expiry: false,
  clock: () => NOW,
  logger: { warn: () => {} },
  ...more,
});
const key = (i: number): Buffer => Buffer.from(`key:${i}`);

/** Flips a byte inside the records of the page at `address` (its checksum then fails). */
async function flipByte(dir: string, address: number): Promise<void> {
  const fh = await open(join(dir, `log.${Math.floor(address / SEGMENT)}`), 'r+');
  // Just past the page header: inside the first record, however full the page.
  const pos = (address % SEGMENT) + PAGE_HEADER_SIZE + 4;
  const b = Buffer.alloc(1);
  await fh.read(b, 0, 1, pos);
  b[0]! ^= 0x10;
  await fh.write(b, 0, 1, pos);
  await fh.close();
}

/** A log of overwrites, deletes and expiring keys, with a damaged page in the middle and a torn last page. */
async function damagedLog(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hlog-prebuild-'));
  dirs.push(dir);
  const store = await Store.open(options(dir));
  const N = 3000;
  for (let i = 0; i < N; i++) {
    const value = Buffer.from(`value-${i}-${'#'.repeat(i % 50)}`);
    if (i % 5 === 0) await store.set(key(i), value, { ttlMs: 3_600_000 });
    else await store.set(key(i), value);
  }
  for (let i = 0; i < N; i += 3) await store.set(key(i), Buffer.from(`again-${i}`));
  for (let i = 0; i < N; i += 7) await store.delete(key(i));
  for (let i = 1; i < N; i += 11) await store.set(key(i), Buffer.from(`last-${i}`));
  await store.log.sealAndFlush();
  const end = store.log.tail;
  await store.abandon();
  expect(end).toBeGreaterThan(40 * P);
  await flipByte(dir, Math.floor(end / P / 2) * P);
  // The last full page (the tail is in the page after it).
  await flipByte(dir, Math.floor(end / P) * P - P);
  return dir;
}

interface Rebuilt {
  /** Each key's entry: its address and access word (-1: none). */
  entries: Array<[number, number]>;
  /** Every entry's address, sorted. */
  addresses: number[];
  geometry: { entries: number; buckets: number; level: number };
  count: number;
  records: number;
  info: Omit<Store['recovery'], 'ms' | 'countMs'>;
  values: Array<string | null>;
}

async function rebuild(dir: string, more: Partial<StoreOptions>): Promise<Rebuilt> {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  const store = await Store.open(options(dir, more));
  vi.useRealTimers();
  try {
    const { ms: _ms, countMs: _countMs, ...info } = store.recovery;
    const index = store.index;
    const entries: Array<[number, number]> = [];
    for (let i = 0; i < 3000; i++) {
      const hash = hashKey(key(i));
      entries.push([index.find(hash), index.accessOf(hash)]);
    }
    const addresses: number[] = [];
    index.visitBuckets(0, index.buckets, (a) => addresses.push(a));
    addresses.sort((a, b) => a - b);
    const { entries: n, buckets, level } = index.stats();
    const values: Array<string | null> = [];
    for (let i = 0; i < 3000; i++) {
      const r = await store.get(key(i));
      values.push(r.status === 'found' ? r.value.toString() : null);
    }
    return {
      entries,
      addresses,
      geometry: { entries: n, buckets, level },
      count: await store.exactCount(),
      records: info.records,
      info,
      values,
    };
  } finally {
    await store.abandon();
  }
}

describe('parallel whole-log rebuild', () => {
  it('the worker script is found (tests bundle it from the sources)', () => {
    expect(rebuildWorkerUrl()).not.toBeNull();
  });

  // 1024 buckets: one chunk, all the worker's; 16384: this thread inserts a quarter.
  it.each([1024, 16384])(
    'gives the one-thread index, key count and report, after damage (%i buckets)',
    async (indexBuckets) => {
      const dir = await damagedLog();
      const one = await rebuild(dir, { rebuildThreads: 1, indexBuckets });
      const two = await rebuild(dir, { rebuildThreads: 2, indexBuckets });
      expect(one.info.rebuildThreads).toBe(1);
      expect(two.info.rebuildThreads).toBe(2);
      // The damage was seen: one page skipped, the torn tail cut.
      expect(one.info.skipped).toHaveLength(1);
      expect(one.info.cutAt).not.toBeNull();
      expect(two.info).toEqual({ ...one.info, rebuildThreads: 2 });
      expect(two.count).toBe(one.count);
      expect(two.values).toEqual(one.values);
      expect(two.geometry).toEqual(one.geometry);
      expect(two.entries).toEqual(one.entries);
      expect(two.addresses).toEqual(one.addresses);
      // Every entry has the word of the start of the rebuild.
      const words = new Set(one.entries.filter(([a]) => a > 0).map(([, word]) => word));
      expect(words.size).toBe(1);
      // Deletes are in (every 7th key, some set again after): keys are gone, others found.
      expect(one.values.filter((v) => v === null).length).toBeGreaterThan(300);
      expect(one.count).toBe(one.values.filter((v) => v !== null).length);
    },
  );

  it('uses one thread for a small log unless told otherwise', async () => {
    const dir = await damagedLog();
    const auto = await rebuild(dir, {});
    expect(auto.info.rebuildThreads).toBe(1);
  });

  it('a worker that fails is reported and the rebuild runs again on one thread', async () => {
    const dir = await damagedLog();
    const one = await rebuild(dir, { rebuildThreads: 1 });
    const broken = join(dir, 'broken-worker.mjs');
    await writeFile(broken, "throw new Error('no worker here');\n");
    const good = rebuildWorkerUrl();
    useRebuildWorker(pathToFileURL(broken));
    const warnings: string[] = [];
    try {
      const two = await rebuild(dir, {
        rebuildThreads: 2,
        logger: { warn: (m) => warnings.push(m) },
      });
      expect(two.info.rebuildThreads).toBe(1);
      expect(two.entries).toEqual(one.entries);
      expect(two.count).toBe(one.count);
    } finally {
      useRebuildWorker(good);
    }
    expect(warnings.some((w) => /rebuild worker.*no worker here.*one thread/.test(w))).toBe(true);
  });

  it('rejects a thread count that is not a whole number >= 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hlog-prebuild-'));
    dirs.push(dir);
    await expect(Store.open(options(dir, { rebuildThreads: 0 }))).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });
});
