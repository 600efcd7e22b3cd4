import type { Device } from '@strata/io';
import { encodeCommand } from '@strata/protocol';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t.stop();
});

const key = (i: number) => `dp:${String(i).padStart(8, '0')}`;
/** 47 bytes whatever `i`. */
const value = (i: number) => `v${String(i).padStart(5, '0')}-${'x'.repeat(40)}`;

/** Counts the device's reads and the most of them in flight at once. */
function watchReads(device: Device): { reads: number; most: number; stop(): void } {
  const read = device.read;
  let inFlight = 0;
  const seen = { reads: 0, most: 0, stop: () => (device.read = read) };
  device.read = async (address, into) => {
    seen.reads++;
    seen.most = Math.max(seen.most, ++inFlight);
    try {
      return await read.call(device, address, into);
    } finally {
      inFlight--;
    }
  };
  return seen;
}

test('a pipelined run of GETs of keys on disk has its device reads in flight together, one per key, replies in order', async () => {
  const c = await RawClient.connect(t.port);
  try {
    const n = 3000;
    const sets: Buffer[] = [];
    for (let i = 0; i < n; i++) sets.push(encodeCommand(['SET', key(i), value(i)]));
    c.write(Buffer.concat(sets));
    await c.readUntil((s) => s.length === n * 5, 30_000);
    const store = t.server.keyspace.get(0)!;
    // The first keys are long gone from the small memory: every GET below reads the device.
    const picked = Array.from({ length: 16 }, (_, i) => i * 37);
    for (const i of picked) {
      const v = store.read(Buffer.from(key(i)));
      expect(v.status).toBe('pending');
      if (v.status === 'pending') await v.pending;
    }

    const seen = watchReads(store.log.device);
    try {
      const got = c.readUntil((s) => s.split('$47').length - 1 === 16, 30_000);
      c.write(Buffer.concat(picked.map((i) => encodeCommand(['GET', key(i)]))));
      const all = await got;
      const replies = all.slice(n * 5);
      expect(replies).toBe(picked.map((i) => `$47\r\n${value(i)}\r\n`).join(''));
      // One read per record, all of them issued before the first GET's came back
      // (they waited one after another before: at most 1 in flight).
      expect(seen.reads).toBe(16);
      expect(seen.most).toBe(16);
    } finally {
      seen.stop();
    }
  } finally {
    c.close();
  }
}, 60_000);
