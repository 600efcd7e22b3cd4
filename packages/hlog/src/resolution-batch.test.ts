import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { StoreCore } from './store.js';

const k = (i: number) => Buffer.from(`key:${String(i).padStart(12, '0')}`);

describe('batched count resolutions', () => {
  it('blind overwrites of on-disk keys resolve exactly with fewer device reads than keys', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const store = new StoreCore({ device, memory: 8192, pageSize: 4096, indexBuckets: 16 });
    const n = 2000;
    for (let i = 0; i < n; i++) {
      const v = store.upsert(k(i), Buffer.from(`v${i}`));
      if (v.status === 'pending') await v.pending;
    }
    // Some keys deleted, some given a TTL, so resolutions see every state.
    for (let i = 0; i < n; i += 7) await store.delete(k(i));
    for (let i = 3; i < n; i += 11) await store.expire(k(i), 60_000);
    const want = await store.exactCount();
    const reads = store.coreStats().ops.diskReads ?? 0;
    // One synchronous burst over the oldest keys (on the device): blind writes.
    for (let i = 0; i < 1000; i++) {
      const v = store.upsert(k(i), Buffer.from(`w${i}`));
      if (v.status === 'pending') await v.pending;
    }
    // The deleted ones among them are live again; the rest were counted already.
    expect(await store.exactCount()).toBe(want + Math.ceil(1000 / 7));
    const used = (store.coreStats().ops.diskReads ?? 0) - reads;
    expect(used).toBeGreaterThan(0);
    // Unbatched it is one read per key on the device (~1000); batched, ~1 per 4 KiB page.
    expect(used).toBeLessThan(100);
  });
});
