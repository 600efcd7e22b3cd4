import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RespServer } from '../../src/server/resp-server.js';
import { SMALL_STORE, startServer, type TestServer } from '../support/test-server.js';

/**
 * OBJECT IDLETIME and FREQ where they depend on the time (the recorded
 * cases, test/compat/access-compat-cases.ts, keep to what does not): the
 * server's access clock reads a time the test moves, and the test waits for
 * the clock's tick (every 100 ms) by sleeping longer than that, a lower
 * bound only. CLIENT NO-TOUCH is Redis 7.2's, so it is checked here too.
 */
let now = 1_700_000_000_000;
let t: TestServer;
let r: Redis;

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** Moves the access clock's time on and waits past its next tick. */
async function advance(ms: number): Promise<void> {
  now += ms;
  await sleep(250);
}

beforeAll(async () => {
  t = await startServer({
    accessClock: () => now,
    configValues: { 'enable-debug-command': () => 'yes' },
  });
  r = new Redis({ port: t.port, host: '127.0.0.1' });
});
afterAll(async () => {
  r.disconnect();
  await t.stop();
});

describe('OBJECT IDLETIME (an LRU policy)', () => {
  test('grows while untouched, is reset by GET and writes, not by OBJECT, TYPE, EXISTS, TTL', async () => {
    await r.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await r.set('ic:k', 'v');
    await r.rpush('ic:l', 'a');
    expect(await r.object('IDLETIME', 'ic:k')).toBe(0);
    await advance(42_000);
    expect(await r.object('IDLETIME', 'ic:k')).toBe(42);
    await r.type('ic:k');
    await r.exists('ic:k');
    await r.ttl('ic:k');
    await r.object('ENCODING', 'ic:k');
    expect(await r.object('IDLETIME', 'ic:k')).toBe(42);
    expect(await r.call('DEBUG', 'OBJECT', 'ic:k')).toMatch(/ lru:\d+ lru_seconds_idle:42$/);
    expect(await r.object('IDLETIME', 'ic:l')).toBe(42);
    await r.lrange('ic:l', 0, -1);
    expect(await r.object('IDLETIME', 'ic:l')).toBe(0);
    await r.get('ic:k');
    expect(await r.object('IDLETIME', 'ic:k')).toBe(0);
    await advance(5_000);
    await r.append('ic:k', 'w');
    expect(await r.object('IDLETIME', 'ic:k')).toBe(0);
  });

  test('CLIENT NO-TOUCH leaves it, but for TOUCH (Redis 7.2)', async () => {
    const quiet = new Redis({ port: t.port, host: '127.0.0.1' });
    try {
      await r.set('ic:nt', 'v');
      await quiet.call('CLIENT', 'NO-TOUCH', 'ON');
      await advance(10_000);
      await quiet.get('ic:nt');
      await quiet.strlen('ic:nt');
      expect(await quiet.object('IDLETIME', 'ic:nt')).toBe(10);
      await quiet.touch('ic:nt');
      expect(await quiet.object('IDLETIME', 'ic:nt')).toBe(0);
      await advance(3_000);
      await quiet.call('CLIENT', 'NO-TOUCH', 'OFF');
      await quiet.get('ic:nt');
      expect(await quiet.object('IDLETIME', 'ic:nt')).toBe(0);
    } finally {
      quiet.disconnect();
    }
  });

  test('survives the record moving to disk; a read from disk resets it', async () => {
    await r.set('ic:disk', 'v');
    await advance(30_000);
    // Several times the test server's 64 KiB of log memory.
    for (let i = 0; i < 8; i++) {
      const argv: string[] = [];
      for (let j = 0; j < 40; j++) argv.push(`ic:fill:${i}:${j}`, 'x'.repeat(1024));
      await r.mset(...argv);
    }
    const store = t.server.keyspace.get(0)!;
    expect(store.log.head).toBeGreaterThan(0);
    expect(store.probe(Buffer.from('ic:disk')).status).toBe('pending');
    expect(await r.object('IDLETIME', 'ic:disk')).toBe(30);
    expect(await r.get('ic:disk')).toBe('v');
    expect(await r.object('IDLETIME', 'ic:disk')).toBe(0);
  });
});

describe('OBJECT FREQ (an LFU policy)', () => {
  test('rises with accesses and decays by lfu-decay-time', async () => {
    await r.config(
      'SET',
      'maxmemory-policy',
      'allkeys-lfu',
      'lfu-log-factor',
      '0',
      'lfu-decay-time',
      '1',
    );
    await r.set('ic:f', 'v');
    expect(await r.object('FREQ', 'ic:f')).toBe(5);
    for (let i = 0; i < 5; i++) await r.get('ic:f');
    expect(await r.object('FREQ', 'ic:f')).toBe(10);
    await advance(3 * 60_000);
    expect(await r.object('FREQ', 'ic:f')).toBe(7);
    // An access decays the counter first, then counts.
    await r.get('ic:f');
    expect(await r.object('FREQ', 'ic:f')).toBe(8);
    await r.config('SET', 'lfu-decay-time', '2');
    await advance(4 * 60_000);
    expect(await r.object('FREQ', 'ic:f')).toBe(6);
    // Without decay, the counter as the last access left it.
    await r.config('SET', 'lfu-decay-time', '0');
    await advance(60 * 60_000);
    expect(await r.object('FREQ', 'ic:f')).toBe(8);
    // The default log factor: past the initial value, accesses count less often.
    await r.config('SET', 'lfu-log-factor', '10');
    for (let i = 0; i < 200; i++) await r.get('ic:f');
    const freq = (await r.object('FREQ', 'ic:f')) as number;
    expect(freq).toBeGreaterThan(8);
    expect(freq).toBeLessThan(208);
  });

  test('redis-cli --hotkeys finds the hot keys', async () => {
    if (spawnSync('redis-cli', ['--version']).status !== 0) return;
    // The LRU words of the keys before would read as LFU counters (as in Redis).
    await r.flushdb();
    await r.config('SET', 'lfu-log-factor', '0', 'lfu-decay-time', '0');
    await r.set('ic:cold', 'v');
    await r.set('ic:hot', 'v');
    for (let i = 0; i < 20; i++) await r.get('ic:hot');
    // Not spawnSync: the server runs in this process.
    const out = await promisify(execFile)('redis-cli', ['-p', String(t.port), '--hotkeys']);
    expect(out.stdout).toContain('hot key found with counter: 25\tkeyname: "ic:hot"');
    expect(out.stdout).toContain('hot key found with counter: 5\tkeyname: "ic:cold"');
    await r.config('SET', 'maxmemory-policy', 'noeviction');
  });
});

describe('the access words across a restart', () => {
  test('the index checkpoint keeps them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-access-'));
    const open = async () => {
      const s = new RespServer({
        databases: { dir, store: { ...SMALL_STORE } },
        accessClock: () => now,
      });
      const { port } = await s.listen(0);
      return { s, c: new Redis({ port, host: '127.0.0.1' }) };
    };
    try {
      const a = await open();
      await a.c.set('ic:saved', 'v');
      await advance(20_000);
      await a.c.save();
      a.c.disconnect();
      await a.s.close();
      await advance(5_000);
      const b = await open();
      expect(await b.c.object('IDLETIME', 'ic:saved')).toBe(25);
      b.c.disconnect();
      await b.s.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
