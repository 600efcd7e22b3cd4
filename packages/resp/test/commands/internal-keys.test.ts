import { internalKey } from '@strata/hlog';
import type { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { serverWithClient } from '../support/test-server.js';

/**
 * Strata's own records (a stream's blocks, under hlog's internal keys) share
 * a database's store with the user's keys: no command may name one, and
 * none that counts or lists keys shows one, whether it is in memory or on
 * disk (the test's stores keep 64 KiB of log in memory).
 */
const setup = serverWithClient();
const r = (): Redis => setup.client;

const RESERVED = "ERR keys starting with '\\xff\\x00strata:' are reserved for strata's own records";

describe('internal keys', () => {
  test('are written by the store only and never counted, listed or picked', async () => {
    await r().set('warm', '1');
    const store = setup.server.server.keyspace.get(0)!;
    for (let i = 0; i < 200; i++) {
      await r().set(`user:${i}`, 'v'.repeat(200));
      const w = store.upsert(internalKey(Buffer.from(`block:${i}`)), Buffer.alloc(200, 7), 0);
      if (w.status === 'pending') await w.pending;
    }
    expect(await r().dbsize()).toBe(201);
    expect((await r().keys('*')).length).toBe(201);
    expect(await r().keys('*block*')).toEqual([]);
    let cursor = '0';
    const seen = new Set<string>();
    do {
      const [next, keys] = await r().scan(cursor, 'COUNT', 50);
      for (const k of keys) seen.add(k);
      cursor = next;
    } while (cursor !== '0');
    expect(seen.size).toBe(201);
    for (let i = 0; i < 50; i++) expect((await r().randomkey())?.startsWith('\xff')).toBe(false);
    expect(await r().info('keyspace')).toContain('db0:keys=201,');
  });

  test('a command naming one is refused before it runs, keyword keys (XREAD STREAMS) too', async () => {
    const key = internalKey(Buffer.from('block:1'));
    await expect(r().get(key)).rejects.toThrow(RESERVED);
    await expect(r().set(key, 'x')).rejects.toThrow(RESERVED);
    await expect(r().del('user:1', key)).rejects.toThrow(RESERVED);
    await expect(r().xread('STREAMS', 'user:s', key, '0', '0')).rejects.toThrow(RESERVED);
    // Nothing of the refused DEL ran.
    expect(await r().exists('user:1')).toBe(1);
    // A key that only shares the first byte is any key.
    expect(await r().set(Buffer.from('\xff\x00other', 'latin1'), 'v')).toBe('OK');
  });
});
