import { type AnyStrataError, FaultDevice, MemoryDevice, MemoryVolume } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { Store, type StoreOptions } from './hlog-store.js';

const k = (s: string) => Buffer.from(s);

const small: Partial<StoreOptions> = {
  memory: 8192,
  pageSize: 1024,
  indexBuckets: 16,
  expiry: false,
};

function setup() {
  const volume = new MemoryVolume();
  const checkpoints = new MemoryCheckpointStore();
  const inner = new MemoryDevice({ volume, segmentSize: 4096 });
  const device = new FaultDevice(inner, { closeInner: true });
  const errors: AnyStrataError[] = [];
  const reopen = async () => {
    await device.close();
    return Store.open({
      device: new MemoryDevice({ volume, segmentSize: 4096 }),
      checkpoints,
      ...small,
    });
  };
  return { device, checkpoints, errors, reopen };
}

async function expectValues(store: Store, keys: number, prefix = 'k'): Promise<void> {
  for (let i = 0; i < keys; i++) {
    const r = await store.get(k(`${prefix}${i}`));
    expect(r.status === 'found' && r.value.toString(), `${prefix}${i}`).toBe(`value-${i}`);
  }
}

describe('write errors', () => {
  it('a failed page flush is reported, blocks what needs its frame, and clears after a retry', async () => {
    const { device, checkpoints, errors, reopen } = setup();
    const s = await Store.open({
      device,
      checkpoints,
      ...small,
      onWriteError: (e) => errors.push(e),
    });
    expect(s.writeError).toBeNull();
    device.addFault({ on: 'write', code: 'ERR_IO' });
    // Write until the store can go no further: acknowledged writes stay readable.
    let written = 0;
    let failure: unknown = null;
    for (; written < 2000; written++) {
      try {
        await s.set(k(`k${written}`), k(`value-${written}`));
      } catch (e) {
        failure = e;
        break;
      }
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.code).toBe('ERR_IO');
    expect(s.writeError?.code).toBe('ERR_IO');
    // The ring is full of unflushed pages: the write that needed a frame failed with the error.
    expect(failure).toBe(s.writeError);
    expect(written).toBeGreaterThan(50);
    await expectValues(s, written);
    await expect(s.checkpoint()).rejects.toMatchObject({ code: 'ERR_IO' });
    await expect(s.retryWrites()).rejects.toMatchObject({ code: 'ERR_IO' });
    expect(s.writeError).not.toBeNull();
    // The device recovers: a retry writes the pages, the error clears, writing goes on.
    device.clearFaults();
    await s.retryWrites();
    expect(s.writeError).toBeNull();
    for (let i = written; i < written + 200; i++) await s.set(k(`k${i}`), k(`value-${i}`));
    await s.close();
    const s2 = await reopen();
    await expectValues(s2, written + 200);
    await s2.close();
  });

  it('a checkpoint retries failed writes itself', async () => {
    const { device, checkpoints, errors, reopen } = setup();
    const s = await Store.open({ device, checkpoints, ...small, mutableFraction: 0.5 });
    s.log.onWriteError = (e) => errors.push(e);
    // The first page write fails once; the writes below never need its frame.
    device.addFault({ on: 'write', nth: 1, code: 'ERR_IO' });
    for (let i = 0; i < 200; i++) await s.set(k(`k${i}`), k(`value-${i}`));
    await new Promise((r) => setTimeout(r, 10));
    expect(errors).toHaveLength(1);
    expect(s.writeError).not.toBeNull();
    expect(s.log.flushedUntil).toBeLessThan(s.log.readOnly);
    expect(await s.checkpoint()).toBeGreaterThan(0);
    expect(s.writeError).toBeNull();
    await s.abandon();
    const s2 = await reopen();
    expect(s2.recovery.checkpoint).not.toBeNull();
    await expectValues(s2, 200);
    await s2.close();
  });

  it('a failed sync rejects the checkpoint until a sync succeeds', async () => {
    const { device, checkpoints } = setup();
    const s = await Store.open({ device, checkpoints, ...small });
    for (let i = 0; i < 50; i++) await s.set(k(`k${i}`), k(`value-${i}`));
    device.addFault({ on: 'sync', nth: 1, code: 'ERR_IO' });
    await expect(s.checkpoint()).rejects.toMatchObject({ code: 'ERR_IO' });
    expect(s.writeError?.code).toBe('ERR_IO');
    expect(await checkpoints.list()).toEqual([]);
    expect(await s.checkpoint()).toBeGreaterThan(0);
    expect(s.writeError).toBeNull();
    await s.close();
  });

  it('a failed blob write fails its SET; after a retry the log stays readable', async () => {
    const { device, checkpoints, reopen } = setup();
    const s = await Store.open({ device, checkpoints, ...small });
    for (let i = 0; i < 20; i++) await s.set(k(`k${i}`), k(`value-${i}`));
    const big = Buffer.alloc(3000, 7);
    const fault = device.addFault({ on: 'write', code: 'ERR_IO', times: 1 });
    await expect(s.set(k('big'), big)).rejects.toMatchObject({ code: 'ERR_IO' });
    expect(fault.fired).toBe(1);
    expect(s.writeError).not.toBeNull();
    big.fill(9); // the caller's buffer is theirs again
    await s.retryWrites();
    expect(s.writeError).toBeNull();
    await s.set(k('big'), big);
    await s.close();
    const s2 = await reopen();
    expect(s2.recovery.cutAt).toBeNull();
    await expectValues(s2, 20);
    const r = await s2.get(k('big'));
    expect(r.status === 'found' && r.value.equals(big)).toBe(true);
    await s2.close();
  });
  it('with waitOutWriteErrors a write that needs a frame (or a blob write) waits for the retry instead of failing', async () => {
    const { device, checkpoints, reopen } = setup();
    const s = await Store.open({ device, checkpoints, ...small });
    s.log.waitOutWriteErrors = true;
    for (let i = 0; i < 20; i++) await s.set(k(`k${i}`), k(`value-${i}`));
    device.addFault({ on: 'write', code: 'ERR_IO' });
    // Enough writes to need frames whose pages cannot be flushed.
    const writes: Promise<void>[] = [];
    let settled = 0;
    for (let i = 20; i < 400; i++) {
      writes.push(
        s.set(k(`k${i}`), k(`value-${i}`)).then(() => {
          settled++;
        }),
      );
    }
    const big = Buffer.alloc(3000, 7);
    const bigWrite = s.set(k('big'), big);
    await expect.poll(() => s.writeError).not.toBeNull();
    // Waiting, not failed: nothing settles while the device fails.
    const before = settled;
    await s.retryWrites().catch(() => undefined);
    expect(settled).toBe(before);
    expect(settled).toBeLessThan(380);
    device.clearFaults();
    await s.retryWrites();
    await Promise.all(writes);
    await bigWrite;
    expect(s.writeError).toBeNull();
    await s.close();
    const s2 = await reopen();
    await expectValues(s2, 400);
    const r = await s2.get(k('big'));
    expect(r.status === 'found' && r.value.equals(big)).toBe(true);
    await s2.close();
  });
});
