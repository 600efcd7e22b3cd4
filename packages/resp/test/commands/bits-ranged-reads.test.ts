import { Store, type StoreCore } from '@strata/hlog';
import { MemoryDevice } from '@strata/io';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DatabaseProvider } from '../../src/server/keyspace.js';
import { RespServer } from '../../src/server/resp-server.js';
import { SMALL_STORE } from '../support/test-server.js';

/**
 * A 64 MiB bitmap on the device: the read commands load only the chunks
 * (64 KiB, checksummed) under the bytes they touch, counted by the
 * device's own stats; the walk of BITCOUNT and BITPOS over all of it reads
 * it window by window. The answers are checked against a model.
 */
const SIZE = 64 << 20;
/** Bits set, by byte offset: across chunk borders, at both ends. */
const SET_BITS = [0, 9, 65535 * 8 + 7, 65536 * 8, 5_000_000 * 8 + 3, SIZE * 8 - 1];

let device: MemoryDevice;
let server: RespServer;
let client: Redis;

beforeAll(async () => {
  device = new MemoryDevice({ segmentSize: 1 << 30 });
  const provider: DatabaseProvider = {
    count: 1,
    async open() {
      return Store.open({ ...SMALL_STORE, device, expiry: false, checkpointOnClose: false });
    },
    async close(_index, store: StoreCore) {
      await (store as Store).close();
    },
  };
  server = new RespServer({ databases: provider });
  const { port } = await server.listen(0);
  client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  await client.connect();
  await client.setrange('big', SIZE - 1, '\x00');
  for (const bit of SET_BITS) await client.setbit('big', bit, 1);
  // Small keys after it: the record of `big` goes to the device too.
  for (let i = 0; i < 20; i++) {
    const args: string[] = [];
    for (let j = 0; j < 200; j++) args.push(`fill:${i}:${j}`, 'x'.repeat(40));
    await client.mset(...args);
  }
}, 120_000);

afterAll(async () => {
  client?.disconnect();
  await server?.close();
});

async function bytesReadBy<T>(f: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const before = device.stats().bytesRead;
  const value = await f();
  return { value, bytes: device.stats().bytesRead - before };
}

/** A few chunks, far below the value: the record, the blob's head and table, the chunks. */
const FEW_CHUNKS = 4 * 65536 + 16384;

describe('a 64 MiB string on the device is read only where a command touches it', () => {
  test('GETBIT reads one chunk', async () => {
    for (const bit of [65535 * 8 + 7, 5_000_000 * 8 + 3, 5_000_000 * 8 + 4, SIZE * 8 - 1]) {
      const r = await bytesReadBy(() => client.getbit('big', bit));
      expect(r.value).toBe(SET_BITS.includes(bit) ? 1 : 0);
      expect(r.bytes).toBeGreaterThan(65536);
      expect(r.bytes).toBeLessThan(2 * 65536);
    }
  });

  test('GETRANGE, SUBSTR, BITFIELD_RO and BITCOUNT with a range read the chunks under them', async () => {
    const range = await bytesReadBy(() => client.getrangeBuffer('big', 65530, 65541));
    expect(range.value).toEqual(Buffer.from([0, 0, 0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0]));
    expect(range.bytes).toBeLessThan(FEW_CHUNKS);
    const tail = await bytesReadBy(() => client.getrangeBuffer('big', -2, -1));
    expect(tail.value).toEqual(Buffer.from([0, 1]));
    expect(tail.bytes).toBeLessThan(FEW_CHUNKS);
    const substr = await bytesReadBy(() => client.callBuffer('substr', 'big', '0', '1'));
    expect(substr.value).toEqual(Buffer.from([0x80, 0x40]));
    expect(substr.bytes).toBeLessThan(FEW_CHUNKS);
    const field = await bytesReadBy(() =>
      client.call('bitfield_ro', 'big', 'get', 'u16', String(65535 * 8)),
    );
    expect(field.value).toEqual([0x180]);
    expect(field.bytes).toBeLessThan(FEW_CHUNKS);
    const count = await bytesReadBy(() => client.bitcount('big', 65000, 70000));
    expect(count.value).toBe(2);
    expect(count.bytes).toBeLessThan(FEW_CHUNKS);
    const bits = await bytesReadBy(() =>
      client.call('bitcount', 'big', String(SIZE * 8 - 16), '-1', 'bit'),
    );
    expect(bits.value).toBe(1);
    expect(bits.bytes).toBeLessThan(FEW_CHUNKS);
  });

  test('STRLEN reads no value; BITPOS stops at its first hit, in the first window (one chunk)', async () => {
    const len = await bytesReadBy(() => client.strlen('big'));
    expect(len.value).toBe(SIZE);
    expect(len.bytes).toBeLessThan(4096);
    const pos = await bytesReadBy(() => client.bitpos('big', 1, 100));
    expect(pos.value).toBe(65535 * 8 + 7);
    expect(pos.bytes).toBeLessThan(FEW_CHUNKS);
  });

  test('BITCOUNT and BITPOS over all of it walk it window by window', async () => {
    const count = await bytesReadBy(() => client.bitcount('big'));
    expect(count.value).toBe(SET_BITS.length);
    expect(count.bytes).toBeGreaterThanOrEqual(SIZE);
    const pos = await bytesReadBy(() => client.bitpos('big', 1, 5_000_001));
    expect(pos.value).toBe(SIZE * 8 - 1);
    const zero = await client.bitpos('big', 0);
    expect(zero).toBe(1);
    expect(await client.bitcount('missing')).toBe(0);
  });

  test('a walk sees one value when another client changes it meanwhile', async () => {
    // BITOP NOT inverts every bit at once: a count mixing windows of the
    // value before and after it would be neither of the two answers.
    const other = new Redis({ port: (client.options.port ?? 0) as number, lazyConnect: true });
    await other.connect();
    try {
      const before = SET_BITS.length;
      const [counted] = await Promise.all([
        client.bitcount('big'),
        other.bitop('NOT', 'big', 'big'),
      ]);
      expect([before, SIZE * 8 - before]).toContain(counted);
      expect(await client.bitcount('big')).toBe(SIZE * 8 - before);
    } finally {
      other.disconnect();
    }
  });
});
