import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Prng } from '@strata/io';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RespServer } from '../../src/server/resp-server.js';
import { blocked, openOnDir, until } from '../support/collection-helpers.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Sorted sets and lists through ioredis and node-redis (RESP2 and RESP3),
 * on a server whose stores keep 4 pages of log (256 KiB) and 128 KiB of
 * decoded collections in memory: most collections are evicted to disk and
 * read back while the randomized runs go on; checked against simple models.
 *
 * The pages are 64 KiB, not SMALL_STORE's 16 KiB: on 16 KiB pages hlog
 * currently loses records rewritten with values of 2-4 KiB (a known hlog
 * bug, reproduced without collections; these collections are that size).
 */
const STORE = { memory: 256 * 1024, pageSize: 64 * 1024, indexBuckets: 1024 } as const;
let t: TestServer;
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'strata-zl-'));
  const server = new RespServer({
    databases: { dir, store: { ...STORE, checkpointOnClose: false } },
  });
  const { port } = await server.listen(0);
  t = {
    server,
    port,
    dir,
    async stop() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
afterAll(async () => {
  await t.stop();
});

async function io(db = 0): Promise<Redis> {
  const r = new Redis({ port: t.port, host: '127.0.0.1', db, lazyConnect: true });
  await r.connect();
  return r;
}

type Pair = [string, number];
const byScore = (a: Pair, b: Pair) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

describe('sorted sets against a sorted array model, evicted to disk (ioredis)', () => {
  test('random ZADD/ZINCRBY/ZREM/ZPOP/ZREMRANGEBYRANK with range and rank reads', async () => {
    const r = await io(1);
    const rand = new Prng(77);
    const pick = (n: number) => Math.floor(rand.next() * n);
    const KEYS = 30;
    const model = new Map<string, Map<string, number>>();
    const sorted = (k: string): Pair[] => [...(model.get(k) ?? new Map())].sort(byScore);
    const flat = (ps: Pair[]) => ps.flatMap(([m, s]) => [m, String(s)]);
    // Start every key with 150 members: past the listpack, past the cache budget.
    for (let k = 0; k < KEYS; k++) {
      const key = `z:${k}`;
      const args: (string | number)[] = [];
      const m = new Map<string, number>();
      for (let i = 0; i < 150; i++) {
        const s = pick(1000);
        args.push(s, `m${i}`);
        m.set(`m${i}`, s);
      }
      expect(await r.zadd(key, ...args)).toBe(150);
      model.set(key, m);
    }
    for (let step = 0; step < 1500; step++) {
      const key = `z:${pick(KEYS)}`;
      const m = model.get(key) ?? new Map<string, number>();
      model.set(key, m);
      const member = `m${pick(220)}`;
      const op = pick(10);
      if (op < 3) {
        const s = pick(1000) / 2;
        const added = await r.zadd(key, s, member);
        expect(added).toBe(m.has(member) ? 0 : 1);
        m.set(member, s);
      } else if (op === 3) {
        const by = pick(20) - 10;
        const got = await r.zincrby(key, by, member);
        m.set(member, (m.get(member) ?? 0) + by);
        expect(Number(got)).toBe(m.get(member));
      } else if (op === 4) {
        expect(await r.zrem(key, member)).toBe(m.delete(member) ? 1 : 0);
      } else if (op === 5) {
        const want = sorted(key);
        const start = pick(want.length + 5) - 2;
        const stop = start + pick(20);
        const norm = (i: number) => (i < 0 ? Math.max(0, want.length + i) : i);
        expect(await r.zrange(key, start, stop, 'WITHSCORES')).toEqual(
          flat(want.slice(norm(start), stop < 0 ? want.length + stop + 1 : stop + 1)),
        );
      } else if (op === 6) {
        const lo = pick(500);
        const hi = lo + pick(200);
        const want = sorted(key).filter(([, s]) => s > lo && s <= hi);
        expect(await r.zrangebyscore(key, `(${lo}`, hi)).toEqual(want.map((p) => p[0]));
        expect(await r.zcount(key, `(${lo}`, hi)).toBe(want.length);
        expect(await r.zrevrangebyscore(key, hi, `(${lo}`, 'LIMIT', 1, 3)).toEqual(
          want
            .reverse()
            .slice(1, 4)
            .map((p) => p[0]),
        );
      } else if (op === 7) {
        const want = sorted(key);
        const i = want.findIndex((p) => p[0] === member);
        expect(await r.zrank(key, member)).toBe(i === -1 ? null : i);
        expect(await r.zscore(key, member)).toBe(i === -1 ? null : String(m.get(member)));
        expect(await r.zcard(key)).toBe(want.length);
      } else if (op === 8) {
        const want = sorted(key);
        const n = pick(3) + 1;
        const got = await r.zpopmin(key, n);
        expect(got).toEqual(flat(want.slice(0, n)));
        for (const [mm] of want.slice(0, n)) m.delete(mm);
      } else {
        const want = sorted(key);
        const removed = await r.zremrangebyrank(key, -3, -1);
        expect(removed).toBe(Math.min(3, want.length));
        for (const [mm] of want.slice(-3)) m.delete(mm);
      }
    }
    for (let k = 0; k < KEYS; k++) {
      const key = `z:${k}`;
      const want = sorted(key);
      expect(await r.zrange(key, 0, -1, 'WITHSCORES')).toEqual(flat(want));
      expect(await r.exists(key)).toBe(want.length > 0 ? 1 : 0);
    }
    const stats = t.server.keyspace.collections(1)!.stats();
    expect(stats.evictions).toBeGreaterThan(0);
    expect(stats.loads).toBeGreaterThan(0);
    r.disconnect();
  });
});

describe('lists against an array model, evicted to disk (ioredis)', () => {
  test('random pushes, pops, LSET, LINSERT, LREM, LTRIM, LMOVE with LRANGE/LINDEX/LPOS reads', async () => {
    const r = await io(2);
    const rand = new Prng(5);
    const pick = (n: number) => Math.floor(rand.next() * n);
    const KEYS = 25;
    const model = new Map<string, string[]>();
    const get = (k: string) => model.get(k) ?? [];
    const set = (k: string, v: string[]) => {
      if (v.length === 0) model.delete(k);
      else model.set(k, v);
    };
    for (let k = 0; k < KEYS; k++) {
      const vals = Array.from({ length: 200 }, (_, i) => `v${i % 17}-${'x'.repeat(i % 9)}`);
      expect(await r.rpush(`l:${k}`, ...vals)).toBe(200);
      model.set(`l:${k}`, vals);
    }
    for (let step = 0; step < 1500; step++) {
      const key = `l:${pick(KEYS)}`;
      const l = get(key);
      const v = `v${pick(17)}-`;
      const op = pick(11);
      if (op === 0) {
        expect(await r.lpush(key, v, 'w')).toBe(l.length + 2);
        set(key, ['w', v, ...l]);
      } else if (op === 1) {
        expect(await r.rpush(key, v)).toBe(l.length + 1);
        set(key, [...l, v]);
      } else if (op === 2) {
        const n = pick(4);
        const got = n === 0 ? await r.lpop(key) : await r.lpop(key, n);
        if (n === 0) expect(got).toBe(l[0] ?? null);
        else expect(got).toEqual(l.length === 0 ? null : l.slice(0, n));
        set(key, l.slice(n === 0 ? 1 : n));
      } else if (op === 3) {
        expect(await r.rpop(key)).toBe(l.at(-1) ?? null);
        set(key, l.slice(0, -1));
      } else if (op === 4 && l.length > 0) {
        const i = pick(l.length);
        expect(await r.lset(key, i, v)).toBe('OK');
        l[i] = v;
      } else if (op === 5 && l.length > 0) {
        const pivot = l[pick(l.length)]!;
        expect(await r.linsert(key, 'BEFORE', pivot, 'ins')).toBe(l.length + 1);
        l.splice(l.indexOf(pivot), 0, 'ins');
      } else if (op === 6) {
        const removed = await r.lrem(key, -2, v);
        let n = 0;
        const kept = [...l]
          .reverse()
          .filter((x) => !(x === v && n < 2 && ++n))
          .reverse();
        expect(removed).toBe(n);
        set(key, kept);
      } else if (op === 7 && pick(10) === 0) {
        expect(await r.ltrim(key, 2, -3)).toBe('OK');
        set(key, l.slice(2, Math.max(2, l.length - 2)));
      } else if (op === 8) {
        const other = `l:${pick(KEYS)}`;
        const got = await r.lmove(key, other, 'LEFT', 'RIGHT');
        expect(got).toBe(l[0] ?? null);
        if (l.length > 0) {
          const x = l.shift()!;
          set(key, l);
          set(other, [...get(other), x]);
        }
      } else if (op === 9) {
        const start = pick(300) - 50;
        const stop = start + pick(40);
        const n = l.length;
        const s = start < 0 ? Math.max(0, n + start) : start;
        const e = stop < 0 ? n + stop : Math.min(stop, n - 1);
        expect(await r.lrange(key, start, stop)).toEqual(s > e ? [] : l.slice(s, e + 1));
        const i = pick(n + 2) - 1;
        expect(await r.lindex(key, i)).toBe(l.at(i) ?? null);
      } else {
        const idx = l.indexOf(v);
        expect(await r.lpos(key, v)).toBe(idx === -1 ? null : idx);
        expect(await r.llen(key)).toBe(l.length);
      }
    }
    for (let k = 0; k < KEYS; k++) {
      expect(await r.lrange(`l:${k}`, 0, -1)).toEqual(get(`l:${k}`));
    }
    expect(t.server.keyspace.collections(2)!.stats().evictions).toBeGreaterThan(0);
    r.disconnect();
  });
});

describe('reply shapes (node-redis, RESP2 and RESP3)', () => {
  for (const RESP of [2, 3] as const) {
    test(`RESP${RESP}`, async () => {
      const c = createClient({ url: `redis://127.0.0.1:${t.port}/4`, RESP });
      await c.connect();
      try {
        const k = `shape${RESP}`;
        await c.sendCommand(['ZADD', k, '1.5', 'a', '2', 'b', '-inf', 'c']);
        const withScores = await c.sendCommand(['ZRANGE', k, '0', '-1', 'WITHSCORES']);
        if (RESP === 2) expect(withScores).toEqual(['c', '-inf', 'a', '1.5', 'b', '2']);
        else
          expect(withScores).toEqual([
            ['c', Number.NEGATIVE_INFINITY],
            ['a', 1.5],
            ['b', 2],
          ]);
        expect(await c.sendCommand(['ZSCORE', k, 'a'])).toBe(RESP === 2 ? '1.5' : 1.5);
        expect(await c.sendCommand(['ZPOPMAX', k])).toEqual(RESP === 2 ? ['b', '2'] : ['b', 2]);
        expect(await c.sendCommand(['ZPOPMAX', k, '1'])).toEqual(
          RESP === 2 ? ['a', '1.5'] : [['a', 1.5]],
        );
        expect(await c.sendCommand(['ZRANK', k, 'c'])).toBe(0);
        await c.sendCommand(['RPUSH', `l${k}`, 'x', 'y']);
        expect(await c.sendCommand(['LMPOP', '1', `l${k}`, 'LEFT', 'COUNT', '5'])).toEqual([
          `l${k}`,
          ['x', 'y'],
        ]);
        expect(await c.sendCommand(['LPOP', `l${k}`, '2'])).toBeNull();
        expect(await c.sendCommand(['OBJECT', 'ENCODING', k])).toBe('listpack');
        await c.sendCommand(['ZADD', k, '1', 'x'.repeat(65)]);
        expect(await c.sendCommand(['OBJECT', 'ENCODING', k])).toBe('skiplist');
        expect(await c.sendCommand(['TYPE', k])).toBe('zset');
      } finally {
        await c.quit();
      }
    });
  }
});

describe('ZSCAN', () => {
  test('returns every member present for the whole iteration while members are removed and added', async () => {
    const r = await io(3);
    const n = 2000;
    await r.zadd('scan', ...Array.from({ length: n }, (_, i) => [i % 50, `m${i}`]).flat());
    const seen = new Set<string>();
    let cursor = '0';
    let calls = 0;
    do {
      const [next, items] = await r.zscan('scan', cursor, 'COUNT', 25);
      for (let i = 0; i < items.length; i += 2) seen.add(items[i]!);
      // Remove what was returned (the usual scan-and-delete loop) and add new members.
      const returned = items.filter((_, i) => i % 2 === 0);
      if (returned.length > 0) await r.zrem('scan', ...returned);
      await r.zadd('scan', 25, `new${calls}`);
      cursor = next;
      calls++;
    } while (cursor !== '0' && calls < 10_000);
    for (let i = 0; i < n; i++) expect(seen.has(`m${i}`)).toBe(true);
    await r.zadd('scan', 1, 'tail1', 2, 'tail2', 3, 'other');
    const [, matched] = (await r.call(
      'ZSCAN',
      'scan',
      '0',
      'MATCH',
      'tail*',
      'COUNT',
      '10000',
      'NOSCORES',
    )) as [string, string[]];
    expect(matched).toEqual(['tail1', 'tail2']);
    r.disconnect();
  });
});

describe('blocking pops', () => {
  test('clients blocked on a key are served in the order they blocked, then time out', async () => {
    const [a, b, c, pusher] = await Promise.all([io(5), io(5), io(5), io(5)]);
    const first = a.blpop('q', 'q2', 0);
    await until(async () => (await blocked(pusher)) === 1);
    const second = b.brpop('q', 0);
    await until(async () => (await blocked(pusher)) === 2);
    const third = c.blpop('q', 0.3);
    await until(async () => (await blocked(pusher)) === 3);
    // One push of two: the two oldest get one each, the third goes on waiting.
    expect(await pusher.rpush('q', 'x', 'y')).toBe(2);
    expect(await first).toEqual(['q', 'x']);
    expect(await second).toEqual(['q', 'y']);
    expect(await third).toBeNull();
    expect(await blocked(pusher)).toBe(0);
    expect(await pusher.exists('q')).toBe(0);
    // A push then a pop in one MULTI: blocked clients are served after EXEC
    // (as Redis 7), so the pop takes the element and the client waits on.
    const waiting = a.blpop('q3', 0);
    await until(async () => (await blocked(pusher)) === 1);
    const [pushed, popped] = (await pusher.multi().lpush('q3', 'only').lpop('q3').exec())!;
    expect(pushed).toEqual([null, 1]);
    expect(popped).toEqual([null, 'only']);
    expect(await blocked(pusher)).toBe(1);
    await pusher.lpush('q3', 'next');
    expect(await waiting).toEqual(['q3', 'next']);
    for (const x of [a, b, c, pusher]) x.disconnect();
  });

  test('BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN and BZPOPMAX are woken by pushes', async () => {
    const [a, b, pusher] = await Promise.all([io(6), io(6), io(6)]);
    const move = a.blmove('src', 'dst', 'LEFT', 'RIGHT', 0);
    const zmin = b.bzpopmin('zq', 'zq2', 0);
    await until(async () => (await blocked(pusher)) === 2);
    await pusher.rpush('src', 'e1', 'e2');
    expect(await move).toBe('e1');
    await pusher.zadd('zq2', 5, 'five', 3, 'three');
    expect(await zmin).toEqual(['zq2', 'three', '3']);
    expect(await pusher.lrange('dst', 0, -1)).toEqual(['e1']);
    // A BLMOVE's push serves a client blocked on its destination.
    const chained = b.blpop('dst2', 0);
    const rp = a.brpoplpush('src2', 'dst2', 0);
    await until(async () => (await blocked(pusher)) === 2);
    await pusher.lpush('src2', 'hop');
    expect(await rp).toBe('hop');
    expect(await chained).toEqual(['dst2', 'hop']);
    const mpop = a.call('BLMPOP', '0', '2', 'm1', 'm2', 'RIGHT', 'COUNT', '2');
    const zmax = b.bzpopmax('zq3', 0);
    await until(async () => (await blocked(pusher)) === 2);
    await pusher.rpush('m2', '1', '2', '3');
    expect(await mpop).toEqual(['m2', ['3', '2']]);
    await pusher.zadd('zq3', 1, 'a', 9, 'z');
    expect(await zmax).toEqual(['zq3', 'z', '9']);
    expect(await pusher.zrange('zq3', 0, -1)).toEqual(['a']);
    for (const x of [a, b, pusher]) x.disconnect();
  });

  test('timeouts, errors, MULTI and disconnects', async () => {
    const [a, b] = await Promise.all([io(7), io(7)]);
    const started = Date.now();
    expect(await a.blpop('none', 0.2)).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    // Past setTimeout's 2^31 - 1 ms: still blocked a moment later, served by a push.
    const long = a.blpop('lt', 3_000_000);
    await until(async () => (await blocked(b)) === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(await blocked(b)).toBe(1);
    await b.rpush('lt', 'late');
    expect(await long).toEqual(['lt', 'late']);
    await expect(a.blpop('none', -1)).rejects.toThrow('ERR timeout is negative');
    await expect(a.blpop('none', 'x')).rejects.toThrow(
      'ERR timeout is not a float or out of range',
    );
    await a.set('str', 'v');
    await expect(a.blpop('str', 0)).rejects.toThrow('WRONGTYPE');
    // Inside MULTI nothing blocks.
    const res = await a.multi().blpop('none', 0).brpoplpush('none', 'x', 0).exec();
    expect(res).toEqual([
      [null, null],
      [null, null],
    ]);
    // A client that disconnects while blocked is no longer counted, and takes nothing.
    const gone = await io(7);
    void gone.blpop('dq', 0).catch(() => undefined);
    await until(async () => (await blocked(b)) === 1);
    gone.disconnect();
    await until(async () => (await blocked(b)) === 0);
    await b.rpush('dq', 'kept');
    expect(await b.lrange('dq', 0, -1)).toEqual(['kept']);
    a.disconnect();
    b.disconnect();
  });
});

describe('restart', () => {
  test('sorted sets and lists come back after close and reopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-zl-'));
    try {
      const open = async () => {
        const { server, redis } = await openOnDir(dir);
        return { s: server, r: redis };
      };
      let { s, r } = await open();
      for (let k = 0; k < 20; k++) {
        await r.zadd(`z${k}`, ...Array.from({ length: 300 }, (_, i) => [i, `m${i}`]).flat());
        await r.rpush(`l${k}`, ...Array.from({ length: 300 }, (_, i) => `e${i}`));
      }
      await r.zincrby('z0', 1000, 'm0');
      await r.lset('l0', 0, 'first');
      r.disconnect();
      await s.close();
      ({ s, r } = await open());
      expect(await r.zcard('z19')).toBe(300);
      expect(await r.zrevrange('z0', 0, 0, 'WITHSCORES')).toEqual(['m0', '1000']);
      expect(await r.zrangebyscore('z7', 10, 12)).toEqual(['m10', 'm11', 'm12']);
      expect(await r.lrange('l0', 0, 1)).toEqual(['first', 'e1']);
      expect(await r.lindex('l19', -1)).toBe('e299');
      expect(await r.type('l3')).toBe('list');
      r.disconnect();
      await s.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
