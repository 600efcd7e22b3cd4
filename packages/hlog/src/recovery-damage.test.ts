import {
  copyFile,
  mkdtemp,
  open,
  readFile,
  rm,
  truncate,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileDevice } from '@strata/io';
import { afterEach, describe, expect, it } from 'vitest';
import { rebuildThreadsUnderTest } from '../test/rebuild-threads.js';
import { Store, type StoreOptions } from './hlog-store.js';
import { scanLog, TORN_TAIL_PAGES } from './log-scan.js';
import { keyLengthOf, keyOffsetOf } from './record-layout.js';

/**
 * Recovery never destroys what it cannot read: damaged pages in the middle
 * of the log are skipped (reported by address and count) and the records
 * after them kept, while a torn tail is still cut; an unusable checkpoint
 * falls back to an older one or a whole-log rebuild, reported, with nothing
 * deleted until a new checkpoint is durable. Real files, damaged on disk.
 */

const P = 1024;
const SEGMENT = 1 << 16;
const options = (dir: string, more: Partial<StoreOptions> = {}): StoreOptions => ({
  dir,
  memory: 16 * P,
  pageSize: P,
  segmentSize: SEGMENT,
  indexBuckets: 1024,
  expiry: false,
  ...rebuildThreadsUnderTest(),
  ...more,
});

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'hlog-damage-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function quiet(): { warn: (m: string) => void; warnings: string[] } {
  const warnings: string[] = [];
  return { warn: (m: string) => warnings.push(m), warnings };
}

const key = (i: number): Buffer => Buffer.from(`key:${i}`);
const value = (i: number): Buffer => Buffer.from(`value-${i}-${'#'.repeat(i % 40)}`);

/** Writes keys [from, to), then flushes and drops the store (a crash after the flush). */
async function writeKeys(
  dir: string,
  from: number,
  to: number,
  more: Partial<StoreOptions> = {},
): Promise<void> {
  const store = await Store.open(options(dir, { logger: quiet(), ...more }));
  for (let i = from; i < to; i++) await store.set(key(i), value(i));
  await store.log.sealAndFlush();
  await store.abandon();
}

/** The address of each key's newest record in the (undamaged) log. */
async function addressesOf(dir: string): Promise<Map<string, number>> {
  const device = new FileDevice({ dir, name: 'log', segmentSize: SEGMENT });
  const at = new Map<string, number>();
  await scanLog({
    device,
    pageSize: P,
    from: 0,
    onRecord: (space, off, address) => {
      const ko = keyOffsetOf(space, off);
      at.set(space.bytes.toString('latin1', ko, ko + keyLengthOf(space, off)), address);
      return true;
    },
  });
  await device.close();
  return at;
}

/** Flips one byte inside the records of the page at `address` (its checksum then fails). */
async function flipByte(dir: string, address: number): Promise<void> {
  const fh = await open(join(dir, `log.${Math.floor(address / SEGMENT)}`), 'r+');
  const pos = (address % SEGMENT) + 100;
  const b = Buffer.alloc(1);
  await fh.read(b, 0, 1, pos);
  b[0]! ^= 0x10;
  await fh.write(b, 0, 1, pos);
  await fh.close();
}

/** Every key of [0, n): found with its value, except `lost` ones, which are absent. */
async function expectKeys(
  store: Store,
  n: number,
  lost: ReadonlySet<string>,
): Promise<{ found: number; missing: number }> {
  let found = 0;
  let missing = 0;
  for (let i = 0; i < n; i++) {
    const r = await store.get(key(i));
    if (lost.has(`key:${i}`)) {
      expect(r.status, `key:${i} was in a damaged page`).toBe('notFound');
      missing++;
    } else {
      expect(r.status === 'found' && r.value.equals(value(i)), `key:${i}`).toBe(true);
      found++;
    }
  }
  return { found, missing };
}

describe('damage in the middle of the log', () => {
  it('a whole-log rebuild skips one damaged page, keeps every key outside it, and reports the page', async () => {
    const dir = await tempDir();
    const N = 4000;
    await writeKeys(dir, 0, N, { checkpoints: null });
    const at = await addressesOf(dir);
    const pages = [...new Set([...at.values()].map((a) => Math.floor(a / P) * P))].sort(
      (a, b) => a - b,
    );
    const damaged = pages[Math.floor(pages.length / 2)]!;
    const lost = new Set(
      [...at].filter(([, a]) => a >= damaged && a < damaged + P).map(([k]) => k),
    );
    expect(lost.size).toBeGreaterThan(0);
    await flipByte(dir, damaged);
    const before = await readFile(join(dir, `log.${Math.floor(damaged / SEGMENT)}`));

    const log = quiet();
    const store = await Store.open(options(dir, { logger: log, checkpoints: null }));
    expect(store.recovery.cutAt).toBeNull();
    expect(store.recovery.skipped).toEqual([
      { address: damaged, pages: 1, reason: 'page checksum mismatch' },
    ]);
    expect(log.warnings.join('\n')).toContain(
      `skipped 1 damaged page at [${damaged}: page checksum mismatch]`,
    );
    const counted = await expectKeys(store, N, lost);
    console.log(
      `mid-log damage: ${counted.found} of ${N} keys kept, ${counted.missing} lost with page ${damaged}`,
    );
    expect(counted.found).toBe(N - lost.size);
    expect(await store.exactCount()).toBe(N - lost.size);
    // New writes go after the old end, never over the damaged page.
    for (let i = N; i < N + 500; i++) await store.set(key(i), value(i));
    await store.close();
    const after = await readFile(join(dir, `log.${Math.floor(damaged / SEGMENT)}`));
    expect(after.subarray(0, before.length).equals(before)).toBe(true);

    // Without the checkpoint close wrote, a rebuild finds the same damage and the new keys too.
    const again = await Store.open(options(dir, { logger: quiet(), rebuildIndex: true }));
    expect(again.recovery.skipped.map((r) => r.address)).toEqual([damaged]);
    expect((await expectKeys(again, N + 500, lost)).found).toBe(N + 500 - lost.size);
    await again.close();
  }, 60_000);

  it('bad pages followed by a later session are damage, however close to them', async () => {
    const dir = await tempDir();
    await writeKeys(dir, 0, 1000, { checkpoints: null });
    const at = await addressesOf(dir);
    const last = Math.max(...at.values());
    const lastPage = Math.floor(last / P) * P;
    // A second session's pages follow at once.
    await writeKeys(dir, 1000, 1100, { checkpoints: null });
    await flipByte(dir, lastPage);
    const lost = new Set([...at].filter(([, a]) => a >= lastPage).map(([k]) => k));
    const store = await Store.open(options(dir, { logger: quiet(), checkpoints: null }));
    expect(store.recovery.cutAt).toBeNull();
    expect(store.recovery.skipped.map((r) => r.address)).toEqual([lastPage]);
    expect((await expectKeys(store, 1100, lost)).found).toBe(1100 - lost.size);
    await store.close();
  });

  it('a torn tail is still cut: bad pages with only a few valid pages of the same session after them', async () => {
    const dir = await tempDir();
    const N = 1500;
    await writeKeys(dir, 0, N, { checkpoints: null });
    const at = await addressesOf(dir);
    const pages = [...new Set([...at.values()].map((a) => Math.floor(a / P) * P))].sort(
      (a, b) => a - b,
    );
    // Out-of-order completion: a page torn with two written after it.
    const torn = pages[pages.length - 3]!;
    expect(pages.length - 3).toBeGreaterThan(TORN_TAIL_PAGES);
    await flipByte(dir, torn);
    const log = quiet();
    const store = await Store.open(options(dir, { logger: log, checkpoints: null }));
    expect(store.recovery.cutAt).toBe(torn);
    expect(store.recovery.skipped).toEqual([]);
    expect(log.warnings.join('\n')).toMatch(/log cut off at \d+: page checksum mismatch/);
    const cut = new Set([...at].filter(([, a]) => a >= torn).map(([k]) => k));
    expect((await expectKeys(store, N, cut)).found).toBe(N - cut.size);
    await store.close();
  });

  it('below durableUntil (a synced checkpoint end) bad pages are never a torn tail: skipped, the pages after them kept', async () => {
    const dir = await tempDir();
    const N = 1500;
    await writeKeys(dir, 0, N, { checkpoints: null });
    const at = await addressesOf(dir);
    const pages = [...new Set([...at.values()].map((a) => Math.floor(a / P) * P))].sort(
      (a, b) => a - b,
    );
    const damaged = pages[pages.length - 3]!;
    await flipByte(dir, damaged);
    const lost = new Set(
      [...at].filter(([, a]) => a >= damaged && a < damaged + P).map(([k]) => k),
    );
    const store = await Store.open(
      options(dir, { logger: quiet(), checkpoints: null, durableUntil: pages.at(-1)! + P }),
    );
    expect(store.recovery.cutAt).toBeNull();
    expect(store.recovery.skipped.map((r) => r.address)).toEqual([damaged]);
    expect((await expectKeys(store, N, lost)).found).toBe(N - lost.size);
    await store.close();
  });

  it('damage in the tail replayed after a checkpoint: skipped, the rest kept, the key count recounted exact', async () => {
    const dir = await tempDir();
    const store = await Store.open(options(dir, { logger: quiet() }));
    for (let i = 0; i < 1000; i++) await store.set(key(i), value(i));
    await store.checkpoint();
    const until = store.stats().log.tail;
    // The tail: new keys, overwrites and deletes of checkpointed ones.
    for (let i = 1000; i < 4000; i++) await store.set(key(i), value(i));
    for (let i = 0; i < 1000; i += 3) await store.set(key(i), value(i));
    for (let i = 1; i < 1000; i += 3) await store.delete(key(i));
    await store.log.sealAndFlush();
    await store.abandon();
    const at = await addressesOf(dir);
    const pages = [...new Set([...at.values()].map((a) => Math.floor(a / P) * P))]
      .filter((a) => a >= until)
      .sort((a, b) => a - b);
    const damaged = pages[Math.floor(pages.length / 2)]!;
    await flipByte(dir, damaged);

    const reopened = await Store.open(options(dir, { logger: quiet() }));
    expect(reopened.recovery.checkpoint).toBe(1);
    expect(reopened.recovery.skipped.map((r) => r.address)).toEqual([damaged]);
    expect(reopened.recovery.count).toBe('recount');
    // The damaged page held newer versions of keys in [1000, 4000): those are absent now.
    let found = 0;
    for (let i = 0; i < 4000; i++) {
      const r = await reopened.get(key(i));
      const inPage =
        (at.get(`key:${i}`) ?? 0) >= damaged && (at.get(`key:${i}`) ?? 0) < damaged + P;
      if (i < 1000 && i % 3 === 1) expect(r.status).toBe('notFound');
      else if (inPage && i >= 1000) expect(r.status).toBe('notFound');
      else {
        expect(r.status === 'found' && r.value.equals(value(i)), `key:${i}`).toBe(true);
        found++;
      }
    }
    expect(await reopened.exactCount()).toBe(found);
    await reopened.close();
  }, 60_000);

  it('a deleted segment file in the middle is reported as skipped pages and the rest kept', async () => {
    const dir = await tempDir();
    const N = 6000;
    await writeKeys(dir, 0, N, { checkpoints: null });
    const at = await addressesOf(dir);
    const segments = Math.ceil(Math.max(...at.values()) / SEGMENT);
    expect(segments).toBeGreaterThanOrEqual(4);
    const gone = 2;
    await unlink(join(dir, `log.${gone}`));
    // A blob or record may not straddle a segment: the pages of log.2 are exactly lost.
    const lost = new Set(
      [...at].filter(([, a]) => a >= gone * SEGMENT && a < (gone + 1) * SEGMENT).map(([k]) => k),
    );
    const log = quiet();
    const store = await Store.open(options(dir, { logger: log, checkpoints: null }));
    expect(store.recovery.cutAt).toBeNull();
    expect(store.recovery.skipped).toEqual([
      { address: gone * SEGMENT, pages: SEGMENT / P, reason: 'empty page' },
    ]);
    expect(log.warnings.join('\n')).toContain(
      `skipped ${SEGMENT / P} damaged pages at [${gone * SEGMENT} (${SEGMENT / P} pages): empty page]`,
    );
    const counted = await expectKeys(store, N, lost);
    console.log(`deleted log.${gone}: ${counted.found} of ${N} keys kept, ${counted.missing} lost`);
    expect(counted.found).toBe(N - lost.size);
    await store.close();
  }, 60_000);
});

describe('an unusable checkpoint', () => {
  /** Keys [0, 3000) in three rounds with a checkpoint after the first two; the files of checkpoint 1 kept aside. */
  async function twoCheckpoints(dir: string): Promise<void> {
    const store = await Store.open(options(dir, { logger: quiet() }));
    for (let i = 0; i < 1000; i++) await store.set(key(i), value(i));
    expect(await store.checkpoint()).toBe(1);
    for (const ext of ['meta', 'index']) {
      await copyFile(join(dir, `checkpoint.1.${ext}`), join(dir, `saved.1.${ext}`));
    }
    for (let i = 1000; i < 2000; i++) await store.set(key(i), value(i));
    expect(await store.checkpoint()).toBe(2);
    for (let i = 2000; i < 3000; i++) await store.set(key(i), value(i));
    await store.log.sealAndFlush();
    await store.abandon();
  }

  /** A crash between writing checkpoint 2 and removing checkpoint 1: both on disk. */
  async function restoreFirst(dir: string): Promise<void> {
    for (const ext of ['meta', 'index']) {
      await copyFile(join(dir, `saved.1.${ext}`), join(dir, `checkpoint.1.${ext}`));
    }
  }

  const none = new Set<string>();

  it('a missing meta file: the index is rebuilt from the whole log, said in the log, every key kept', async () => {
    const dir = await tempDir();
    await twoCheckpoints(dir);
    await unlink(join(dir, 'checkpoint.2.meta'));
    const log = quiet();
    const store = await Store.open(options(dir, { logger: log }));
    expect(store.recovery.checkpoint).toBeNull();
    expect(log.warnings.join('\n')).toContain(
      'checkpoint 2 has an index snapshot but no meta file',
    );
    await expectKeys(store, 3000, none);
    // Nothing was deleted by the recovery; a new checkpoint is numbered past the one left.
    await expect(readFile(join(dir, 'checkpoint.2.index'))).resolves.toBeDefined();
    expect(await store.checkpoint()).toBe(3);
    await store.close();
  }, 60_000);

  it('a truncated index snapshot falls back to the older checkpoint and replays the log after it', async () => {
    const dir = await tempDir();
    await twoCheckpoints(dir);
    await restoreFirst(dir);
    await truncate(join(dir, 'checkpoint.2.index'), 100);
    const log = quiet();
    const store = await Store.open(options(dir, { logger: log }));
    expect(store.recovery.checkpoint).toBe(1);
    expect(store.recovery.passedOver.map((p) => p.seq)).toEqual([2]);
    expect(log.warnings.join('\n')).toContain('loaded the older checkpoint 1 instead of 2');
    await expectKeys(store, 3000, none);
    // The unusable checkpoint stays on disk until a new one is durable.
    await expect(readFile(join(dir, 'checkpoint.2.meta'))).resolves.toBeDefined();
    expect(await store.checkpoint()).toBe(3);
    await store.close();
    const log2 = quiet();
    const reopened = await Store.open(options(dir, { logger: log2 }));
    expect(log2.warnings).toEqual([]);
    expect(reopened.recovery.checkpoint).toBe(4);
    await expectKeys(reopened, 3000, none);
    await reopened.close();
  }, 60_000);

  it('with consistentRecovery the fallback to the older checkpoint says the log after it is not replayed past a clean close, and is not', async () => {
    const dir = await tempDir();
    await twoCheckpoints(dir);
    await restoreFirst(dir);
    await truncate(join(dir, 'checkpoint.2.index'), 100);
    const log = quiet();
    const store = await Store.open(options(dir, { logger: log, consistentRecovery: true }));
    expect(store.recovery.checkpoint).toBe(1);
    const said = log.warnings.join('\n');
    expect(said).toContain(
      'loaded the older checkpoint 1 instead of 2; the log after it is replayed only up to a clean close recorded after it, if there is one (a crash left none: the store is as of that checkpoint)',
    );
    expect(said).not.toContain('the log after it is replayed,');
    // The store is as of checkpoint 1: the keys written after it are not there.
    await expectKeys(store, 1000, none);
    expect((await store.get(key(1500))).status).toBe('notFound');
    expect((await store.get(key(2500))).status).toBe('notFound');
    await store.close();
  }, 60_000);

  it('a corrupt meta file: the index is rebuilt from the whole log, every key kept', async () => {
    const dir = await tempDir();
    await twoCheckpoints(dir);
    await writeFile(join(dir, 'checkpoint.2.meta'), '{"version":1,"seq":2,"epo');
    const log = quiet();
    const store = await Store.open(options(dir, { logger: log }));
    expect(store.recovery.checkpoint).toBeNull();
    expect(log.warnings.join('\n')).toContain(
      'no checkpoint could be loaded (2 unusable): rebuilding the index from the whole log',
    );
    await expectKeys(store, 3000, none);
    await store.close();
  }, 60_000);

  it('segment files missing at the start of the log are reported, the rest kept', async () => {
    const dir = await tempDir();
    const store = await Store.open(options(dir, { logger: quiet() }));
    for (let i = 0; i < 3000; i++) await store.set(key(i), value(i));
    await store.close();
    const at = await addressesOf(dir);
    await unlink(join(dir, 'log.0'));
    const lost = new Set([...at].filter(([, a]) => a < SEGMENT).map(([k]) => k));
    const log = quiet();
    const reopened = await Store.open(options(dir, { logger: log }));
    expect(reopened.recovery.checkpoint).not.toBeNull();
    expect(reopened.recovery.skipped).toEqual([
      { address: 0, pages: SEGMENT / P, reason: 'segment files missing at the start of the log' },
    ]);
    expect(log.warnings.join('\n')).toContain(
      `skipped ${SEGMENT / P} damaged pages at [0 (${SEGMENT / P} pages): segment files missing`,
    );
    expect((await expectKeys(reopened, 3000, lost)).found).toBe(3000 - lost.size);
    await reopened.close();
  }, 60_000);

  it('a checkpoint covering log that is gone (the last segment removed) is not used', async () => {
    const dir = await tempDir();
    const store = await Store.open(options(dir, { logger: quiet() }));
    for (let i = 0; i < 3000; i++) await store.set(key(i), value(i));
    await store.checkpoint();
    await store.close();
    const at = await addressesOf(dir);
    const last = Math.floor(Math.max(...at.values()) / SEGMENT);
    await unlink(join(dir, `log.${last}`));
    const lost = new Set([...at].filter(([, a]) => a >= last * SEGMENT).map(([k]) => k));
    const log = quiet();
    const reopened = await Store.open(options(dir, { logger: log }));
    expect(reopened.recovery.checkpoint).toBeNull();
    expect(log.warnings.join('\n')).toMatch(
      /checkpoint \d+ cannot be used: it covers the log up to/,
    );
    // Keys in the removed segment are gone; every other one is served.
    expect((await expectKeys(reopened, 3000, lost)).found).toBe(3000 - lost.size);
    await reopened.close();
  }, 60_000);
});
