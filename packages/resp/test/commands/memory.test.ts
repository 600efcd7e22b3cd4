import type { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { serverWithClient } from '../support/test-server.js';

/**
 * MEMORY through ioredis, on a server whose stores keep 64 KiB of log in
 * memory (the first keys below are on disk by the time they are measured).
 * The numbers are strata's own (the record in the log, or the collection
 * cache's charge), so they are checked for what they must satisfy; the
 * errors are Redis 7's, word for word.
 */
const setup = serverWithClient();
const r = (): Redis => setup.client;

describe('MEMORY', () => {
  test('USAGE: a string is its record and index entry, in memory or on disk; nil when missing', async () => {
    await r().set('m:small', 'v');
    await r().set('m:big', 'x'.repeat(10_000));
    await r().set('m:ttl', 'v', 'EX', 100);
    for (let i = 0; i < 2000; i++) await r().set(`m:fill:${i}`, 'y'.repeat(100));
    const small = (await r().call('MEMORY', 'USAGE', 'm:small')) as number;
    const big = (await r().call('MEMORY', 'USAGE', 'm:big')) as number;
    const ttl = (await r().call('MEMORY', 'USAGE', 'm:ttl')) as number;
    expect(small).toBeGreaterThan('m:small'.length + 1);
    expect(big).toBeGreaterThanOrEqual(10_000 + 'm:big'.length);
    expect(big - small).toBeLessThan(10_100);
    expect(ttl).toBeGreaterThan((await r().call('MEMORY', 'USAGE', 'm:small')) as number);
    expect(await r().call('MEMORY', 'USAGE', 'm:fill:1999')).toBe(small + 8 * 13);
    expect(await r().call('MEMORY', 'USAGE', 'm:nope')).toBeNull();
    expect(await r().call('MEMORY', 'USAGE', 'm:big', 'SAMPLES', '0')).toBe(big);
  });

  test('USAGE: a collection is what the cache charges for it, growing with it', async () => {
    await r().rpush('m:list', 'a');
    const one = (await r().call('MEMORY', 'USAGE', 'm:list')) as number;
    await r().rpush('m:list', ...Array.from({ length: 500 }, (_, i) => `element-${i}`));
    const many = (await r().call('MEMORY', 'USAGE', 'm:list')) as number;
    expect(many).toBeGreaterThan(one + 500 * 'element-0'.length);
    await r().hset('m:hash', 'f', 'v');
    expect(await r().call('MEMORY', 'USAGE', 'm:hash')).toBeGreaterThan(0);
  });

  test('errors and the other subcommands, in Redis words', async () => {
    await expect(r().call('MEMORY', 'USAGE', 'm:small', 'SAMPLES', '-1')).rejects.toThrow(
      'ERR syntax error',
    );
    await expect(r().call('MEMORY', 'USAGE', 'm:small', 'foo')).rejects.toThrow('ERR syntax error');
    await expect(r().call('MEMORY', 'USAGE', 'm:small', 'SAMPLES', 'x')).rejects.toThrow(
      'ERR value is not an integer or out of range',
    );
    await expect(r().call('MEMORY', 'USAGE')).rejects.toThrow(
      "ERR wrong number of arguments for 'memory|usage' command",
    );
    await expect(r().call('MEMORY', 'FOO')).rejects.toThrow(
      "ERR unknown subcommand 'FOO'. Try MEMORY HELP.",
    );
    expect(await r().call('MEMORY', 'PURGE')).toBe('OK');
    expect(await r().call('MEMORY', 'MALLOC-STATS')).toBe(
      'Stats not supported for the current allocator',
    );
    const help = (await r().call('MEMORY', 'HELP')) as string[];
    expect(help[0]).toBe('MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:');
    expect(help).toContain('USAGE <key> [SAMPLES <count>]');
  });
});
