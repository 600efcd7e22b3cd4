import { mkdtemp, open, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStrataError, Prng } from '@strata/io';
import { afterEach, describe, expect, it } from 'vitest';
import { CorruptRecordError, RecordDamage } from './errors.js';
import { Store, type StoreOptions } from './hlog-store.js';
import { hashKey } from './key-hash.js';

// Damage done to the log's segment files of a closed store, then reads of
// every key after reopening it from its checkpoint: a read returns the value
// written or fails with ERR_CORRUPT_RECORD, never anything else.

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const options: Partial<StoreOptions> = {
  memory: 8192,
  pageSize: 1024,
  segmentSize: 16384,
  indexBuckets: 1024,
  expiry: false,
  logger: { warn: () => {} },
};

const key = (i: number) => Buffer.from(`key:${i}`);
function expected(i: number, round: number): Buffer {
  const rng = new Prng(i * 7919 + round);
  const v = Buffer.alloc(8 + rng.nextInt(120));
  rng.fill(v);
  return v;
}

async function setup(n: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hlog-corrupt-'));
  dirs.push(dir);
  const s = await Store.open({ dir, ...options });
  for (let i = 0; i < n; i++) await s.set(key(i), expected(i, 0));
  await s.close();
  return dir;
}

interface Tally {
  right: number;
  reported: number;
  wrong: number;
  missing: number;
}

/** Reads every key; a damaged one is deleted and written again (DEL must work on it). */
async function readAll(s: Store, n: number, rounds: Int32Array): Promise<Tally> {
  const t: Tally = { right: 0, reported: 0, wrong: 0, missing: 0 };
  for (let i = 0; i < n; i++) {
    let r: Awaited<ReturnType<Store['get']>> | null = null;
    try {
      r = await s.get(key(i));
    } catch (e) {
      if (!isStrataError(e, 'ERR_CORRUPT_RECORD')) throw e;
      expect(e).toBeInstanceOf(CorruptRecordError);
      expect((e as CorruptRecordError).key).toEqual(key(i));
      t.reported++;
      expect(await s.delete(key(i))).toBe(true);
      expect((await s.get(key(i))).status).toBe('notFound');
      rounds[i] = rounds[i]! + 1;
      await s.set(key(i), expected(i, rounds[i]!));
      continue;
    }
    if (r.status !== 'found') t.missing++;
    else if (r.value.equals(expected(i, rounds[i]!))) t.right++;
    else t.wrong++;
  }
  return t;
}

async function flipBit(path: string, rng: Prng): Promise<void> {
  const size = (await stat(path)).size;
  const f = await open(path, 'r+');
  try {
    const at = rng.nextInt(size);
    const b = Buffer.alloc(1);
    await f.read(b, 0, 1, at);
    b[0]! ^= 1 << rng.nextInt(8);
    await f.write(b, 0, 1, at);
  } finally {
    await f.close();
  }
}

describe('reads from a damaged log', () => {
  it('a seeded campaign of bit flips and zeroed ranges: no read ever returns a wrong value', async () => {
    const n = 600;
    const dir = await setup(n);
    const rng = new Prng(20261206);
    const rounds = new Int32Array(n);
    const total: Tally = { right: 0, reported: 0, wrong: 0, missing: 0 };
    for (let round = 0; round < 30; round++) {
      // The segments the first fill wrote (later rounds append after them).
      const segment = rng.nextInt(4);
      const path = join(dir, `log.${segment}`);
      if (round % 5 === 4) {
        const f = await open(path, 'r+');
        await f.write(Buffer.alloc(64), 0, 64, rng.nextInt(16384 - 64));
        await f.close();
      } else {
        for (let j = 0; j < 3; j++) await flipBit(path, rng);
      }
      const s = await Store.open({ dir, ...options });
      const t = await readAll(s, n, rounds);
      total.right += t.right;
      total.reported += t.reported;
      total.wrong += t.wrong;
      total.missing += t.missing;
      await s.close();
    }
    console.log(
      `flip campaign: ${total.right} right, ${total.reported} reported damaged, ${total.wrong} wrong, ${total.missing} missing`,
    );
    expect(total.wrong).toBe(0);
    expect(total.missing).toBe(0);
    // The campaign did hit records (else it tests nothing).
    expect(total.reported).toBeGreaterThan(0);
    // And after the rewrites every key reads back right.
    const s = await Store.open({ dir, ...options });
    expect(await readAll(s, n, rounds)).toEqual({ right: n, reported: 0, wrong: 0, missing: 0 });
    expect(s.damage.records).toBe(0);
    await s.close();
  });

  it('a flipped value is reported with its key, address and damage, counted, and can be deleted', async () => {
    const dir = await setup(200);
    const s0 = await Store.open({ dir, ...options });
    const where = s0.index.find(hashKey(key(3)));
    await s0.close();
    // One bit in the value of key:3 (16-byte header, 5-byte key, then the value).
    const seg = Math.floor(where / 16384);
    const path = join(dir, `log.${seg}`);
    const f = await open(path, 'r+');
    const b = Buffer.alloc(1);
    const at = (where % 16384) + 16 + 5 + 2;
    await f.read(b, 0, 1, at);
    b[0]! ^= 0x10;
    await f.write(b, 0, 1, at);
    await f.close();
    const s = await Store.open({ dir, ...options });
    const reports: Array<[number, string]> = [];
    s.damage.onCorrupt = (address, what) => reports.push([address, what]);
    const e = await s.get(key(3)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CorruptRecordError);
    const c = e as CorruptRecordError;
    expect(c.code).toBe('ERR_CORRUPT_RECORD');
    expect(c.recordAddress).toBe(where);
    expect(c.damage).toBe(RecordDamage.CHECKSUM_MISMATCH);
    expect(c.message).toBe(
      `corrupt record for key 'key:3' at log address ${where}: checksum mismatch`,
    );
    await expect(s.get(key(3))).rejects.toThrow(CorruptRecordError);
    // Reported once per address, every read counted.
    expect(reports).toEqual([[where, 'checksum mismatch']]);
    expect(s.damage.recordReads).toBe(2);
    expect(s.damage.lastAddress).toBe(where);
    expect(await s.exactCount()).toBe(200);
    expect(await s.delete(key(3))).toBe(true);
    expect(await s.exactCount()).toBe(199);
    await s.set(key(3), Buffer.from('again'));
    expect((await s.get(key(3))).status === 'found').toBe(true);
    expect(await s.exactCount()).toBe(200);
    await s.close();
  });

  it('a segment emptied by truncation: its keys are reported, not served as zeros, and deletable', async () => {
    const n = 400;
    const dir = await setup(n);
    // Segment 1 in the middle of the log cut to 1000 bytes: the rest reads as zeros.
    await truncate(join(dir, 'log.1'), 1000);
    const s = await Store.open({ dir, ...options });
    const rounds = new Int32Array(n);
    const t = await readAll(s, n, rounds);
    expect(t.wrong).toBe(0);
    expect(t.missing).toBe(0);
    expect(t.reported).toBeGreaterThan(10);
    expect(s.damage.records).toBeGreaterThan(0);
    await s.close();
  });
});
