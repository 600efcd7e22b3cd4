import { MemoryDevice, MemoryVolume } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { Store } from './hlog-store.js';

/**
 * commitLog makes the writes so far durable without a checkpoint: after a
 * crash (abandon, no close) they come back by the replay of the log past
 * the last checkpoint; writes after it, never synced, do not.
 */
describe('commitLog', () => {
  it('writes before it survive a crash; no checkpoint is taken', async () => {
    const volume = new MemoryVolume();
    const checkpoints = new MemoryCheckpointStore();
    const options = { checkpoints, pageSize: 4096, memory: 16 * 4096 };
    let device = new MemoryDevice({ volume, segmentSize: 1 << 20 });
    const store = await Store.open({ device, ...options });
    await store.checkpoint();
    const before = store.stats().checkpoints;
    for (let i = 0; i < 50; i++) await store.set(Buffer.from(`k${i}`), Buffer.from(`v${i}`));
    await store.commitLog();
    expect(store.stats()).toMatchObject({ checkpoints: before, logCommits: 1 });
    await store.set(Buffer.from('after'), Buffer.from('x')); // in memory only
    await store.abandon();
    await device.close();

    device = new MemoryDevice({ volume, segmentSize: 1 << 20 });
    const again = await Store.open({ device, ...options });
    for (let i = 0; i < 50; i++) {
      const r = await again.get(Buffer.from(`k${i}`));
      expect(r.status === 'found' && r.value.toString()).toBe(`v${i}`);
    }
    expect((await again.get(Buffer.from('after'))).status).toBe('notFound');
    await again.close();
    await device.close();
  });
});

describe('commitLog with consistentRecovery', () => {
  it('records its point: a crash comes back to it, not to the log written after it', async () => {
    const volume = new MemoryVolume();
    const checkpoints = new MemoryCheckpointStore();
    const options = { checkpoints, pageSize: 4096, memory: 4 * 4096, consistentRecovery: true };
    let device = new MemoryDevice({ volume, segmentSize: 1 << 20 });
    const store = await Store.open({ device, ...options, logger: { warn: () => undefined } });
    for (let i = 0; i < 50; i++) await store.set(Buffer.from(`k${i}`), Buffer.from(`v${i}`));
    await store.commitLog();
    expect(store.stats().checkpoints).toBe(0);
    // Past the memory budget: later pages reach the device, never committed.
    for (let i = 0; i < 2000; i++)
      await store.set(Buffer.from(`later${i}`), Buffer.from('x'.repeat(40)));
    while (store.log.flushedUntil < 8 * 4096) await new Promise((r) => setImmediate(r));
    await store.abandon();
    await device.close();

    device = new MemoryDevice({ volume, segmentSize: 1 << 20 });
    const warnings: string[] = [];
    const again = await Store.open({
      device,
      ...options,
      logger: { warn: (m) => warnings.push(m) },
    });
    for (let i = 0; i < 50; i++)
      expect((await again.get(Buffer.from(`k${i}`))).status).toBe('found');
    expect((await again.get(Buffer.from('later0'))).status).toBe('notFound');
    expect(again.recovery.unreplayedBytes).toBeGreaterThan(0);
    // The unreplayed tail is behind a checkpoint now; a commit after it is one too.
    await again.set('after', 'crash');
    await again.commitLog();
    expect(again.stats().checkpoints).toBeGreaterThanOrEqual(1);
    await again.close();
    await device.close();
  });
});
