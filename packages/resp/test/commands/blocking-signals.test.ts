import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { CommandLog } from '../../src/server/command-log.js';
import { RespServer } from '../../src/server/resp-server.js';
import { blocked, until } from '../support/collection-helpers.js';

/**
 * Blocked clients (BLPOP, BLMOVE, BZPOPMIN...) against a real RespServer
 * through ioredis, checked against redis-server 7.0's behaviour:
 * - a blocking pop whose key is read from disk is logged as its pop;
 * - RENAME, RENAMENX, COPY, MOVE and SWAPDB into a waited-on key serve the
 *   waiters (Redis signals the key ready), and so does EXEC, after it ends;
 * - serving a blocked client invalidates WATCHes of the keys it changed.
 *
 * The stores keep 4 pages of log and 64 KiB of decoded collections, so a
 * list left alone while others are written ends up on disk only.
 */
const STORE = { memory: 64 * 1024, pageSize: 16 * 1024, indexBuckets: 1024 } as const;

const logged: string[] = [];
const log: CommandLog = {
  append(db, argv) {
    logged.push(`${db} ${argv.map((a) => a.toString('latin1')).join(' ')}`);
    return undefined;
  },
};

let server: RespServer;
let port: number;
let dir: string;
const clients: Redis[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-blocking-'));
  server = new RespServer({
    databases: { dir, store: { ...STORE, checkpointOnClose: false }, collectionMemory: 64 * 1024 },
    commandLog: log,
  });
  ({ port } = await server.listen(0));
});

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  logged.length = 0;
});

async function io(db: number): Promise<Redis> {
  const r = new Redis({ port, host: '127.0.0.1', db, lazyConnect: true });
  await r.connect();
  clients.push(r);
  return r;
}

/** The log without the SELECTs of connecting clients. */
function writes(): string[] {
  return logged.filter((l) => !/ SELECT \d+$/i.test(l));
}

describe('the command log', () => {
  test('a blocking pop whose key is on disk is logged as its pop', async () => {
    const r = await io(2);
    await r.rpush('dq', 'a', 'b');
    await r.rpush('dsrc', 's1');
    await r.zadd('dz', 1, 'one', 2, 'two');
    // Other collections push these out of the cache and their records out of memory.
    const filler = 'f'.repeat(400);
    for (let i = 0; i < 400; i++) await r.rpush(`fill${i}`, filler, filler);
    const collections = server.keyspace.collections(2)!;
    for (const k of ['dq', 'dsrc', 'dz']) expect(collections.peek(Buffer.from(k))).toBeUndefined();
    const store = server.keyspace.get(2)!;
    const before = store.coreStats().ops.pending ?? 0;
    logged.length = 0;
    expect(await r.blpop('nothing', 'dq', 0)).toEqual(['dq', 'a']);
    expect(await r.blmove('dsrc', 'ddst', 'LEFT', 'RIGHT', 0)).toBe('s1');
    expect(await r.bzpopmax('dz', 0)).toEqual(['dz', 'two', '2']);
    expect((store.coreStats().ops.pending ?? 0) - before).toBeGreaterThanOrEqual(3);
    expect(writes()).toEqual(['2 LPOP dq', '2 LMOVE dsrc ddst LEFT RIGHT', '2 ZPOPMAX dz']);
    expect(await r.lrange('dq', 0, -1)).toEqual(['b']);
    expect(await r.lrange('ddst', 0, -1)).toEqual(['s1']);
  });
});

describe('a blocked BLMOVE whose destination is not in memory when the push comes', () => {
  test('is served once the destination is read, and logged after the push', async () => {
    const [w, p] = await Promise.all([io(4), io(4)]);
    await p.rpush('done', 'old');
    const moved = w.blmove('jobs', 'done', 'RIGHT', 'LEFT', 0);
    await until(async () => (await blocked(p)) === 1);
    // Other collections push `done` out of the cache (the BLMOVE loaded it).
    const filler = 'f'.repeat(400);
    for (let i = 0; i < 400; i++) await p.rpush(`fill${i}`, filler, filler);
    expect(server.keyspace.collections(4)!.peek(Buffer.from('done'))).toBeUndefined();
    logged.length = 0;
    await p.lpush('jobs', 'j1');
    expect(await moved).toBe('j1');
    expect(await p.lrange('done', 0, -1)).toEqual(['j1', 'old']);
    expect(await p.llen('jobs')).toBe(0);
    expect(writes()).toEqual(['4 lpush jobs j1', '4 LMOVE jobs done RIGHT LEFT']);
  });
});

describe('keys made ready without a push', () => {
  test('RENAME, RENAMENX and COPY serve the clients blocked on the destination', async () => {
    const [a, b, c, w] = await Promise.all([io(3), io(3), io(3), io(3)]);
    const popped = a.blpop('rk', 0);
    await until(async () => (await blocked(w)) === 1);
    await w.rpush('tmp', 'x', 'y');
    expect(await w.rename('tmp', 'rk')).toBe('OK');
    expect(await popped).toEqual(['rk', 'x']);
    expect(await w.lrange('rk', 0, -1)).toEqual(['y']);

    const zpopped = b.bzpopmin('zk', 0);
    await until(async () => (await blocked(w)) === 1);
    await w.zadd('ztmp', 3, 'c', 1, 'a');
    expect(await w.renamenx('ztmp', 'zk')).toBe(1);
    expect(await zpopped).toEqual(['zk', 'a', '1']);

    const copied = c.brpop('ck', 0);
    await until(async () => (await blocked(w)) === 1);
    await w.rpush('orig', '1', '2');
    expect(await w.copy('orig', 'ck')).toBe(1);
    expect(await copied).toEqual(['ck', '2']);
    expect(await w.lrange('orig', 0, -1)).toEqual(['1', '2']);
    expect(await w.lrange('ck', 0, -1)).toEqual(['1']);
    expect(await blocked(w)).toBe(0);
    // The pops are logged after the command that served them, so a replay matches.
    expect(writes()).toEqual([
      '3 rpush tmp x y',
      '3 rename tmp rk',
      '3 LPOP rk',
      '3 zadd ztmp 3 c 1 a',
      '3 renamenx ztmp zk',
      '3 ZPOPMIN zk',
      '3 rpush orig 1 2',
      '3 copy orig ck',
      '3 RPOP ck',
    ]);
  });

  test('MOVE and COPY DB serve the clients blocked in the other database, logged there', async () => {
    const [a, b, w] = await Promise.all([io(5), io(5), io(4)]);
    const moved = a.blmove('mk', 'mdst', 'LEFT', 'LEFT', 0);
    await until(async () => (await blocked(w)) === 1);
    await w.rpush('mk', 'm1', 'm2');
    expect(await w.move('mk', 5)).toBe(1);
    expect(await moved).toBe('m1');
    expect(await a.lrange('mdst', 0, -1)).toEqual(['m1']);
    expect(await a.lrange('mk', 0, -1)).toEqual(['m2']);

    const copied = b.blpop('cdb', 0);
    await until(async () => (await blocked(w)) === 1);
    await w.rpush('src4', 'c1');
    expect(await w.call('COPY', 'src4', 'cdb', 'DB', '5')).toBe(1);
    expect(await copied).toEqual(['cdb', 'c1']);
    expect(await b.exists('cdb')).toBe(0);
    expect(writes()).toEqual([
      '4 rpush mk m1 m2',
      '4 move mk 5',
      '5 LMOVE mk mdst LEFT LEFT',
      '4 rpush src4 c1',
      '4 COPY src4 cdb DB 5',
      '5 LPOP cdb',
    ]);
  });

  test('SWAPDB serves the clients blocked on keys the swapped-in database holds', async () => {
    const [a, b, w] = await Promise.all([io(6), io(7), io(7)]);
    const fromSeven = a.blpop('sk', 0);
    const fromSix = b.bzpopmax('sz', 0);
    await until(async () => (await blocked(w)) === 2);
    await w.rpush('sk', 'in7');
    await w.select(6);
    await w.zadd('sz', 1, 'in6');
    expect(await w.swapdb(6, 7)).toBe('OK');
    expect(await fromSeven).toEqual(['sk', 'in7']);
    expect(await fromSix).toEqual(['sz', 'in6', '1']);
    expect(await blocked(w)).toBe(0);
    await w.swapdb(6, 7);
  });

  test('a list or sorted set made inside MULTI serves its blocked clients after EXEC', async () => {
    const [a, b, w] = await Promise.all([io(8), io(8), io(8)]);
    const popped = a.blpop('ek', 0);
    const zpopped = b.bzpopmin('ez', 0);
    await until(async () => (await blocked(w)) === 2);
    const res = await w
      .multi()
      .del('ek')
      .lpush('ek', 'a')
      .rpush('ek', 'b')
      .zadd('ez', 2, 'two')
      .llen('ek')
      .exec();
    // The queued commands ran before any blocked client was served.
    expect(res!.map((x) => x[1])).toEqual([0, 1, 2, 1, 2]);
    expect(await popped).toEqual(['ek', 'a']);
    expect(await zpopped).toEqual(['ez', 'two', '2']);
    expect(await w.lrange('ek', 0, -1)).toEqual(['b']);
    // The pops are logged after the transaction (a DEL of nothing is not logged).
    expect(writes()).toEqual([
      '8 MULTI',
      '8 lpush ek a',
      '8 rpush ek b',
      '8 zadd ez 2 two',
      '8 EXEC',
      '8 LPOP ek',
      '8 ZPOPMIN ez',
    ]);

    // RENAME inside MULTI: served after EXEC too.
    const renamed = a.brpop('erk', 0);
    await until(async () => (await blocked(w)) === 1);
    await w.rpush('etmp', 'r1', 'r2');
    const [, [, len]] = (await w.multi().rename('etmp', 'erk').llen('erk').exec()) as [
      unknown,
      [unknown, number],
    ];
    expect(len).toBe(2);
    expect(await renamed).toEqual(['erk', 'r2']);
  });
});

describe('WATCH', () => {
  test('a key changed by serving a blocked client fails the watcher EXEC', async () => {
    const [a, w, pusher] = await Promise.all([io(9), io(9), io(9)]);
    // The BLMOVE destination.
    const moved = a.blmove('wsrc', 'wdst', 'RIGHT', 'LEFT', 0);
    await until(async () => (await blocked(w)) === 1);
    await w.watch('wdst');
    await pusher.rpush('wsrc', 'v');
    expect(await moved).toBe('v');
    expect(await w.multi().set('after', '1').exec()).toBeNull();
    expect(await w.exists('after')).toBe(0);

    // The popped source, made ready by a MOVE from another database.
    const other = await io(10);
    const popped = a.blpop('wq', 0);
    await until(async () => (await blocked(w)) === 1);
    await w.watch('wq');
    await other.rpush('wq', 'from10');
    expect(await other.move('wq', 9)).toBe(1);
    expect(await popped).toEqual(['wq', 'from10']);
    expect(await w.multi().set('after', '2').exec()).toBeNull();

    // An untouched watch still commits.
    await w.watch('unrelated');
    expect(await w.multi().set('after', '3').exec()).toEqual([[null, 'OK']]);
  });
});
