import { Prng } from '@strata/io';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openOnDir, useServer, useTempDir } from '../support/collection-helpers.js';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * Hashes through real clients against a server whose stores hold 64 KiB of
 * log and whose collection caches hold 64 KiB of structures: most hashes
 * are evicted (written back into their records), pushed to disk by later
 * writes, and decoded again when used.
 */

const KEYS = 40;

function fieldOf(rng: Prng): string {
  // Some fields long enough to turn a hash into a hashtable, some binary.
  const n = rng.nextInt(10);
  if (n === 0) return `long-${'x'.repeat(70)}-${rng.nextInt(20)}`;
  if (n === 1) return `bin\u0000\u00ff${rng.nextInt(20)}`;
  return `f${rng.nextInt(200)}`;
}

/**
 * HGETALL as a Map of latin1 strings, from flat [field, value...] Buffers:
 * ioredis's object form would decode fields as UTF-8.
 */
async function hgetall(redis: Redis, key: string): Promise<Map<string, string>> {
  const got = (await redis.callBuffer('HGETALL', Buffer.from(key, 'latin1'))) as Buffer[];
  const have = new Map<string, string>();
  for (let j = 0; j < got.length; j += 2)
    have.set(got[j]!.toString('latin1'), got[j + 1]!.toString('latin1'));
  return have;
}

describe('hashes against a Map model, evicted to disk (ioredis)', () => {
  let t: TestServer;
  let redis: Redis;
  beforeAll(async () => {
    t = await startServer();
    redis = new Redis({ port: t.port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    redis.disconnect();
    await t.stop();
  });

  test('random HSET/HSETNX/HDEL/HINCRBY/HINCRBYFLOAT/DEL/EXPIRE with reads', async () => {
    const rng = new Prng(42);
    const model = new Map<string, Map<string, string>>();
    const b = (s: string) => Buffer.from(s, 'latin1');
    const get = (k: string) => {
      let m = model.get(k);
      if (m === undefined) {
        m = new Map();
        model.set(k, m);
      }
      return m;
    };
    for (let step = 0; step < 6000; step++) {
      const key = `hash:${rng.nextInt(KEYS)}`;
      const op = rng.nextInt(100);
      if (op < 45) {
        const pairs: Buffer[] = [];
        const m = get(key);
        let added = 0;
        const fresh = new Set<string>();
        for (let i = 0; i <= rng.nextInt(4); i++) {
          const f = fieldOf(rng);
          const v = `v${step}-${'y'.repeat(rng.nextInt(30))}`;
          if (!m.has(f) && !fresh.has(f)) added++;
          fresh.add(f);
          m.set(f, v);
          pairs.push(b(f), b(v));
        }
        expect(await redis.hset(b(key), ...pairs)).toBe(added);
      } else if (op < 55) {
        const f = fieldOf(rng);
        const m = get(key);
        const had = m.has(f);
        if (!had) m.set(f, 'nx');
        expect(await redis.hsetnx(b(key), b(f), 'nx')).toBe(had ? 0 : 1);
      } else if (op < 70) {
        const f = fieldOf(rng);
        const m = model.get(key);
        const had = m?.delete(f) ?? false;
        if (m !== undefined && m.size === 0) model.delete(key);
        expect(await redis.hdel(b(key), b(f))).toBe(had ? 1 : 0);
      } else if (op < 78) {
        const f = `n${rng.nextInt(5)}`;
        const m = get(key);
        const by = rng.nextInt(100) - 50;
        const old = m.get(f);
        if (old !== undefined && !/^-?\d+$/.test(old)) {
          await expect(redis.hincrby(key, f, by)).rejects.toThrow('hash value is not an integer');
        } else {
          const r = Number(old ?? 0) + by;
          m.set(f, String(r));
          expect(await redis.hincrby(key, f, by)).toBe(r);
        }
      } else if (op < 80) {
        const m = get(key);
        const f = `fl${rng.nextInt(3)}`;
        const old = Number(m.get(f) ?? 0);
        const r = await redis.hincrbyfloat(key, f, '0.5');
        expect(Number(r)).toBeCloseTo(old + 0.5, 9);
        m.set(f, r);
      } else if (op < 82) {
        model.delete(key);
        await redis.del(key);
      } else if (op < 84) {
        // An expiry far ahead must survive write-backs; PERSIST takes it off again.
        if (model.has(key)) {
          expect(await redis.expire(key, 10_000)).toBe(1);
          expect(await redis.ttl(key)).toBeGreaterThan(9000);
          if (rng.nextInt(2) === 0) expect(await redis.persist(key)).toBe(1);
        }
      } else if (op < 92) {
        const m = model.get(key);
        expect(await hgetall(redis, key)).toEqual(m ?? new Map());
        expect(await redis.hlen(key)).toBe(m?.size ?? 0);
      } else {
        const m = model.get(key);
        const f = fieldOf(rng);
        const v = await redis.hgetBuffer(b(key), b(f));
        expect(v === null ? undefined : v.toString('latin1')).toBe(m?.get(f));
        expect(await redis.exists(key)).toBe(m === undefined ? 0 : 1);
        expect(await redis.type(key)).toBe(m === undefined ? 'none' : 'hash');
      }
    }
    // Everything, field by field, at the end.
    for (let i = 0; i < KEYS; i++) {
      const key = `hash:${i}`;
      const m = model.get(key);
      expect(await hgetall(redis, key)).toEqual(m ?? new Map());
    }
    const stats = t.server.keyspace.collections(0)!.stats();
    expect(stats.evictions).toBeGreaterThan(0);
    expect(stats.writeBacks).toBeGreaterThan(0);
    expect(stats.loads).toBeGreaterThan(0);
    expect(stats.bytes).toBeLessThan(stats.budgetBytes * 2);
  });

  test('OBJECT ENCODING follows the hash as it grows, SCAN TYPE finds hashes', async () => {
    await redis.hset('enc', 'a', '1');
    expect(await redis.object('ENCODING', 'enc')).toBe('listpack');
    const pairs: string[] = [];
    for (let i = 0; i < 600; i++) pairs.push(`f${i}`, `${i}`);
    await redis.hset('enc', ...pairs);
    expect(await redis.object('ENCODING', 'enc')).toBe('hashtable');
    await redis.set('plain', 'x');
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', 100, 'TYPE', 'hash');
      for (const k of keys) found.add(k);
      cursor = next;
    } while (cursor !== '0');
    expect(found.has('enc')).toBe(true);
    expect(found.has('plain')).toBe(false);
    // The cache reports itself in INFO memory and storage.
    expect(await redis.info('memory')).toMatch(/collections_cache_bytes:[1-9]\d*/);
    expect(await redis.info('storage')).toMatch(
      /db0:.*,collections=[1-9]\d*,collections_bytes=\d+,collections_budget=65536/,
    );
  });

  test('HSCAN over a large hash returns every field once at least, MATCH and NOVALUES inside the iteration', async () => {
    const pairs: string[] = [];
    for (let i = 0; i < 1000; i++) pairs.push(`field:${i}`, `value:${i}`);
    await redis.hset('big', ...pairs);
    const seen = new Map<string, string>();
    let cursor = '0';
    let calls = 0;
    do {
      const [next, items] = await redis.hscan('big', cursor, 'COUNT', 50);
      for (let i = 0; i < items.length; i += 2) seen.set(items[i]!, items[i + 1]!);
      cursor = next;
      calls++;
    } while (cursor !== '0');
    expect(seen.size).toBe(1000);
    expect(calls).toBeGreaterThan(10);
    expect(seen.get('field:7')).toBe('value:7');
    const matched: string[] = [];
    cursor = '0';
    do {
      const [next, items] = (await redis.call(
        'HSCAN',
        'big',
        cursor,
        'MATCH',
        'field:1?',
        'NOVALUES',
      )) as [string, string[]];
      matched.push(...items);
      cursor = next;
    } while (cursor !== '0');
    expect(matched.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `field:1${i}`).sort());
  });

  test('RENAME, COPY and MOVE carry a hash with its type and contents', async () => {
    await redis.del('src', 'dst', 'cp');
    await redis.hset('src', 'a', '1', 'b', '2');
    await redis.hset('src', 'c', '3'); // a dirty cached change the rename must carry
    expect(await redis.rename('src', 'dst')).toBe('OK');
    expect(await redis.hgetall('dst')).toEqual({ a: '1', b: '2', c: '3' });
    expect(await redis.exists('src')).toBe(0);
    expect(await redis.copy('dst', 'cp')).toBe(1);
    await redis.hset('cp', 'd', '4');
    expect(await redis.hlen('dst')).toBe(3);
    expect(await redis.hlen('cp')).toBe(4);
    expect(await redis.move('cp', 3)).toBe(1);
    await redis.select(3);
    expect(await redis.type('cp')).toBe('hash');
    expect(await redis.hget('cp', 'd')).toBe('4');
    await redis.select(0);
    // A string overwriting a cached hash wins, and the hash is gone for good.
    await redis.set('dst', 'plain');
    await expect(redis.hget('dst', 'a')).rejects.toThrow('WRONGTYPE');
    expect(await redis.get('dst')).toBe('plain');
  });
});

describe('hashes through node-redis over RESP3', () => {
  const server = useServer();

  test('HGETALL is a map, HRANDFIELD WITHVALUES pairs', async () => {
    const client = createClient({ socket: { port: server().port, host: '127.0.0.1' }, RESP: 3 });
    await client.connect();
    try {
      expect(await client.hSet('h', { a: '1', b: '2' })).toBe(2);
      expect(await client.hGetAll('h')).toEqual({ a: '1', b: '2' });
      const pairs = (await client.sendCommand([
        'HRANDFIELD',
        'h',
        '2',
        'WITHVALUES',
      ])) as unknown as string[][];
      expect(pairs.map((p) => p.join('=')).sort()).toEqual(['a=1', 'b=2']);
      expect(await client.hIncrByFloat('h', 'a', 0.5)).toBe('1.5');
      expect(await client.type('h')).toBe('hash');
    } finally {
      await client.quit();
    }
  });
});

describe('hashes survive a restart', () => {
  const dir = useTempDir('strata-hash-restart-');

  test('cached changes are written back on close and read back after reopen', async () => {
    const open = () => openOnDir(dir());
    const a = await open();
    for (let k = 0; k < 30; k++) {
      const pairs: string[] = [];
      for (let i = 0; i < 50; i++) pairs.push(`f${i}`, `v${k}:${i}`);
      await a.redis.hset(`h${k}`, ...pairs);
    }
    await a.redis.hset('h0', 'last', 'change'); // dirty in the cache until close
    await a.redis.expire('h1', 10_000);
    a.redis.disconnect();
    await a.server.close();

    const b = await open();
    try {
      for (let k = 0; k < 30; k++) expect(await b.redis.hlen(`h${k}`)).toBe(k === 0 ? 51 : 50);
      expect(await b.redis.hget('h0', 'last')).toBe('change');
      expect(await b.redis.hget('h29', 'f49')).toBe('v29:49');
      expect(await b.redis.ttl('h1')).toBeGreaterThan(9000);
      expect(await b.redis.type('h5')).toBe('hash');
    } finally {
      b.redis.disconnect();
      await b.server.close();
    }
  });
});
