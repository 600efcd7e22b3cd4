import { Store, type StoreCore } from '@strata/hlog';
import { FaultDevice, MemoryDevice } from '@strata/io';
import { Redis } from 'ioredis';
import { afterEach, expect, test } from 'vitest';
import type { DatabaseProvider } from '../../src/server/keyspace.js';
import { RespServer } from '../../src/server/resp-server.js';
import { SMALL_STORE } from '../support/test-server.js';

/** Every database on one FaultDevice each, small memory: most keys live on the device. */
function faultyDatabases(): { provider: DatabaseProvider; devices: FaultDevice[] } {
  const devices: FaultDevice[] = [];
  const provider: DatabaseProvider = {
    count: 16,
    async open(index) {
      const device = new FaultDevice(new MemoryDevice(), { seed: 7 + index });
      devices[index] = device;
      return Store.open({ ...SMALL_STORE, device, expiry: false });
    },
    async close(_index, store: StoreCore) {
      // A store that cannot persist refuses to close cleanly; the test is over anyway.
      await (store as Store).close().catch(() => undefined);
    },
  };
  return { provider, devices };
}

let server: RespServer | null = null;
let redis: Redis | null = null;
afterEach(async () => {
  redis?.disconnect();
  redis = null;
  await server?.close();
  server = null;
});

async function start(): Promise<{ r: Redis; devices: FaultDevice[] }> {
  const { provider, devices } = faultyDatabases();
  server = new RespServer({ databases: provider });
  const { port } = await server.listen(0);
  redis = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
  return { r: redis, devices };
}

const value = (i: number) => `value-${i}-${'x'.repeat(200)}`;

async function load(r: Redis, from: number, to: number): Promise<void> {
  const pipe = r.pipeline();
  for (let i = from; i < to; i++) pipe.set(`k${i}`, value(i));
  await pipe.exec();
}

async function until(pred: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a failing log write makes writes answer MISCONF while reads go on, until the device recovers', async () => {
  const { r, devices } = await start();
  await load(r, 0, 1000);
  const outage = devices[0]!.addFault({ on: 'write', code: 'ERR_IO', osCode: 'EIO' });
  // Writes go on until a page flush fails; then the server refuses them.
  let refused: unknown = null;
  for (let i = 1000; i < 20_000 && refused === null; i++) {
    try {
      await r.set(`k${i}`, value(i));
    } catch (e) {
      refused = e;
    }
    if (i % 100 === 0) await new Promise((res) => setTimeout(res, 5));
  }
  expect(String(refused)).toMatch(/^ReplyError: (MISCONF|ERR) /);
  await until(async () => (await r.set('probe', '1').catch((e: Error) => e.message)) !== 'OK');
  const misconf = await r.set('probe', '1').catch((e: Error) => e.message);
  expect(misconf).toMatch(/^MISCONF .*database 0: .*EIO|^MISCONF .*database 0: /);
  expect(server!.writeError).toBe(misconf);
  await expect(r.incr('counter')).rejects.toThrow('MISCONF');
  // Reads of keys written before the outage still work (memory or device reads).
  expect(await r.get('k1')).toBe(value(1));
  expect(await r.get('k999')).toBe(value(999));
  expect(await r.exists('k500')).toBe(1);
  // The device recovers: the failed pages are retried and writes come back.
  outage.remove();
  await until(async () => (await r.set('probe', '2').catch(() => 'refused')) === 'OK');
  expect(server!.writeError).toBeNull();
  expect(await r.get('probe')).toBe('2');
  expect(await r.ping()).toBe('PONG');
});

test('MISCONF follows the store write error event at once, and clears as soon as the pages are written', async () => {
  const { r, devices } = await start();
  await load(r, 0, 1000);
  const store = server!.keyspace.get(0)!;
  // Called right after the server's own listener: what the server says at that moment.
  let atFailure: string | null | undefined;
  const serverListener = store.log.onWriteError;
  store.log.onWriteError = (e) => {
    serverListener?.(e);
    atFailure ??= server!.writeError;
  };
  const outage = devices[0]!.addFault({ on: 'write', code: 'ERR_IO', osCode: 'EIO' });
  for (let i = 1000; i < 20_000 && store.writeError === null; i++) {
    await r.set(`k${i}`, value(i)).catch(() => undefined);
    if (i % 100 === 0) await new Promise((res) => setTimeout(res, 5));
  }
  expect(store.writeError).not.toBeNull();
  // No poll in between: the failure itself set MISCONF.
  expect(atFailure).toMatch(/^MISCONF .*database 0: /);
  await expect(r.set('probe', '1')).rejects.toThrow('MISCONF');
  // The pages are written (as a checkpoint would): the very next write is let in.
  outage.remove();
  await store.retryWrites();
  expect(store.writeError).toBeNull();
  expect(await r.set('probe', '2')).toBe('OK');
  expect(server!.writeError).toBeNull();
  expect(await r.get('probe')).toBe('2');
});

test('a failing device read gives that command an error; the connection and the server go on', async () => {
  const { r, devices } = await start();
  await load(r, 0, 2000);
  const reads = devices[0]!.addFault({ on: 'read', code: 'ERR_IO', osCode: 'EIO' });
  // k0 is long gone from memory (2000 keys of ~220 bytes, 64 KiB of pages).
  await expect(r.get('k0')).rejects.toThrow(/^ERR /);
  // No ready check: its INFO would read the whole log, through the failing device.
  const other = new Redis({
    port: server!.address().port,
    host: '127.0.0.1',
    enableReadyCheck: false,
  });
  try {
    // The connection still works, in-memory keys are served, other clients too.
    expect(await r.get('k1999')).toBe(value(1999));
    expect(await other.get('k1998')).toBe(value(1998));
    expect(await r.ping()).toBe('PONG');
    // Pipelined: only the command that needed the device fails.
    const res = await r.pipeline().get('k1999').get('k1').get('k1997').exec();
    expect(res![0]).toEqual([null, value(1999)]);
    expect(String(res![1]![0])).toMatch(/^ReplyError: ERR /);
    expect(res![2]).toEqual([null, value(1997)]);
    reads.remove();
    expect(await r.get('k0')).toBe(value(0));
    expect(await other.get('k1')).toBe(value(1));
  } finally {
    other.disconnect();
  }
});

test('a multi-key write that meets the first failed page flush is never answered an error after applying part of it', async () => {
  const { r, devices } = await start();
  await load(r, 0, 1000);
  const store = server!.keyspace.get(0)!;
  devices[0]!.addFault({ on: 'write', code: 'ERR_IO', osCode: 'ENOSPC' });
  // 600 pairs of ~220 bytes: twice the 64 KiB of the log's memory, so the
  // MSET needs pages flushed while it runs, and those flushes fail.
  const pairs: string[] = [];
  for (let i = 0; i < 600; i++) pairs.push(`m${i}`, `new-${i}-${'y'.repeat(200)}`);
  let answered: string | null = null;
  const mset = r.mset(...pairs).then(
    (v) => {
      answered = v;
      return v;
    },
    (e: Error) => {
      answered = e.message;
      return e.message;
    },
  );
  await until(async () => store.writeError !== null || answered !== null);
  // A write that comes now (another client: this one waits for its MSET)
  // is refused before it runs.
  const other = new Redis({ port: server!.address().port, host: '127.0.0.1' });
  try {
    await until(async () =>
      /^MISCONF /.test(await other.set('m0', 'late').catch((e: Error) => e.message)),
    );
  } finally {
    other.disconnect();
  }
  // The device failed while the MSET ran: it has not been answered (an
  // error would say "not applied" of a command applied in part).
  expect(answered).toBeNull();
  devices[0]!.clearFaults();
  expect(await mset).toBe('OK');
  const got = await r.mget(...pairs.filter((_, i) => i % 2 === 0));
  expect(got).toEqual(pairs.filter((_, i) => i % 2 === 1));
});
