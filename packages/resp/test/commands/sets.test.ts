import { Prng } from '@strata/io';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openOnDir, useServer, useTempDir } from '../support/collection-helpers.js';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * Sets through real clients with 64 KiB stores and collection caches, so
 * sets are evicted, written back, pushed to disk and decoded again.
 */

const KEYS = 30;

function memberOf(rng: Prng): string {
  const n = rng.nextInt(10);
  if (n < 4) return String(rng.nextInt(300) - 100); // integers: intsets
  if (n === 4) return `long-${'m'.repeat(70)}-${rng.nextInt(10)}`;
  if (n === 5) return `bin\u0000\u00fe${rng.nextInt(10)}`;
  return `m${rng.nextInt(150)}`;
}

const b = (s: string) => Buffer.from(s, 'latin1');
const strs = (bufs: Buffer[]) => bufs.map((x) => x.toString('latin1'));

describe('sets against a Set model, evicted to disk (ioredis)', () => {
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

  test('random SADD/SREM/SPOP/SMOVE/S*STORE/DEL with reads', async () => {
    const rng = new Prng(7);
    const model = new Map<string, Set<string>>();
    const setOf = (k: string) => {
      let s = model.get(k);
      if (s === undefined) {
        s = new Set();
        model.set(k, s);
      }
      return s;
    };
    const dropIfEmpty = (k: string) => {
      if (model.get(k)?.size === 0) model.delete(k);
    };
    const key = () => `set:${rng.nextInt(KEYS)}`;
    for (let step = 0; step < 6000; step++) {
      const k = key();
      const op = rng.nextInt(100);
      if (op < 40) {
        const ms = Array.from({ length: 1 + rng.nextInt(5) }, () => memberOf(rng));
        const s = setOf(k);
        let added = 0;
        for (const m of ms) {
          if (!s.has(m)) added++;
          s.add(m);
        }
        expect(await redis.sadd(b(k), ...ms.map(b))).toBe(added);
      } else if (op < 55) {
        const ms = Array.from({ length: 1 + rng.nextInt(3) }, () => memberOf(rng));
        const s = model.get(k);
        let removed = 0;
        for (const m of new Set(ms)) if (s?.delete(m)) removed++;
        dropIfEmpty(k);
        expect(await redis.srem(b(k), ...ms.map(b))).toBe(removed);
      } else if (op < 60) {
        const popped = strs(await redis.spopBuffer(b(k), 2));
        const s = model.get(k);
        expect(popped.length).toBe(Math.min(2, s?.size ?? 0));
        for (const m of popped) expect(s!.delete(m)).toBe(true);
        dropIfEmpty(k);
      } else if (op < 65) {
        const d = key();
        const s = model.get(k);
        const m =
          s !== undefined && s.size > 0 && rng.nextInt(2) === 0 ? [...s][0]! : memberOf(rng);
        const moved = s?.has(m) ?? false;
        if (moved && d !== k) {
          s!.delete(m);
          setOf(d).add(m);
          dropIfEmpty(k);
        }
        expect(await redis.smove(b(k), b(d), b(m))).toBe(moved ? 1 : 0);
      } else if (op < 70) {
        const a1 = key();
        const a2 = key();
        const s1 = model.get(a1) ?? new Set<string>();
        const s2 = model.get(a2) ?? new Set<string>();
        const kind = rng.nextInt(3);
        const result =
          kind === 0
            ? [...s1].filter((m) => s2.has(m))
            : kind === 1
              ? [...new Set([...s1, ...s2])]
              : [...s1].filter((m) => !s2.has(m));
        const cmd = ['SINTERSTORE', 'SUNIONSTORE', 'SDIFFSTORE'][kind]!;
        expect(await redis.call(cmd, k, a1, a2)).toBe(result.length);
        if (result.length === 0) model.delete(k);
        else model.set(k, new Set(result));
      } else if (op < 72) {
        model.delete(k);
        await redis.del(k);
      } else if (op < 85) {
        const got = strs((await redis.callBuffer('SMEMBERS', b(k))) as Buffer[]);
        expect(new Set(got)).toEqual(model.get(k) ?? new Set());
        expect(got.length).toBe(model.get(k)?.size ?? 0);
      } else if (op < 95) {
        const m = memberOf(rng);
        expect(await redis.sismember(b(k), b(m))).toBe(model.get(k)?.has(m) ? 1 : 0);
        expect(await redis.scard(k)).toBe(model.get(k)?.size ?? 0);
      } else {
        const others = [key(), key()];
        const inter = [...(model.get(k) ?? [])].filter((m) =>
          others.every((o) => model.get(o)?.has(m)),
        );
        const got = strs((await redis.callBuffer('SINTER', b(k), ...others.map(b))) as Buffer[]);
        expect(new Set(got)).toEqual(new Set(inter));
        expect(await redis.call('SINTERCARD', 3, k, ...others)).toBe(inter.length);
      }
    }
    for (let i = 0; i < KEYS; i++) {
      const k = `set:${i}`;
      const got = strs((await redis.callBuffer('SMEMBERS', b(k))) as Buffer[]);
      expect(new Set(got)).toEqual(model.get(k) ?? new Set());
      expect(await redis.type(k)).toBe(model.has(k) ? 'set' : 'none');
    }
    const stats = t.server.keyspace.collections(0)!.stats();
    expect(stats.evictions).toBeGreaterThan(0);
    expect(stats.writeBacks).toBeGreaterThan(0);
    expect(stats.loads).toBeGreaterThan(0);
  });

  test('concurrent clients adding to the same sets on disk lose nothing', async () => {
    const clients = Array.from({ length: 8 }, () => new Redis({ port: t.port, host: '127.0.0.1' }));
    try {
      // Keys created and deleted (their tombstones then pushed to disk by
      // other writes, so a lookup goes to disk), then created by every client at once.
      for (let k = 0; k < 20; k++) await redis.sadd(`race:${k}`, 'seed');
      for (let k = 0; k < 20; k++) await redis.del(`race:${k}`);
      const filler = redis.pipeline();
      for (let i = 0; i < 3000; i++) filler.set(`filler:${i}`, 'x'.repeat(100));
      await filler.exec();
      await Promise.all(
        clients.map((c, ci) => {
          const p = c.pipeline();
          for (let k = 0; k < 20; k++)
            for (let j = 0; j < 5; j++) p.sadd(`race:${k}`, `c${ci}:${j}`);
          return p.exec();
        }),
      );
      for (let k = 0; k < 20; k++) expect(await redis.scard(`race:${k}`)).toBe(8 * 5);
    } finally {
      for (const c of clients) c.disconnect();
    }
  });

  test('encodings: intset, listpack, hashtable as Redis 7.2', async () => {
    await redis.sadd('ints', '3', '1', '2');
    expect(await redis.object('ENCODING', 'ints')).toBe('intset');
    expect(await redis.smembers('ints')).toEqual(['1', '2', '3']);
    await redis.sadd('ints', 'x');
    expect(await redis.object('ENCODING', 'ints')).toBe('listpack');
    await redis.sadd('ints', 'y'.repeat(65));
    expect(await redis.object('ENCODING', 'ints')).toBe('hashtable');
    await redis.sadd('many', ...Array.from({ length: 513 }, (_, i) => String(i)));
    expect(await redis.object('ENCODING', 'many')).toBe('hashtable');
  });

  test('SSCAN over a large set returns every member, MATCH inside the iteration', async () => {
    await redis.sadd('big', ...Array.from({ length: 2000 }, (_, i) => `member:${i}`));
    const seen = new Set<string>();
    let cursor = '0';
    do {
      const [next, items] = await redis.sscan('big', cursor, 'COUNT', 100);
      for (const m of items) seen.add(m);
      // Members come and go meanwhile; the ones present throughout must all be seen.
      await redis.sadd('big', `extra:${seen.size}`);
      await redis.srem('big', `extra:${seen.size - 1}`);
      cursor = next;
    } while (cursor !== '0');
    for (let i = 0; i < 2000; i++) expect(seen.has(`member:${i}`)).toBe(true);
    const matched: string[] = [];
    cursor = '0';
    do {
      const [next, items] = await redis.sscan('big', cursor, 'MATCH', 'member:19??', 'COUNT', 300);
      matched.push(...items);
      cursor = next;
    } while (cursor !== '0');
    expect(new Set(matched).size).toBe(100);
  });

  test('SRANDMEMBER and SPOP draw members that are there', async () => {
    await redis.sadd('draw', 'a', 'b', 'c', 'd', 'e');
    const distinct = await redis.srandmember('draw', 3);
    expect(new Set(distinct).size).toBe(3);
    const repeats = await redis.srandmember('draw', -20);
    expect(repeats.length).toBe(20);
    for (const m of repeats) expect(['a', 'b', 'c', 'd', 'e']).toContain(m);
    const popped = await redis.spop('draw', 5);
    expect(popped.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await redis.exists('draw')).toBe(0);
  });
});

describe('sets through node-redis over RESP3', () => {
  const server = useServer();

  test('SMEMBERS and SINTER replies (RESP3 sets) and SMISMEMBER', async () => {
    const client = createClient({ socket: { port: server().port, host: '127.0.0.1' }, RESP: 3 });
    await client.connect();
    try {
      expect(await client.sAdd('s', ['x', 'y', 'z'])).toBe(3);
      const members = await client.sMembers('s');
      expect([...members].sort()).toEqual(['x', 'y', 'z']);
      await client.sAdd('t', ['y', 'z', 'w']);
      expect([...(await client.sInter(['s', 't']))].sort()).toEqual(['y', 'z']);
      expect(await client.smIsMember('s', ['x', 'w'])).toEqual([1, 0]);
      expect(await client.sCard('s')).toBe(3);
    } finally {
      await client.quit();
    }
  });
});

describe('sets survive a restart', () => {
  const dir = useTempDir('strata-set-restart-');

  test('every set comes back after close and reopen, SAVE included', async () => {
    const open = () => openOnDir(dir());
    const a = await open();
    for (let k = 0; k < 30; k++) {
      await a.redis.sadd(`s${k}`, ...Array.from({ length: 60 }, (_, i) => `m${k}:${i}`));
    }
    await a.redis.sadd('s0', 'after');
    expect(await a.redis.call('SAVE')).toBe('OK');
    await a.redis.srem('s1', 'm1:0');
    await a.redis.select(4);
    await a.redis.sadd('in-db4', '1', '2');
    a.redis.disconnect();
    await a.server.close();

    const b = await open();
    try {
      for (let k = 0; k < 30; k++)
        expect(await b.redis.scard(`s${k}`)).toBe(k === 0 ? 61 : k === 1 ? 59 : 60);
      expect(await b.redis.sismember('s0', 'after')).toBe(1);
      expect(await b.redis.sismember('s1', 'm1:0')).toBe(0);
      await b.redis.select(4);
      expect(await b.redis.smembers('in-db4')).toEqual(['1', '2']);
    } finally {
      b.redis.disconnect();
      await b.server.close();
    }
  });
});
