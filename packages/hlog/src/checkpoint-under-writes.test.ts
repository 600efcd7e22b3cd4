import { FaultDevice, MemoryDevice } from '@strata/io';
import { expect, it } from 'vitest';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { Store, type StoreOptions } from './hlog-store.js';

/**
 * A checkpoint while writes keep coming: blind writes of keys whose
 * records are on the device each start a background read (the live-key
 * count's resolution). The fold-over used to wait for a moment with none
 * outstanding, and with a writer that never stops there was none: the
 * checkpoint never ended. Its count snapshot now takes the outstanding
 * resolutions' results as they finish, and is exact.
 */

const KEYS = 4000;

it('a checkpoint ends while blind writes of keys on the device go on, with the exact count', async () => {
  // Reads take 3 ms: a resolution started in one event-loop turn is still
  // reading when the writer's next writes start more.
  const device = new FaultDevice(new MemoryDevice(), { latency: { minMs: 3, on: 'read' } });
  const options: StoreOptions = {
    device,
    checkpoints: new MemoryCheckpointStore(),
    memory: 16 * 1024,
    pageSize: 2048,
    expiry: false,
    logger: { warn: () => undefined },
  };
  const store = await Store.open(options);
  const key = (i: number) => Buffer.from(`key:${String(i).padStart(6, '0')}`);
  const value = Buffer.alloc(64, 0x61);
  for (let i = 0; i < KEYS; i++) await store.set(key(i), value);
  // The writer overwrites every key in turn (most on the device: blind
  // writes) and never waits for the checkpoint; every 10th write is a new key.
  let stop = false;
  let extra = 0;
  let written = 0;
  const writer = (async () => {
    let i = 0;
    while (!stop) {
      await store.set(i % 10 === 9 ? key(KEYS + extra++) : key(i % KEYS), value);
      i++;
      written++;
      if (i % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  // Wait until the writer is going and resolutions are outstanding.
  while (written < 500) await new Promise((resolve) => setImmediate(resolve));
  await store.checkpoint();
  await store.checkpoint();
  stop = true;
  await writer;
  expect(await store.exactCount()).toBe(KEYS + extra);
  // Crash: recover from the last checkpoint, whose count holds what was written before it.
  const tail = store.stats().log.tail;
  await store.abandon();
  const again = await Store.open({ ...options, consistentRecovery: true });
  const count = await again.exactCount();
  let found = 0;
  for (let from = 0; from < KEYS + extra; from += 500) {
    const n = Math.min(500, KEYS + extra - from);
    const reads = await Promise.all(Array.from({ length: n }, (_, j) => again.get(key(from + j))));
    found += reads.filter((r) => r.status === 'found').length;
  }
  // The checkpoint's count is the count of the keys it holds.
  expect(count).toBe(found);
  expect(found).toBeGreaterThanOrEqual(KEYS);
  expect(tail).toBeGreaterThan(0);
  await again.close();
}, 60_000);
