import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import {
  flagsOf,
  keyLengthOf,
  keyOffsetOf,
  MemoryCheckpointStore,
  RecordFlag,
  Store,
  scanLog,
} from './index.js';

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

// The README's "Reading raw records" example, as it is written there.
describe('README example: reading raw records', () => {
  it('walks the records on the device through the exported accessors', async () => {
    const store = await storeOnDevice();

    const keys: string[] = [];
    const r = await scanLog({
      device: store.log.device,
      pageSize: store.log.pageSize,
      from: 0,
      to: store.log.flushedUntil,
      // A RecordVisitor: views of the bytes holding the record, valid during the call only.
      onRecord: (space, off) => {
        if ((flagsOf(space, off) & RecordFlag.INVALID) === 0) {
          const ko = keyOffsetOf(space, off);
          keys.push(space.bytes.toString('latin1', ko, ko + keyLengthOf(space, off)));
        }
        return true; // false: stop after this record (r.stopped, r.end = the next record)
      },
    });

    expect(r.cutAt).toBeNull();
    expect(r.stopped).toBe(false);
    expect(keys).toEqual(Array.from({ length: 300 }, (_, i) => `k${i}`));
    await store.close();
  });

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
