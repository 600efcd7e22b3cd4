import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { StrataProcess, tempDir } from '../test/strata-process.js';

// SWAPDB on strata-server as a real process: the swap is recorded in
// <dir>/databases.json (the same record as @strata/resp's storeDatabases),
// so a restart, clean or after SIGKILL, opens each index on the other's data.

const SMALL = ['--memory', '64kb', '--page-size', '16kb', '--index-size', '1kb'];

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir('strata-swapdb-test-');
});
afterEach(() => {
  StrataProcess.killAll();
});
afterAll(async () => {
  await tmp.remove();
});

async function connect(port: number, db: number): Promise<Redis> {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    db,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  await r.connect();
  return r;
}

test('SWAPDB survives a clean restart and a SIGKILL', async () => {
  const dir = join(tmp.path, 'data');
  const args = ['--port', '0', '--dir', dir, ...SMALL];
  const a = await StrataProcess.start(args);
  let c0 = await connect(a.port, 0);
  let c1 = await connect(a.port, 1);
  await c0.set('where', 'was-0');
  await c0.hset('h', 'f', 'in-0');
  for (let i = 0; i < 300; i++) await c0.set(`k:${i}`, `${i}`.padEnd(100, '.')); // most on disk
  await c1.set('where', 'was-1');
  await c1.sadd('s', 'in-1');
  expect(await c0.swapdb(0, 1)).toBe('OK');
  expect(await c0.get('where')).toBe('was-1');
  c0.disconnect();
  c1.disconnect();
  expect((await a.process.stop('SIGTERM')).code).toBe(0);

  const b = await StrataProcess.start(args);
  c0 = await connect(b.port, 0);
  c1 = await connect(b.port, 1);
  expect(await c0.get('where')).toBe('was-1');
  expect(await c0.smembers('s')).toEqual(['in-1']);
  expect(await c0.exists('h', 'k:0')).toBe(0);
  expect(await c1.get('where')).toBe('was-0');
  expect(await c1.hgetall('h')).toEqual({ f: 'in-0' });
  expect(await c1.get('k:299')).toBe('299'.padEnd(100, '.'));
  expect(await c1.dbsize()).toBe(302);
  // Swapped back, then killed: the record is on disk before SWAPDB replies.
  await c0.save();
  expect(await c0.swapdb(1, 0)).toBe('OK');
  c0.disconnect();
  c1.disconnect();
  await b.process.stop('SIGKILL');

  const c = await StrataProcess.start(args);
  c0 = await connect(c.port, 0);
  c1 = await connect(c.port, 1);
  expect(await c0.get('where')).toBe('was-0');
  expect(await c0.hget('h', 'f')).toBe('in-0');
  expect(await c1.get('where')).toBe('was-1');
  expect(await c1.sismember('s', 'in-1')).toBe(1);
  c0.disconnect();
  c1.disconnect();
  expect((await c.process.stop('SIGTERM')).code).toBe(0);
});

test('SWAPDB is refused while appendonly is yes', async () => {
  const dir = join(tmp.path, 'aof');
  const a = await StrataProcess.start([
    '--port',
    '0',
    '--dir',
    dir,
    '--appendonly',
    'yes',
    ...SMALL,
  ]);
  const c0 = await connect(a.port, 0);
  await expect(c0.swapdb(0, 1)).rejects.toThrow(
    'ERR SWAPDB is not supported while appendonly is yes',
  );
  c0.disconnect();
  expect((await a.process.stop('SIGTERM')).code).toBe(0);
});
