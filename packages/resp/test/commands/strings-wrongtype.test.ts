import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';

/**
 * String commands on collection keys whose records are on disk (the store
 * keeps 64 KiB in memory; 400 KiB of strings are written after them), so
 * every read and read-modify-write takes its pending path. The replies of
 * the same commands with the records in memory are checked against
 * redis-server's in the compat cases ('string commands on collection keys').
 */
describe('string commands on collection keys read from disk answer WRONGTYPE', () => {
  let t: TestServer;
  let r: Redis;
  beforeAll(async () => {
    t = await startServer();
    r = new Redis(t.port, '127.0.0.1', { lazyConnect: true });
    await r.connect();
  });
  afterAll(async () => {
    r.disconnect();
    await t.stop();
  });

  test('every string command, the keys left as they were', async () => {
    await r.hset('h', 'f', 'v');
    await r.sadd('s', 'a', 'b');
    await r.set('str', 'abc');
    const filler = 'x'.repeat(1024);
    for (let i = 0; i < 400; i++) await r.set(`fill:${i}`, filler);
    // The string commands read the records, not the collection cache.
    await t.server.keyspace.writeBack(0);
    const commands: string[][] = [
      ['incr', 'h'],
      ['incrby', 'h', '2'],
      ['decr', 's'],
      ['decrby', 's', '2'],
      ['incrbyfloat', 'h', '1.5'],
      ['incrbyfloat', 's', 'x'],
      ['setbit', 'h', '0', '1'],
      ['getbit', 's', '0'],
      ['bitcount', 'h'],
      ['setrange', 'h', '0', 'x'],
      ['getrange', 's', '0', '-1'],
      ['append', 'h', 'x'],
      ['strlen', 's'],
      ['getset', 'h', 'x'],
      ['getdel', 's'],
      ['getex', 'h', 'ex', '10'],
      ['getex', 'h', 'ex', '0'],
      ['get', 's'],
      ['set', 'h', 'x', 'get'],
      ['set', 's', 'x', 'xx', 'get'],
    ];
    for (const argv of commands) {
      await expect(r.call(argv[0]!, ...argv.slice(1)), argv.join(' ')).rejects.toThrow(WRONGTYPE);
    }
    await expect(r.call('lcs', 'str', 'h')).rejects.toThrow(
      'ERR The specified keys must contain string values',
    );
    expect(await r.mget('h', 'str', 's', 'nope')).toEqual([null, 'abc', null, null]);
    expect(await r.type('h')).toBe('hash');
    expect(await r.hgetall('h')).toEqual({ f: 'v' });
    expect(await r.type('s')).toBe('set');
    expect((await r.smembers('s')).sort()).toEqual(['a', 'b']);
    expect(await r.ttl('h')).toBe(-1);
  });
});
