import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RespServer } from '../../src/server/resp-server.js';
import { SMALL_STORE } from '../support/test-server.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-resp-restart-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<{ server: RespServer; redis: Redis }> {
  const server = new RespServer({ databases: { dir, store: SMALL_STORE } });
  const { port } = await server.listen(0);
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  await redis.connect();
  return { server, redis };
}

test('a restart recovers every key of every database, expiries included', async () => {
  const a = await open();
  const pipe = a.redis.pipeline();
  for (let i = 0; i < 2000; i++) pipe.set(`k${i}`, `v${i}`);
  pipe.set('ttl', 'x', 'EX', 1000);
  pipe.select(2).set('in-db2', 'yes').select(0);
  await pipe.exec();
  expect(await a.redis.call('SAVE')).toBe('OK');
  expect(Number(await a.redis.lastsave())).toBeGreaterThan(Date.now() / 1000 - 60);
  expect(await a.redis.bgsave()).toBe('Background saving started');
  await a.redis.set('after-save', '1');
  a.redis.disconnect();
  await a.server.close();

  const b = await open();
  try {
    const gets = b.redis.pipeline();
    for (let i = 0; i < 2000; i++) gets.get(`k${i}`);
    const r = await gets.exec();
    expect(r?.map(([, v]) => v)).toEqual(Array.from({ length: 2000 }, (_, i) => `v${i}`));
    expect(await b.redis.get('after-save')).toBe('1');
    const ttl = await b.redis.ttl('ttl');
    expect(ttl).toBeGreaterThan(990);
    await b.redis.select(2);
    expect(await b.redis.get('in-db2')).toBe('yes');
  } finally {
    b.redis.disconnect();
    await b.server.close();
  }
});

test('CONFIG GET / SET / RESETSTAT', async () => {
  const a = await open();
  try {
    expect(await a.redis.config('GET', 'maxclients')).toEqual(['maxclients', '10000']);
    expect(await a.redis.config('GET', 'save')).toEqual(['save', '']);
    const all = (await a.redis.config('GET', '*')) as string[];
    expect(all).toContain('proto-max-bulk-len');
    expect(await a.redis.config('SET', 'maxclients', '5')).toBe('OK');
    expect(await a.redis.config('GET', 'maxc*')).toEqual(['maxclients', '5']);
    await expect(a.redis.config('SET', 'maxclients', 'x')).rejects.toThrow(
      "ERR CONFIG SET failed (possibly related to argument 'maxclients')",
    );
    await expect(a.redis.config('SET', 'nope', '1')).rejects.toThrow(
      "ERR Unknown option or number of arguments for CONFIG SET - 'nope'",
    );
    await expect(a.redis.config('SET', 'databases', '3')).rejects.toThrow(
      "can't set immutable config",
    );
    expect(await a.redis.config('SET', 'requirepass', 'pw')).toBe('OK');
    // This connection stays authenticated; new ones must AUTH.
    expect(await a.redis.ping()).toBe('PONG');
    const fresh = new Redis({
      port: a.server.address().port,
      lazyConnect: true,
      enableReadyCheck: false,
    });
    await fresh.connect();
    await expect(fresh.get('x')).rejects.toThrow('NOAUTH');
    expect(await fresh.auth('pw')).toBe('OK');
    fresh.disconnect();
    expect(await a.redis.config('RESETSTAT')).toBe('OK');
  } finally {
    a.redis.disconnect();
    await a.server.close();
  }
});
