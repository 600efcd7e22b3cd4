import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore, Store, scanLog } from './index.js';

/** A store whose 300 keys (`k0`...) are all on the device, in sealed pages. */
async function storeOnDevice(): Promise<Store> {
  const store = await Store.open({
    device: new MemoryDevice(),
    checkpoints: new MemoryCheckpointStore(),
    pageSize: 4096,
    memory: 4 * 4096,
  });
  for (let i = 0; i < 300; i++) await store.set(Buffer.from(`k${i}`), Buffer.from('v'));
  await store.checkpoint();
  return store;
}

// scanLog's visitor: returning false stops after that record.
describe('scanLog visitor', () => {
  it('stops after the record whose visitor returns false', async () => {
    const store = await storeOnDevice();
    const seen: number[] = [];
    const r = await scanLog({
      device: store.log.device,
      pageSize: store.log.pageSize,
      from: 0,
      to: store.log.flushedUntil,
      onRecord: (_space, _off, address) => {
        seen.push(address);
        return seen.length < 120; // mid-page
      },
    });
    expect(seen).toHaveLength(120);
    expect(r.stopped).toBe(true);
    expect(r.cutAt).toBeNull();
    expect(r.records).toBe(120);
    expect(r.end).toBeGreaterThan(seen[119]!);
    expect(r.end).toBeLessThanOrEqual(seen[119]! + 64); // the next record's address
    await store.close();
  });
});
