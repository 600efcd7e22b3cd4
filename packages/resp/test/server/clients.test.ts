import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * Real clients against a real server whose stores hold 64 KiB of log in
 * memory: with a few thousand keys nearly all of them live on disk, so
 * most commands here go pending and come back in order.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t.stop();
});

const N = 3000;
const value = (i: number) => `value-${i}-${'x'.repeat(i % 50)}`;

// ioredis 5 speaks RESP2 only (its parser rejects RESP3 types): node-redis
// covers RESP3 below.
describe('ioredis (RESP2)', () => {
  const protocol = 2;
  let r: Redis;
  const p = `io${protocol}:`;
  beforeAll(async () => {
    r = new Redis({ port: t.port, host: '127.0.0.1', lazyConnect: true });
    await r.connect();
  });
  afterAll(async () => {
    r.disconnect();
  });

  test('strings on disk: SET, GET, MGET in a pipeline', async () => {
    const pipe = r.pipeline();
    for (let i = 0; i < N; i++) pipe.set(`${p}k${i}`, value(i));
    const sets = await pipe.exec();
    expect(sets?.every(([e, v]) => e === null && v === 'OK')).toBe(true);
    const before = t.server.keyspace.get(0)!.coreStats().ops.pending ?? 0;
    expect(t.server.keyspace.get(0)!.log.head).toBeGreaterThan(0);

    const get = r.pipeline();
    for (let i = 0; i < N; i++) get.get(`${p}k${i}`);
    const gets = await get.exec();
    expect(gets?.map(([, v]) => v)).toEqual(Array.from({ length: N }, (_, i) => value(i)));
    // Most of those reads went to disk.
    expect((t.server.keyspace.get(0)!.coreStats().ops.pending ?? 0) - before).toBeGreaterThan(
      N / 2,
    );

    const keys = [0, 1, 2500, 17, 999999].map((i) => `${p}k${i}`);
    expect(await r.mget(...keys)).toEqual([value(0), value(1), value(2500), value(17), null]);
  });

  test('counters, append, ranges, expiry', async () => {
    expect(await r.incr(`${p}n`)).toBe(1);
    expect(await r.incrby(`${p}n`, 41)).toBe(42);
    expect(await r.decrby(`${p}n`, 2)).toBe(40);
    expect(await r.incrbyfloat(`${p}f`, '1.5')).toBe('1.5');
    await expect(r.incr(`${p}k3`)).rejects.toThrow('ERR value is not an integer or out of range');
    expect(await r.append(`${p}k0`, '!')).toBe(value(0).length + 1);
    expect(await r.getrange(`${p}k0`, -1, -1)).toBe('!');
    expect(await r.setrange(`${p}k1`, 0, 'V')).toBe(value(1).length);
    expect(await r.get(`${p}k1`)).toBe(`V${value(1).slice(1)}`);
    expect(await r.strlen(`${p}k2`)).toBe(value(2).length);
    expect(await r.expire(`${p}k5`, 100)).toBe(1);
    expect(await r.ttl(`${p}k5`)).toBe(100);
    expect(await r.persist(`${p}k5`)).toBe(1);
    expect(await r.ttl(`${p}k5`)).toBe(-1);
    expect(await r.set(`${p}k6`, 'v', 'PX', 1)).toBe('OK');
    await new Promise((res) => setTimeout(res, 5));
    expect(await r.get(`${p}k6`)).toBeNull();
    expect(await r.getdel(`${p}k7`)).toBe(value(7));
    expect(await r.exists(`${p}k7`, `${p}k8`, `${p}k8`)).toBe(2);
    expect(await r.del(`${p}k8`, `${p}k9`, `${p}k9`, `${p}none`)).toBe(2);
    expect(await r.type(`${p}k10`)).toBe('string');
    expect(await r.type(`${p}k9`)).toBe('none');
    expect(await r.set(`${p}k11`, 'new', 'GET')).toBe(value(11));
    expect(await r.getset(`${p}k11`, 'newer')).toBe('new');
    expect(await r.setnx(`${p}k11`, 'x')).toBe(0);
    expect(await r.msetnx(`${p}k12`, 'x', `${p}fresh`, 'y')).toBe(0);
  });

  test('MULTI/EXEC over keys on disk is atomic and in order', async () => {
    const res = await r
      .multi()
      .set(`${p}t`, '1')
      .incr(`${p}t`)
      .get(`${p}k100`)
      .get(`${p}k200`)
      .exec();
    expect(res).toEqual([
      [null, 'OK'],
      [null, 2],
      [null, value(100)],
      [null, value(200)],
    ]);
  });

  test('connection commands', async () => {
    expect(await r.ping()).toBe('PONG');
    expect(await r.echo('hi')).toBe('hi');
    await r.client('SETNAME', `conn${protocol}`);
    expect(await r.client('GETNAME')).toBe(`conn${protocol}`);
    expect(typeof (await r.client('ID'))).toBe('number');
    const list = String(await r.client('LIST'));
    expect(list).toContain(`name=conn${protocol}`);
    expect(list).toContain('lib-name=ioredis');
    expect(await r.call('COMMAND', 'COUNT')).toBeGreaterThan(40);
    const [seconds] = await r.time();
    expect(Math.abs(Number(seconds) - Date.now() / 1000)).toBeLessThan(5);
    expect(await r.info('server')).toContain('redis_version:');
  });

  test('RENAME, COPY and MOVE of keys on disk keep value and expiry', async () => {
    expect(await r.expire(`${p}k30`, 500)).toBe(1);
    expect(await r.rename(`${p}k30`, `${p}renamed`)).toBe('OK');
    expect(await r.get(`${p}renamed`)).toBe(value(30));
    expect(await r.ttl(`${p}renamed`)).toBe(500);
    expect(await r.exists(`${p}k30`)).toBe(0);
    expect(await r.renamenx(`${p}k31`, `${p}k32`)).toBe(0);
    expect(await r.copy(`${p}k31`, `${p}copied`, 'DB', 1)).toBe(1);
    expect(await r.move(`${p}k32`, 2)).toBe(1);
    expect(await r.exists(`${p}k32`)).toBe(0);
    await r.select(1);
    expect(await r.get(`${p}copied`)).toBe(value(31));
    await r.select(2);
    expect(await r.get(`${p}k32`)).toBe(value(32));
    await r.select(0);
    await expect(r.rename(`${p}missing`, 'x')).rejects.toThrow('ERR no such key');
  });

  test('SELECT keeps databases apart', async () => {
    await r.select(3);
    expect(await r.get(`${p}k20`)).toBeNull();
    await r.set(`${p}k20`, 'db3');
    await r.select(0);
    expect(await r.get(`${p}k20`)).toBe(value(20));
  });
});

async function connectNodeRedis(RESP: 2 | 3) {
  const client = createClient({ socket: { port: t.port, host: '127.0.0.1' }, RESP });
  await client.connect();
  return client;
}

describe.each([2, 3] as const)('node-redis, RESP%i', (RESP) => {
  const p = `nr${RESP}:`;
  let c: Awaited<ReturnType<typeof connectNodeRedis>>;
  beforeAll(async () => {
    c = await connectNodeRedis(RESP);
  });
  afterAll(async () => {
    c.destroy();
  });

  test('strings on disk through a pipeline', async () => {
    const multi = c.multi();
    for (let i = 0; i < N; i++) multi.set(`${p}k${i}`, value(i));
    await multi.execAsPipeline();
    const gets = await Promise.all(Array.from({ length: N }, (_, i) => c.get(`${p}k${i}`)));
    expect(gets).toEqual(Array.from({ length: N }, (_, i) => value(i)));
    expect(await c.mGet([`${p}k1`, `${p}none`, `${p}k2999`])).toEqual([
      value(1),
      null,
      value(2999),
    ]);
  });

  test('options and errors as node-redis sees them', async () => {
    expect(
      await c.set(`${p}a`, '1', { condition: 'NX', expiration: { type: 'EX', value: 100 } }),
    ).toBe('OK');
    expect(await c.set(`${p}a`, '2', { condition: 'NX' })).toBeNull();
    expect(await c.ttl(`${p}a`)).toBe(100);
    expect(await c.incrBy(`${p}a`, 5)).toBe(6);
    expect(await c.getEx(`${p}a`, { type: 'PERSIST' })).toBe('6');
    expect(await c.ttl(`${p}a`)).toBe(-1);
    await expect(c.sendCommand(['SET', `${p}a`, 'v', 'EX', '0'])).rejects.toThrow(
      "ERR invalid expire time in 'set' command",
    );
    await expect(c.sendCommand(['NOPE'])).rejects.toThrow("ERR unknown command 'NOPE'");
    expect(await c.exists([`${p}a`, `${p}k0`])).toBe(2);
    expect(await c.del([`${p}a`, `${p}k0`])).toBe(2);
    expect(await c.pTTL(`${p}k1`)).toBe(-1);
    expect(await c.expire(`${p}k1`, 50, 'NX')).toBe(1);
    expect(await c.expire(`${p}k1`, 40, 'GT')).toBe(0);
    expect(await c.incrByFloat(`${p}f`, 2.5)).toBe('2.5');
  });

  test('transactions and HELLO', async () => {
    const res = await c.multi().set(`${p}t`, 'x').append(`${p}t`, 'y').get(`${p}t`).exec();
    expect(res).toEqual(['OK', 2, 'xy']);
    const hello = await c.hello();
    expect(hello).toMatchObject({ server: 'redis', proto: RESP, mode: 'standalone' });
    expect(await c.clientInfo()).toMatchObject({ libName: 'node-redis' });
  });
});
