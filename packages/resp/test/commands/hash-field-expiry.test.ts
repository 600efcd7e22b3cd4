import { Store } from '@strata/hlog';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

/**
 * Hash fields past their expiry: never returned (HGETALL, HKEYS, HVALS,
 * HSCAN skip them; HGET, HEXISTS... delete them on the way with an
 * `hexpired` event, and `del` when that empties the hash); HLEN counts
 * them until they are deleted, as Redis 8's does. The active cycle deletes
 * them untouched, in slices (at most 200 fields a tick per database), one
 * `hexpired` per hash per slice and `del` when a hash is emptied. With the
 * hashes in the cache and evicted to disk (a 1-byte cache).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}

/** The keyevent pushes so far, as [event, key]. */
function events(text: string): [string, string][] {
  return [...text.matchAll(/\$\d+\r\n__keyevent@0__:(\w+)\r\n\$\d+\r\n([^\r]*)\r\n/g)].map((m) => [
    m[1]!,
    m[2]!,
  ]);
}

for (const [title, collectionMemory] of [
  ['hash field expiry, hashes cached', undefined],
  ['hash field expiry, hashes evicted to disk', 1],
] as const) {
  describe(title, () => {
    let t: TestServer;
    let r: Redis;
    let listener: RawClient;
    beforeAll(async () => {
      t = await startServer(collectionMemory === undefined ? {} : { collectionMemory });
      r = new Redis({ port: t.port, host: '127.0.0.1', lazyConnect: true });
      await r.connect();
      await r.config('SET', 'notify-keyspace-events', 'Egh');
      listener = await RawClient.connect(t.port);
      listener.send('psubscribe', '__keyevent@0__:*');
      await listener.readUntil((s) => s.endsWith(':1\r\n'));
      listener.take();
    });
    afterAll(async () => {
      listener.close();
      r.disconnect();
      await t.stop();
    });

    const activeExpiry = (on: boolean) => {
      const store = t.server.keyspace.get(0);
      if (store instanceof Store) store.activeExpiry = on;
    };

    test('expired fields are never returned; reads of them delete them (hexpired, then del)', async () => {
      activeExpiry(false);
      try {
        await r.hset('lz', 'a', '1', 'b', '2', 'c', '3');
        expect(await r.call('hpexpire', 'lz', '30', 'FIELDS', '2', 'a', 'b')).toEqual([1, 1]);
        await r.hset('lz1', 'x', '1');
        expect(await r.call('hpexpire', 'lz1', '30', 'FIELDS', '1', 'x')).toEqual([1]);
        await sleep(80);
        listener.take();
        // Counted until deleted (Redis 8's HLEN), never listed.
        expect(await r.hlen('lz')).toBe(3);
        expect(await r.hgetall('lz')).toEqual({ c: '3' });
        expect(await r.hkeys('lz')).toEqual(['c']);
        expect(await r.hvals('lz')).toEqual(['3']);
        expect(await r.hscan('lz', '0')).toEqual(['0', ['c', '3']]);
        expect(await r.call('httl', 'lz', 'FIELDS', '2', 'a', 'c')).toEqual([-2, -1]);
        expect(await r.call('hpersist', 'lz', 'FIELDS', '1', 'a')).toEqual([-2]);
        expect(await r.hlen('lz')).toBe(3);
        expect(await r.hexists('lz', 'a')).toBe(0);
        expect(await r.hlen('lz')).toBe(2);
        expect(await r.hmget('lz', 'b', 'c')).toEqual([null, '3']);
        expect(await r.hlen('lz')).toBe(1);
        expect(await r.hget('lz1', 'x')).toBeNull();
        expect(await r.exists('lz1')).toBe(0);
        await listener.readUntil((s) => events(s).length >= 4);
        expect(events(listener.take())).toEqual([
          ['hexpired', 'lz'],
          ['hexpired', 'lz'],
          ['hexpired', 'lz1'],
          ['del', 'lz1'],
        ]);
      } finally {
        activeExpiry(true);
      }
    });

    test('the active cycle deletes expired fields untouched, in slices, and an emptied hash', async () => {
      listener.take();
      const fields: string[] = [];
      for (let i = 0; i < 1000; i++) fields.push(`f${i}`, 'v');
      await r.hset('ac', 'keep', 'v', ...fields);
      const names = fields.filter((_, i) => i % 2 === 0);
      expect(await r.call('hpexpire', 'ac', '40', 'FIELDS', '1000', ...names)).toHaveLength(1000);
      await r.hset('ad', 'x', '1', 'y', '2');
      expect(await r.call('hpexpire', 'ad', '40', 'FIELDS', '2', 'x', 'y')).toEqual([1, 1]);
      // HLEN and EXISTS delete nothing: only the cycle can make these true.
      await until(async () => (await r.hlen('ac')) === 1 && (await r.exists('ad')) === 0);
      expect(await r.hgetall('ac')).toEqual({ keep: 'v' });
      await listener.readUntil((s) => events(s).some(([e, k]) => e === 'del' && k === 'ad'));
      const got = events(listener.take()).filter(([e]) => e === 'hexpired' || e === 'del');
      const ac = got.filter(([, k]) => k === 'ac');
      // 1000 fields, at most 200 a slice: at least 5 slices, each one event.
      expect(ac.length).toBeGreaterThanOrEqual(5);
      expect(ac.every(([e]) => e === 'hexpired')).toBe(true); // and no del: `keep` stays
      expect(got.filter(([, k]) => k === 'ad')).toEqual([
        ['hexpired', 'ad'],
        ['del', 'ad'],
      ]);
    }, 20_000);

    test('a renamed hash keeps its field times and is registered again at its first read', async () => {
      await r.hset('rn', 'a', '1', 'b', '2');
      expect(await r.call('hpexpire', 'rn', '300', 'FIELDS', '1', 'a')).toEqual([1]);
      expect(await r.rename('rn', 'rn2')).toBe('OK');
      const ttl = (await r.call('hpttl', 'rn2', 'FIELDS', '1', 'a')) as number[];
      expect(ttl[0]).toBeGreaterThan(0);
      // HLEN deletes nothing: `a` goes only if the cycle finds rn2.
      await until(async () => (await r.hlen('rn2')) === 1);
      expect(await r.hgetall('rn2')).toEqual({ b: '2' });
    });

    test('HRANDFIELD deletes the expired fields first; SORT does not see them', async () => {
      activeExpiry(false);
      try {
        await r.hset('rf', 'a', '1', 'b', '2', 'c', '3');
        expect(await r.call('hpexpire', 'rf', '30', 'FIELDS', '2', 'a', 'b')).toEqual([1, 1]);
        await sleep(80);
        expect(await r.hlen('rf')).toBe(3);
        expect(await r.call('hrandfield', 'rf', '5', 'WITHVALUES')).toEqual(['c', '3']);
        expect(await r.hlen('rf')).toBe(1);
        expect(await r.call('hrandfield', 'rf')).toBe('c');
        // SORT's GET hash->field sees no expired field either.
        await r.rpush('sl', '1', '2');
        await r.hset('sh1', 'f', 'a');
        await r.hset('sh2', 'f', 'b');
        expect(await r.call('hpexpire', 'sh2', '30', 'FIELDS', '1', 'f')).toEqual([1]);
        await sleep(80);
        expect(await r.sort('sl', 'GET', 'sh*->f')).toEqual(['a', null]);
      } finally {
        activeExpiry(true);
      }
    });

    test("COMMAND INFO gives the new commands Redis 8's arity, flags, keys and categories", async () => {
      const info = (await r.call(
        'command',
        'info',
        'hexpire',
        'httl',
        'hgetex',
        'hsetex',
        'hgetdel',
        'hpersist',
      )) as unknown[][];
      const brief = info.map((e) => [e[0], e[1], e[2], e[3], e[4], e[5], e[6]]);
      expect(brief).toEqual([
        ['hexpire', -6, ['write', 'denyoom', 'fast'], 1, 1, 1, ['@write', '@hash', '@fast']],
        ['httl', -5, ['readonly', 'fast'], 1, 1, 1, ['@read', '@hash', '@fast']],
        ['hgetex', -5, ['write', 'fast'], 1, 1, 1, ['@write', '@hash', '@fast']],
        ['hsetex', -6, ['write', 'denyoom', 'fast'], 1, 1, 1, ['@write', '@hash', '@fast']],
        ['hgetdel', -5, ['write', 'fast'], 1, 1, 1, ['@write', '@hash', '@fast']],
        ['hpersist', -5, ['write', 'fast'], 1, 1, 1, ['@write', '@hash', '@fast']],
      ]);
    });

    test('HGETEX, HSETEX and HGETDEL skip and drop expired fields with one hexpired', async () => {
      activeExpiry(false);
      try {
        await r.hset('gx', 'a', '1', 'b', '2');
        expect(await r.call('hpexpire', 'gx', '30', 'FIELDS', '1', 'a')).toEqual([1]);
        await sleep(80);
        listener.take();
        expect(await r.call('hgetex', 'gx', 'FIELDS', '2', 'a', 'b')).toEqual([null, '2']);
        expect(await r.hlen('gx')).toBe(1);
        expect(await r.call('hsetex', 'gx', 'FNX', 'FIELDS', '1', 'a', '9')).toBe(1);
        expect(await r.call('hpexpire', 'gx', '30', 'FIELDS', '1', 'a')).toEqual([1]);
        await sleep(80);
        expect(await r.call('hgetdel', 'gx', 'FIELDS', '2', 'a', 'b')).toEqual([null, '2']);
        expect(await r.exists('gx')).toBe(0);
        await listener.readUntil((s) => events(s).some(([e]) => e === 'del'));
        expect(events(listener.take())).toEqual([
          ['hexpired', 'gx'],
          ['hset', 'gx'],
          ['hexpire', 'gx'],
          ['hexpired', 'gx'],
          ['hdel', 'gx'],
          ['del', 'gx'],
        ]);
      } finally {
        activeExpiry(true);
      }
    });
  });
}
