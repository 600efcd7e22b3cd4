import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RespServer } from '../../src/server/resp-server.js';
import { SMALL_STORE } from '../support/test-server.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-swapdb-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<{ server: RespServer; a: Redis; b: Redis }> {
  const server = new RespServer({ databases: { dir, store: SMALL_STORE } });
  const { port } = await server.listen(0);
  return {
    server,
    a: new Redis({ port, host: '127.0.0.1', db: 0 }),
    b: new Redis({ port, host: '127.0.0.1', db: 1 }),
  };
}

test('SWAPDB trades the data (strings and cached collections) of two databases, and a restart keeps it', async () => {
  const s = await open();
  await s.a.set('where', 'was-0');
  await s.a.hset('h', 'f', 'cached-in-0'); // dirty in db 0's cache
  await s.b.set('where', 'was-1');
  await s.b.sadd('only-in-1', 'm');
  expect(await s.a.swapdb(0, 1)).toBe('OK');
  // Each client keeps its index and sees the other data now.
  expect(await s.a.get('where')).toBe('was-1');
  expect(await s.b.get('where')).toBe('was-0');
  expect(await s.b.hget('h', 'f')).toBe('cached-in-0');
  expect(await s.a.exists('h')).toBe(0);
  expect(await s.a.smembers('only-in-1')).toEqual(['m']);
  await s.b.hset('h', 'g', 'after-swap');
  // Errors as Redis 7.
  await expect(s.a.call('SWAPDB', 'x', '1')).rejects.toThrow('ERR invalid first DB index');
  await expect(s.a.call('SWAPDB', '1', 'y')).rejects.toThrow('ERR invalid second DB index');
  await expect(s.a.call('SWAPDB', '0', '16')).rejects.toThrow('ERR DB index is out of range');
  expect(await s.a.call('SWAPDB', '3', '3')).toBe('OK');
  s.a.disconnect();
  s.b.disconnect();
  await s.server.close();

  const r = await open();
  try {
    expect(await r.a.get('where')).toBe('was-1');
    expect(await r.b.hgetall('h')).toEqual({ f: 'cached-in-0', g: 'after-swap' });
    // Swapping back returns every database to its own directory.
    expect(await r.a.swapdb(1, 0)).toBe('OK');
    expect(await r.a.get('where')).toBe('was-0');
    expect(await r.a.call('FLUSHDB')).toBe('OK');
    expect(await r.b.get('where')).toBe('was-1');
    expect(await r.a.exists('h')).toBe(0);
  } finally {
    r.a.disconnect();
    r.b.disconnect();
    await r.server.close();
  }
});
