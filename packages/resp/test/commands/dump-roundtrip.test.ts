import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * Keys copied between strata and a live redis-server with DUMP and RESTORE,
 * both ways, with values large enough for Redis's big encodings (hashtable
 * hashes and sets, skiplist zsets, multi-node quicklists, LZF strings) and
 * binary bytes; TTLs carried with PTTL. Skipped, and said so, without
 * redis-server.
 */
const live = hasRedisServer();
if (!live) console.warn('dump-roundtrip: no redis-server installed; these tests are skipped');

let strata: TestServer;
let redisServer: { port: number; stop(): void };
let s: Redis;
let r: Redis;

const bin = (i: number) => Buffer.from([i & 0xff, 0, 0xff, 0x0d, 0x0a, (i >> 8) & 0xff]);

async function fill(c: Redis, p: string): Promise<void> {
  await c.set(`${p}:str`, Buffer.concat([Buffer.alloc(3000, 'z'), bin(7)]));
  await c.set(`${p}:int`, '-9223372036854775808');
  await c.hset(
    `${p}:hash`,
    ...Array.from({ length: 1000 }, (_, i) => [`f${i}`, `v${i}`.repeat(i % 7)]).flat(),
  );
  await c.sadd(`${p}:set`, ...Array.from({ length: 700 }, (_, i) => bin(i)));
  await c.sadd(`${p}:intset`, ...Array.from({ length: 300 }, (_, i) => String(i * 1000 - 7)));
  await c.zadd(
    `${p}:zset`,
    ...Array.from({ length: 500 }, (_, i) => [String(i / 3), `m${i}`]).flat(),
  );
  await c.rpush(`${p}:list`, ...Array.from({ length: 5000 }, (_, i) => `item-${i}`));
  await c.pexpire(`${p}:list`, 1_000_000);
}

/** A key's contents, order-free where the type is. */
async function contents(c: Redis, key: string): Promise<unknown> {
  const type = await c.type(key);
  switch (type) {
    case 'string':
      return (await c.getBuffer(key))?.toString('hex');
    case 'hash':
      return Object.entries(await c.hgetall(key)).sort();
    case 'set':
      return (await c.smembersBuffer(key)).map((b) => b.toString('hex')).sort();
    case 'zset':
      return c.zrange(key, 0, -1, 'WITHSCORES');
    case 'list':
      return c.lrange(key, 0, -1);
    default:
      return type;
  }
}

const KEYS = ['str', 'int', 'hash', 'set', 'intset', 'zset', 'list'];

beforeAll(async () => {
  if (!live) return;
  strata = await startServer();
  redisServer = await startRedis();
  s = new Redis({ port: strata.port, host: '127.0.0.1' });
  r = new Redis({ port: redisServer.port, host: '127.0.0.1' });
}, 30_000);

afterAll(async () => {
  s?.disconnect();
  r?.disconnect();
  redisServer?.stop();
  await strata?.stop();
});

describe.skipIf(!live)('DUMP on one server, RESTORE on the other', () => {
  test('redis-server to strata', async () => {
    await fill(r, 'a');
    for (const k of KEYS) {
      const key = `a:${k}`;
      const payload = await r.dumpBuffer(key);
      const ttl = Math.max(0, await r.pttl(key));
      expect(await s.restore(key, ttl, payload), key).toBe('OK');
      expect(await contents(s, key), key).toEqual(await contents(r, key));
      expect(await s.type(key)).toBe(await r.type(key));
    }
    expect(await s.pttl('a:list')).toBeGreaterThan(900_000);
  });

  test('strata to redis-server', async () => {
    await fill(s, 'b');
    for (const k of KEYS) {
      const key = `b:${k}`;
      const payload = await s.dumpBuffer(key);
      const ttl = Math.max(0, await s.pttl(key));
      expect(await r.restore(key, ttl, payload), key).toBe('OK');
      expect(await contents(r, key), key).toEqual(await contents(s, key));
    }
    expect(await r.pttl('b:list')).toBeGreaterThan(900_000);
    // And back: what redis-server DUMPs of our copy restores here unchanged.
    for (const k of KEYS) {
      const payload = await r.dumpBuffer(`b:${k}`);
      expect(await s.restore(`c:${k}`, 0, payload)).toBe('OK');
      expect(await contents(s, `c:${k}`)).toEqual(await contents(s, `b:${k}`));
    }
  });
});
