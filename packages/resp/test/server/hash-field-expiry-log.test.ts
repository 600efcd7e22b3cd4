import { Redis } from 'ioredis';
import { afterEach, expect, test } from 'vitest';
import type { CommandLog } from '../../src/server/command-log.js';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * The command-log forms of the hash field-expiry commands, as Redis 8
 * propagates them: absolute times (HPEXPIREAT, HSETEX PXAT), only the
 * fields a command changed, HDEL for fields a past time deleted, nothing
 * for a command that changed nothing; HINCRBYFLOAT as HSETEX KEEPTTL.
 */

class RecordingLog implements CommandLog {
  readonly entries: string[] = [];
  append(_db: number, argv: readonly Buffer[]): undefined {
    // Lower case: a form passed through keeps the client's spelling.
    this.entries.push(
      argv
        .map((b) => b.toString())
        .join(' ')
        .toLowerCase(),
    );
    return undefined;
  }
}

let t: TestServer | null = null;
let r: Redis | null = null;
afterEach(async () => {
  r?.disconnect();
  await t?.stop();
  t = null;
  r = null;
});

test('field-expiry writes are logged in absolute time, with only what they changed', async () => {
  const log = new RecordingLog();
  t = await startServer({ commandLog: log });
  r = new Redis({ port: t.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
  await r.hset('h', 'a', '1', 'b', '2', 'c', '3');
  const before = Date.now();
  expect(await r.call('hexpire', 'h', '100', 'FIELDS', '3', 'a', 'x', 'b')).toEqual([1, -2, 1]);
  expect(await r.call('hexpire', 'h', '200', 'NX', 'FIELDS', '1', 'a')).toEqual([0]);
  expect(await r.call('hpexpireat', 'h', '1', 'FIELDS', '1', 'c')).toEqual([2]);
  expect(await r.call('hpersist', 'h', 'FIELDS', '1', 'x')).toEqual([-2]);
  expect(await r.call('hpersist', 'h', 'FIELDS', '1', 'b')).toEqual([1]);
  expect(await r.call('hgetex', 'h', 'EX', '50', 'FIELDS', '1', 'b')).toEqual(['2']);
  expect(await r.call('hgetex', 'h', 'PERSIST', 'FIELDS', '1', 'b')).toEqual(['2']);
  expect(await r.call('hgetex', 'h', 'FIELDS', '1', 'b')).toEqual(['2']);
  expect(await r.call('hsetex', 'h', 'EX', '30', 'FIELDS', '1', 'd', '4')).toBe(1);
  expect(await r.call('hsetex', 'h', 'KEEPTTL', 'FIELDS', '1', 'd', '5')).toBe(1);
  expect(await r.call('hsetex', 'h', 'FNX', 'FIELDS', '1', 'd', '6')).toBe(0);
  expect(await r.call('hgetdel', 'h', 'FIELDS', '2', 'd', 'x')).toEqual(['5', null]);
  expect(await r.hincrbyfloat('h', 'a', '0.5')).toBe('1.5');
  const after = Date.now();
  const [, e1, e2, e3, e4, e5, e6, e7, e8, e9] = log.entries;
  expect(log.entries[0]).toBe('hset h a 1 b 2 c 3');
  const at = (s: string, i: number) => Number(s.split(' ')[i]);
  expect(e1).toMatch(/^hpexpireat h \d+ fields 2 a b$/);
  expect(at(e1!, 2)).toBeGreaterThanOrEqual(before + 100_000);
  expect(at(e1!, 2)).toBeLessThanOrEqual(after + 100_000);
  expect(e2).toBe('hdel h c');
  expect(e3).toBe('hpersist h fields 1 b');
  expect(e4).toMatch(/^hpexpireat h \d+ fields 1 b$/);
  expect(at(e4!, 2)).toBeGreaterThanOrEqual(before + 50_000);
  expect(e5).toBe('hpersist h fields 1 b');
  expect(e6).toMatch(/^hsetex h pxat \d+ fields 1 d 4$/);
  expect(at(e6!, 3)).toBeGreaterThanOrEqual(before + 30_000);
  expect(e7).toBe('hsetex h keepttl fields 1 d 5');
  expect(e8).toBe('hdel h d');
  expect(e9).toBe('hsetex h keepttl fields 1 a 1.5');
  expect(log.entries).toHaveLength(10);
});
