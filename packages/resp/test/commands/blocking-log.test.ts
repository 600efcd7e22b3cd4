import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CommandLog } from '../../src/server/command-log.js';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * What the command log (an AOF) receives for blocking pops: a pop served
 * by a push is logged right after the push, as its non-blocking form; the
 * blocked command itself logs nothing, nor does a timeout.
 */
const logged: string[] = [];
const log: CommandLog = {
  append(db, argv) {
    logged.push(`${db} ${argv.map((a) => a.toString('latin1')).join(' ')}`);
    return undefined;
  },
};

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ commandLog: log });
});
afterAll(async () => {
  await t.stop();
});

test('pops served by pushes are logged after the push; timeouts log nothing', async () => {
  const [a, b, pusher] = [0, 1, 2].map(
    () => new Redis({ port: t.port, host: '127.0.0.1', db: 3 }),
  ) as [Redis, Redis, Redis];
  const blocked = async (n: number) => {
    for (let i = 0; i < 500; i++) {
      const info = await pusher.info('clients');
      if (Number(/blocked_clients:(\d+)/.exec(info)![1]) === n) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('not blocked');
  };
  await pusher.select(3);
  const popped = a.blpop('q', 0);
  const moved = b.blmove('src', 'dst', 'RIGHT', 'LEFT', 0);
  await blocked(2);
  await pusher.rpush('q', 'x', 'y');
  expect(await popped).toEqual(['q', 'x']);
  await pusher.zadd('z', 1, 'm');
  await pusher.lpush('src', 'e');
  expect(await moved).toBe('e');
  expect(await a.blpop('q', 0)).toEqual(['q', 'y']);
  expect(await a.bzpopmin('nothing', 0.05)).toBeNull();
  expect(await a.bzpopmax('z', 0)).toEqual(['z', 'm', '1']);
  expect(logged.filter((l) => !l.endsWith('SELECT 3'))).toEqual([
    '3 rpush q x y',
    '3 LPOP q',
    '3 zadd z 1 m',
    '3 lpush src e',
    '3 LMOVE src dst RIGHT LEFT',
    '3 LPOP q',
    '3 ZPOPMAX z',
  ]);
  for (const c of [a, b, pusher]) c.disconnect();
});
