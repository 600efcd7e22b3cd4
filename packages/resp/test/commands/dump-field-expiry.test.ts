import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

/**
 * DUMP and RESTORE of hashes with field expiry times, in Redis 7.4's
 * encodings (RDB types 25 listpack-ex and 24 metadata, RDB version 12):
 * the fields, values and expiry times come back, the restored hash is
 * registered with the active cycle (its fields expire untouched), and a
 * Redis 7.0 server refuses the payload as its RESTORE refuses any RDB 12
 * one (the live half; skipped, and said so, without redis-server).
 */

const T = Date.now() + 3_600_000;
const FIELDS = ['a', 'b', 'c'];

for (const [title, collectionMemory] of [
  ['hash field expiry in DUMP/RESTORE, hashes cached', undefined],
  ['hash field expiry in DUMP/RESTORE, hashes evicted to disk', 1],
] as const) {
  describe(title, () => {
    let t: TestServer;
    let r: Redis;
    beforeAll(async () => {
      t = await startServer(collectionMemory === undefined ? {} : { collectionMemory });
      r = new Redis({ port: t.port, host: '127.0.0.1', lazyConnect: true });
      await r.connect();
    });
    afterAll(async () => {
      r.disconnect();
      await t.stop();
    });

    test('a small hash: type 25, RDB 12, fields and expiry times restored', async () => {
      await r.hset('s', 'a', '1', 'b', '2', 'c', '3');
      expect(await r.call('hpexpireat', 's', String(T), 'FIELDS', '1', 'a')).toEqual([1]);
      expect(await r.call('hpexpireat', 's', String(T + 5), 'FIELDS', '1', 'c')).toEqual([1]);
      const payload = (await r.dumpBuffer('s')) as Buffer;
      expect(payload[0]).toBe(25);
      expect(payload.readUInt16LE(payload.length - 10)).toBe(12);
      expect(await r.restore('s2', 0, payload)).toBe('OK');
      expect(await r.hgetall('s2')).toEqual(await r.hgetall('s'));
      expect(await r.call('hpexpiretime', 's2', 'FIELDS', '3', ...FIELDS)).toEqual([T, -1, T + 5]);
      expect(await r.object('ENCODING', 's2')).toBe('listpackex');
    });

    test('a large hash: type 24 (expiries relative to the soonest), restored', async () => {
      const big = 'x'.repeat(100);
      await r.hset('l', 'a', big, 'b', '2', 'c', '3');
      await r.call('hpexpireat', 'l', String(T + 9), 'FIELDS', '1', 'a');
      await r.call('hpexpireat', 'l', String(T), 'FIELDS', '1', 'b');
      const payload = (await r.dumpBuffer('l')) as Buffer;
      expect(payload[0]).toBe(24);
      expect(await r.restore('l2', 0, payload, 'REPLACE')).toBe('OK');
      expect(await r.hget('l2', 'a')).toBe(big);
      expect(await r.call('hpexpiretime', 'l2', 'FIELDS', '3', ...FIELDS)).toEqual([T + 9, T, -1]);
    });

    test('a hash with no field expiry left is Redis 7.0 bytes again', async () => {
      await r.hset('p', 'a', '1');
      await r.call('hpexpireat', 'p', String(T), 'FIELDS', '1', 'a');
      await r.call('hpersist', 'p', 'FIELDS', '1', 'a');
      const payload = (await r.dumpBuffer('p')) as Buffer;
      expect(payload[0]).toBe(16);
      expect(payload.readUInt16LE(payload.length - 10)).toBe(10);
    });

    test('the restored hash is registered: its field expires with no command touching it', async () => {
      await r.config('SET', 'notify-keyspace-events', 'Eh');
      const listener = await RawClient.connect(t.port);
      listener.send('subscribe', '__keyevent@0__:hexpired');
      await listener.readUntil((s) => s.endsWith(':1\r\n'));
      listener.take();
      await r.hset('e', 'soon', '1', 'stays', '2');
      await r.call('hpexpire', 'e', '300', 'FIELDS', '1', 'soon');
      const payload = (await r.dumpBuffer('e')) as Buffer;
      await r.del('e');
      expect(await r.restore('e2', 0, payload)).toBe('OK');
      // Nothing reads e2 until the active cycle has expired its field.
      const got = await listener.readUntil((s) => s.includes('e2'), 8000);
      expect(got).toContain('$2\r\ne2\r\n');
      listener.close();
      expect(await r.hkeys('e2')).toEqual(['stays']);
    });
  });
}

const live = hasRedisServer();
if (!live) console.warn('dump-field-expiry: no redis-server installed; the live test is skipped');

describe.skipIf(!live)('a Redis 7.0 server and a hash with field TTLs', () => {
  test('its RESTORE refuses the RDB 12 payload (7.0 has no field TTLs)', async () => {
    const t = await startServer();
    const redis = await startRedis();
    const s = new Redis({ port: t.port, host: '127.0.0.1' });
    const q = new Redis({ port: redis.port, host: '127.0.0.1' });
    try {
      await s.hset('h', 'f', 'v');
      await s.call('hpexpire', 'h', '100', 'FIELDS', '1', 'f');
      const payload = (await s.dumpBuffer('h')) as Buffer;
      await expect(q.restore('h', 0, payload)).rejects.toThrow(
        'ERR DUMP payload version or checksum are wrong',
      );
    } finally {
      s.disconnect();
      q.disconnect();
      redis.stop();
      await t.stop();
    }
  });
});
