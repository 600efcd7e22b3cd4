import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Prng } from '@strata/io';
import { afterAll, describe, expect, it } from 'vitest';
import { Store, type StoreOptions } from './hlog-store.js';
import { scanLog } from './log-scan.js';
import { expiresAtOf, flagsOf, keyLengthOf, keyOffsetOf, RecordFlag } from './record-layout.js';

/**
 * The live-key count (`exactCount`) against a Map model and against a
 * whole-log count (every record from begin to tail, newest per key wins),
 * with memory so small that nearly every blind write finds its key's last
 * version on the device, many operations in flight at once, expiry on a
 * fixed clock, checkpoints, reopen and crash recovery.
 */

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Whole-log count: flushes (a checkpoint), then reads every record. */
async function wholeLogCount(store: Store, now: number): Promise<number> {
  await store.checkpoint();
  const log = store.log;
  const states = new Map<string, number>();
  await scanLog({
    device: log.device,
    pageSize: log.pageSize,
    from: Math.floor(log.begin / log.pageSize) * log.pageSize,
    to: log.tail,
    resync: true,
    onRecord: (space, off, address) => {
      const flags = flagsOf(space, off);
      if (address < log.begin || (flags & RecordFlag.INVALID) !== 0) return true;
      const ko = keyOffsetOf(space, off);
      const k = space.bytes.toString('hex', ko, ko + keyLengthOf(space, off));
      states.set(k, (flags & RecordFlag.TOMBSTONE) !== 0 ? -1 : expiresAtOf(space, off));
      return true;
    },
  });
  let n = 0;
  for (const exp of states.values()) if (exp === 0 || exp > now) n++;
  return n;
}

async function run(seed: number, rounds: number): Promise<number> {
  const rng = new Prng(seed);
  const int = (n: number): number => Math.floor(rng.next() * n);
  const dir = await mkdtemp(join(tmpdir(), 'hlog-count-'));
  dirs.push(dir);
  let now = 1_000_000;
  const options: StoreOptions = {
    dir,
    memory: 4096,
    pageSize: 1024,
    segmentSize: 8192,
    indexBuckets: 16,
    expiry: { intervalMs: 1, buckets: 4 },
    clock: () => now,
    logger: { warn: () => undefined },
  };
  let store = await Store.open(options);
  const model = new Map<string, number>(); // hex key -> expiresAt (0 none)
  const liveCount = (): number => {
    let n = 0;
    for (const exp of model.values()) if (exp === 0 || exp > now) n++;
    return n;
  };
  const keys = Array.from({ length: 300 }, (_, i) => Buffer.from(`key:${i}:${'x'.repeat(i % 7)}`));
  let resolutionsSeen = 0;
  let checks = 0;
  let checkpointed = false;
  let tailRecoveries = 0;

  const check = async (): Promise<void> => {
    const exact = await store.exactCount();
    expect(exact).toBe(liveCount());
    expect(store.unresolvedCount).toBe(0);
    expect(store.approxCount()).toBe(exact);
    checks++;
  };

  for (let round = 0; round < rounds; round++) {
    // A batch of operations issued together, each on a distinct key so the
    // model's outcome does not depend on completion order.
    const batch = 5 + int(30);
    const used = new Set<number>();
    const ops: Array<Promise<unknown>> = [];
    for (let i = 0; i < batch; i++) {
      const ki = int(keys.length);
      if (used.has(ki)) continue;
      used.add(ki);
      const k = keys[ki]!;
      const hex = k.toString('hex');
      const cur = model.get(hex);
      const live = cur !== undefined && (cur === 0 || cur > now);
      const op = int(100);
      if (op < 45) {
        ops.push(store.set(k, Buffer.alloc(int(60), ki)));
        model.set(hex, 0);
      } else if (op < 55) {
        const ttl = 1 + int(300);
        ops.push(store.set(k, Buffer.from('t'), { ttlMs: ttl }));
        model.set(hex, now + ttl);
      } else if (op < 70) {
        ops.push(store.delete(k));
        model.delete(hex);
      } else if (op < 80) {
        ops.push(store.append(k, Buffer.from('ab')));
        model.set(hex, live ? cur : 0);
      } else if (op < 87) {
        const ttl = 1 + int(300);
        ops.push(store.expire(k, ttl));
        if (live) model.set(hex, now + ttl);
      } else if (op < 92) {
        ops.push(store.persist(k));
        if (live) model.set(hex, 0);
      } else if (op < 96) {
        ops.push(store.set(k, Buffer.from('nx'), { nx: true }));
        if (!live) model.set(hex, 0);
      } else {
        ops.push(store.set(k, Buffer.from('kt'), { keepTtl: true }));
        model.set(hex, live ? cur : 0);
      }
    }
    resolutionsSeen = Math.max(resolutionsSeen, store.unresolvedCount);
    // Still in flight: the count never falls below the truth.
    expect(store.approxCount()).toBeGreaterThanOrEqual(0);
    await Promise.all(ops);
    if (int(4) === 0) now += int(80);
    await check();
    const r = int(40);
    if (r === 0) {
      expect(await wholeLogCount(store, now)).toBe(liveCount());
      checkpointed = true;
    } else if (r === 1) {
      await store.close();
      store = await Store.open(options);
      expect(store.recovery.count).toBe('checkpoint');
      await check();
      checkpointed = true;
    } else if (r === 2) {
      // Crash after a checkpoint: nothing after it is written.
      await store.checkpoint();
      await store.abandon();
      store = await Store.open(options);
      expect(store.recovery.count).toBe('checkpoint');
      await check();
      checkpointed = true;
    } else if (r === 3) {
      await store.compact();
      await check();
    } else if (r === 4) {
      // Crash with a tail: everything since the last checkpoint is on the
      // device but no checkpoint covers it; the count is the checkpoint's
      // adjusted for the keys the replayed tail wrote.
      await store.log.sealAndFlush();
      await store.abandon();
      store = await Store.open(options);
      expect(store.recovery.count).toBe(checkpointed ? 'checkpoint' : 'recount');
      if (checkpointed && store.recovery.records > 0) tailRecoveries++;
      await check();
    }
  }
  expect(await wholeLogCount(store, now)).toBe(liveCount());
  // Reopening without any checkpoint rebuilds the count from the whole log.
  await store.close();
  store = await Store.open({ ...options, rebuildIndex: true });
  expect(store.recovery.count).toBe('recount');
  await check();
  const st = store.stats();
  await store.close();
  expect(checks).toBeGreaterThan(rounds);
  expect(tailRecoveries).toBeGreaterThan(0);
  expect(st.log.memoryBytes).toBe(4096);
  return resolutionsSeen;
}

describe('live-key count', () => {
  it('exactCount agrees with the model and the whole-log count (seed 3)', async () => {
    const seen = await run(3, 400);
    // Blind writes over keys on the device were resolved in the background.
    expect(seen).toBeGreaterThan(0);
  }, 60_000);

  it('exactCount agrees with the model and the whole-log count (seed 11)', async () => {
    await run(11, 400);
  }, 60_000);

  it('recovery loads the count from the checkpoint and adjusts it for the replayed tail', async () => {
    const now = 1000;
    const dir = await mkdtemp(join(tmpdir(), 'hlog-count-'));
    dirs.push(dir);
    const options: StoreOptions = {
      dir,
      memory: 4096,
      pageSize: 1024,
      clock: () => now,
      expiry: false,
    };
    const b = (s: string) => Buffer.from(s);
    let store = await Store.open(options);
    for (const k of 'abcdefghij') await store.set(b(k), b('v'));
    await store.set(b('t1'), b('v'), { ttlMs: 10_000 });
    await store.set(b('t2'), b('v'), { ttlMs: 10_000 });
    await store.close();
    store = await Store.open(options);
    expect(store.recovery.count).toBe('checkpoint');
    expect(store.recovery.records).toBe(0);
    expect(await store.exactCount()).toBe(12);
    // A tail after the checkpoint: every kind of change, over keys whose
    // previous versions are only on the device.
    await store.delete(b('a'));
    await store.set(b('b'), b('blind overwrite'));
    await store.set(b('z'), b('new'));
    await store.expire(b('c'), 5000);
    await store.persist(b('t1'));
    await store.delete(b('t2'));
    await store.set(b('d'), b('x'), { ttlMs: 100 });
    await store.delete(b('d'));
    await store.set(b('d'), b('back'));
    await store.delete(b('never-there'));
    expect(await store.exactCount()).toBe(11);
    await store.log.sealAndFlush();
    await store.abandon();
    store = await Store.open(options);
    expect(store.recovery.count).toBe('checkpoint');
    expect(store.recovery.records).toBeGreaterThan(0);
    expect(store.unresolvedCount).toBe(0);
    expect(await store.exactCount()).toBe(11);
    await store.close();
    store = await Store.open({ ...options, rebuildIndex: true });
    expect(store.recovery.count).toBe('recount');
    expect(await store.exactCount()).toBe(11);
    await store.close();
  });

  it('a tail over thousands of keys on the device: their old versions read in address order, many per device read', async () => {
    const now = 1000;
    const dir = await mkdtemp(join(tmpdir(), 'hlog-count-'));
    dirs.push(dir);
    const options: StoreOptions = {
      dir,
      memory: 64 << 10,
      pageSize: 16 << 10,
      clock: () => now,
      expiry: false,
      logger: { warn: () => undefined },
    };
    const key = (i: number) => Buffer.from(`key:${i}`);
    const keys = 12_000;
    let store = await Store.open(options);
    // Before the checkpoint: 12,000 keys, a third deleted again, a tenth with an expiry.
    for (let i = 0; i < keys; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, j) =>
          store.set(key(i + j), Buffer.alloc(40, j), (i + j) % 10 === 0 ? { ttlMs: 60_000 } : {}),
        ),
      );
    }
    for (let i = 0; i < keys; i += 3) await store.delete(key(i));
    await store.close();
    store = await Store.open(options);
    const atCheckpoint = await store.exactCount();
    expect(atCheckpoint).toBe(keys - keys / 3);
    // The tail: every key overwritten blind (their versions on the device), and 500 new ones.
    for (let i = 0; i < keys + 500; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, j) => store.set(key(i + j), Buffer.alloc(40, 7))),
      );
    }
    expect(await store.exactCount()).toBe(keys + 500);
    await store.log.sealAndFlush();
    await store.abandon();
    store = await Store.open(options);
    expect(store.recovery.count).toBe('checkpoint');
    expect(store.recovery.records).toBe(keys + 500);
    expect(store.unresolvedCount).toBe(0);
    expect(await store.exactCount()).toBe(keys + 500);
    // 7,200 keys needed their old versions read (neither deleted nor with an
    // expiry), more than one round of reads in flight: sorted by address,
    // many to a device read (69 reads here; in the table's order, 191).
    const reads = store.stats().device.reads;
    expect(reads).toBeLessThan(120);
    await store.close();
  }, 60_000);

  it('counts expiring keys out as the clock passes their expiry', async () => {
    let now = 1000;
    const dir = await mkdtemp(join(tmpdir(), 'hlog-count-'));
    dirs.push(dir);
    const store = await Store.open({ dir, clock: () => now, expiry: false });
    await store.set(Buffer.from('a'), Buffer.from('1'));
    await store.set(Buffer.from('b'), Buffer.from('1'), { ttlMs: 10 });
    await store.set(Buffer.from('c'), Buffer.from('1'), { ttlMs: 20 });
    expect(await store.exactCount()).toBe(3);
    now += 10;
    expect(await store.exactCount()).toBe(2);
    expect(store.approxCount()).toBe(2);
    await store.persist(Buffer.from('c'));
    now += 100;
    expect(await store.exactCount()).toBe(2);
    await store.delete(Buffer.from('a'));
    expect(await store.exactCount()).toBe(1);
    await store.close();
  });
});
