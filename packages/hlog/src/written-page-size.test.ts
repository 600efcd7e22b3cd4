import { MemoryDevice, MemoryVolume } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { Store } from './hlog-store.js';

/**
 * A log opened with another page size than it was written with is refused
 * with ERR_PAGE_SIZE_MISMATCH naming both sizes, in both directions, with
 * and without a checkpoint (then the pages say it), never misread or cut.
 */

const KEYS = 2000;
const key = (i: number) => Buffer.from(`key:${i}`);
const value = (i: number) => Buffer.from(`value-${i}-`.padEnd(40, 'x'));

/** A log of KEYS keys written with `pageSize`; with `checkpoint`, closed cleanly, else abandoned (a crash). */
async function written(
  pageSize: number,
  checkpoint: boolean,
): Promise<{ volume: MemoryVolume; checkpoints: MemoryCheckpointStore | null }> {
  const volume = new MemoryVolume();
  const checkpoints = checkpoint ? new MemoryCheckpointStore() : null;
  const device = new MemoryDevice({ volume, segmentSize: 1 << 20 });
  const store = await Store.open({ device, checkpoints, pageSize, memory: 4 * pageSize });
  for (let i = 0; i < KEYS; i++) await store.set(key(i), value(i));
  if (checkpoint) {
    await store.close();
  } else {
    // Past the memory budget the first pages were written out: a crash now
    // leaves them, without any checkpoint.
    while (store.log.flushedUntil < 2 * pageSize) await new Promise((r) => setImmediate(r));
    await store.abandon();
  }
  await device.close();
  return { volume, checkpoints };
}

async function reopen(
  log: { volume: MemoryVolume; checkpoints: MemoryCheckpointStore | null },
  pageSize: number,
): Promise<Store> {
  const device = new MemoryDevice({ volume: log.volume, segmentSize: 1 << 20 });
  try {
    return await Store.open({
      device,
      checkpoints: log.checkpoints,
      pageSize,
      memory: 4 * pageSize,
    });
  } catch (e) {
    await device.close();
    throw e;
  }
}

describe('a log written with another page size', () => {
  for (const checkpoint of [true, false]) {
    const how = checkpoint ? 'a checkpoint' : 'no checkpoint (the pages tell)';
    it(`is refused when opened with larger pages, with ${how}`, async () => {
      const log = await written(4096, checkpoint);
      await expect(reopen(log, 8192)).rejects.toMatchObject({
        code: 'ERR_PAGE_SIZE_MISMATCH',
        message: 'the log was written with pageSize 4096, not 8192',
      });
      // With its own size it opens, every key there.
      const store = await reopen(log, 4096);
      const flushed = checkpoint ? KEYS : 1;
      for (let i = 0; i < flushed; i++) expect((await store.get(key(i))).status).toBe('found');
      await store.close();
    });

    it(`is refused when opened with smaller pages, with ${how}`, async () => {
      const log = await written(8192, checkpoint);
      await expect(reopen(log, 2048)).rejects.toMatchObject({
        code: 'ERR_PAGE_SIZE_MISMATCH',
        message: 'the log was written with pageSize 8192, not 2048',
      });
    });
  }

  it('a damaged first page header (its used bytes) is damage for recovery, not a page size', async () => {
    const log = await written(4096, false);
    const device = new MemoryDevice({ volume: log.volume, segmentSize: 1 << 20 });
    const used = Buffer.alloc(4);
    used.writeUInt32LE(9000, 0); // more than a 4096-byte page: its checksum no longer matches
    await device.write(8, used);
    const store = await Store.open({
      device,
      checkpoints: null,
      pageSize: 4096,
      memory: 4 * 4096,
      logger: { warn: () => undefined },
    });
    expect(store.recovery.records).toBeGreaterThan(0);
    await store.close();
    await device.close();
  });
});
