import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { infoField } from './info-fields.js';
import { dirForFile, StrataProcess } from './strata-process.js';

/**
 * CONFIG SET maxmemory on a running strata-server changes the log memory of
 * the databases already open (issue 24): smaller, and the pages past the
 * new bound go to disk (RSS and used_memory fall, every key still reads
 * right); larger, and more of the log stays in memory. And INFO's
 * used_memory counts only the part of the budget the log has reached
 * (issue 23.3: the budget is not resident from the start).
 */
const tmp = dirForFile('strata-maxmemory-');

const MiB = 1024 ** 2;
const KEYS = 40_000;
const value = (i: number) => `${String(i).padStart(8, '0')}:${'v'.repeat(992)}`;

/** db0's `name=value` in INFO storage. */
async function storage(c: Redis, name: string): Promise<number> {
  const m = new RegExp(`(?:^|,)${name}=(\\d+)`).exec(await infoField(c, 'storage', 'db0'));
  return Number(m![1]);
}

const rssOf = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))![1]) * 1024;

/** Polls `probe` until `ok` holds (a condition, not a time: the deadline only ends a hung wait). */
async function until<T>(probe: () => Promise<T> | T, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function load(c: Redis, from: number, count: number, prefix: string): Promise<void> {
  for (let i = from; i < from + count; i += 1000) {
    const p = c.pipeline();
    for (let j = i; j < Math.min(i + 1000, from + count); j++) p.set(`${prefix}${j}`, value(j));
    await p.exec();
  }
}

async function expectAll(c: Redis, count: number, prefix: string): Promise<void> {
  for (let i = 0; i < count; i += 1000) {
    const keys: string[] = [];
    for (let j = i; j < Math.min(i + 1000, count); j++) keys.push(`${prefix}${j}`);
    const got = await c.mget(keys);
    got.forEach((v, n) => {
      if (v !== value(i + n)) expect(v, `${prefix}${i + n}`).toBe(value(i + n));
    });
  }
}

describe('CONFIG SET maxmemory on the open databases', () => {
  let server: { process: StrataProcess; port: number };
  let c: Redis;
  beforeAll(async () => {
    server = await StrataProcess.start([
      '--port',
      '0',
      '--dir',
      join(tmp.path, 'data'),
      '--save',
      '',
    ]);
    c = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: true });
    await c.connect();
  });
  afterAll(async () => {
    c.disconnect();
    await server.process.stop();
  });

  test('a fresh server counts only the log memory it reached in used_memory', async () => {
    await c.set('first', '1');
    expect(await storage(c, 'memory')).toBe(64 * MiB);
    expect(await storage(c, 'collections_budget')).toBe(32 * MiB);
    const resident = await storage(c, 'memory_resident');
    expect(resident).toBeLessThanOrEqual(2 * MiB);
    // Counting the whole 64 MiB ring it was over 64 MiB (91 MB measured).
    expect(Number(await infoField(c, 'memory', 'used_memory'))).toBeLessThan(64 * MiB);
  });

  test('smaller: the log leaves memory, RSS and used_memory fall, every key reads right', async () => {
    const pid = Number(await infoField(c, 'server', 'process_id'));
    await load(c, 0, KEYS, 'a:');
    expect(await storage(c, 'head')).toBe(0);
    expect(await storage(c, 'memory_resident')).toBeGreaterThan(36 * MiB);
    const rssBefore = rssOf(pid);
    const usedBefore = Number(await infoField(c, 'memory', 'used_memory'));

    expect(await c.config('SET', 'maxmemory', '4mb')).toBe('OK');
    expect(await c.config('GET', 'maxmemory')).toEqual(['maxmemory', '4194304']);
    expect(
      await until(
        () => storage(c, 'memory'),
        (m) => m === 4 * MiB,
      ),
    ).toBe(4 * MiB);
    expect(await storage(c, 'memory_resident')).toBeLessThanOrEqual(4 * MiB);
    expect(await storage(c, 'head')).toBeGreaterThan(30 * MiB);
    // The collection cache's budget follows: half the log memory.
    expect(
      await until(
        () => storage(c, 'collections_budget'),
        (b) => b < 32 * MiB,
      ),
    ).toBe(2 * MiB);
    // The old ring is freed (a full collection follows the shrink).
    const rssAfter = await until(
      () => rssOf(pid),
      (r) => r < rssBefore - 24 * MiB,
    );
    expect(rssAfter).toBeLessThan(rssBefore - 24 * MiB);
    const usedAfter = await until(
      async () => Number(await infoField(c, 'memory', 'used_memory')),
      (u) => u < usedBefore - 24 * MiB,
    );
    expect(usedAfter).toBeLessThan(usedBefore - 24 * MiB);
    // Most keys now come from disk.
    await expectAll(c, KEYS, 'a:');
  });

  test('larger: more of the log stays in memory from then on', async () => {
    expect(await c.config('SET', 'maxmemory', '128mb')).toBe('OK');
    expect(
      await until(
        () => storage(c, 'memory'),
        (m) => m === 128 * MiB,
      ),
    ).toBe(128 * MiB);
    expect(
      await until(
        () => storage(c, 'collections_budget'),
        (b) => b === 64 * MiB,
      ),
    ).toBe(64 * MiB);
    const head = await storage(c, 'head');
    await load(c, 0, KEYS, 'b:');
    // With 4 MiB the head would have followed the tail over 40 MiB more.
    expect(await storage(c, 'head')).toBe(head);
    expect(await storage(c, 'memory_resident')).toBeGreaterThan(36 * MiB);
    await expectAll(c, KEYS, 'b:');
    await expectAll(c, KEYS, 'a:');
  });
});

describe('the log memory bounds RSS under load', () => {
  test('100 MB written with --memory 4mb: RSS grows by the budget, the index and the heap, not the data', async () => {
    const server = await StrataProcess.start([
      '--port',
      '0',
      '--dir',
      join(tmp.path, 'bound'),
      '--memory',
      '4mb',
      '--save',
      '',
    ]);
    const c = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: true });
    await c.connect();
    try {
      const pid = Number(await infoField(c, 'server', 'process_id'));
      const start = rssOf(pid);
      await load(c, 0, 100_000, 'k:');
      expect(await storage(c, 'memory_resident')).toBeLessThanOrEqual(4 * MiB);
      // 4 MB of log, ~2 MB of index, the heap's garbage (~30 MB measured): well under the 100 MB written.
      const peak = Number(
        /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))![1],
      );
      expect(peak * 1024 - start).toBeLessThan(64 * MiB);
      await expectAll(c, 100_000, 'k:');
    } finally {
      c.disconnect();
      await server.process.stop();
    }
  });
});
