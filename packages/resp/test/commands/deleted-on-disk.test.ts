import type { Redis } from 'ioredis';
import { expect, test } from 'vitest';
import { serverWithClient } from '../support/test-server.js';

/**
 * Two-key collection commands whose destination was deleted long ago: its
 * tombstone is on disk, so looking it up reads the disk every time and the
 * cache keeps nothing for it. They used to answer "could not be held in
 * memory together" for ever (BullMQ's RPOPLPUSH wait -> active after an
 * obliterate); the lookup now knows a key found missing stays missing.
 */
const setup = serverWithClient();
const r = (): Redis => setup.client;

test('RPOPLPUSH, LMOVE and SMOVE into a key whose deletion is on disk', async () => {
  await r().rpush('d:list', 'old');
  await r().sadd('d:set', 'old');
  await r().del('d:list', 'd:set');
  for (let i = 0; i < 2000; i++) await r().set(`d:fill:${i}`, 'x'.repeat(100));
  await r().rpush('d:src', 'a', 'b', 'c');
  await r().sadd('d:ssrc', 'm');
  expect(await r().rpoplpush('d:src', 'd:list')).toBe('c');
  await r().del('d:list');
  for (let i = 0; i < 2000; i++) await r().set(`d:fill2:${i}`, 'x'.repeat(100));
  expect(await r().lmove('d:src', 'd:list', 'LEFT', 'RIGHT')).toBe('a');
  expect(await r().smove('d:ssrc', 'd:set', 'm')).toBe(1);
  expect(await r().lrange('d:list', 0, -1)).toEqual(['a']);
  expect(await r().smembers('d:set')).toEqual(['m']);
  expect(
    await r().eval("return redis.call('rpoplpush', KEYS[1], KEYS[2])", 2, 'd:src', 'd:list'),
  ).toBe('b');
});

test('LMPOP and BLPOP past a key whose deletion is on disk, to the next key', async () => {
  await r().rpush('d:gone', 'old');
  await r().del('d:gone');
  for (let i = 0; i < 2000; i++) await r().set(`d:fill3:${i}`, 'x'.repeat(100));
  await r().rpush('d:next', 'a', 'b');
  expect(await r().lmpop(2, 'd:gone', 'd:next', 'LEFT')).toEqual(['d:next', ['a']]);
  expect(await r().blpop('d:gone', 'd:next', 1)).toEqual(['d:next', 'b']);
});
