import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { hashKey } from './key-hash.js';
import { MAX_VALUE_LENGTH } from './rmw-functions.js';
import { StoreCore } from './store.js';

const k = (s: string) => Buffer.from(s);

async function filler(s: StoreCore, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) await s.set(k(`filler-${i}`), Buffer.alloc(40, i));
}

describe('region transitions', () => {
  it('mutable in place -> read-only copies to the tail -> on disk goes pending', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    // 8 frames of 1 KiB, half mutable.
    const s = new StoreCore({ device, memory: 8192, pageSize: 1024, mutableFraction: 0.5 });
    const key = k('subject');
    await s.set(key, k('v1'));
    const a1 = s.index.find(hashKey(key));
    expect(a1).toBeGreaterThanOrEqual(s.log.readOnly);

    // Mutable: an update that fits stays in place.
    await s.set(key, k('v2'));
    expect(s.index.find(hashKey(key))).toBe(a1);

    // Read-only (in memory, below readOnly): reads are synchronous, updates copy.
    let i = 0;
    while (s.log.readOnly <= a1) await filler(s, i++, 1);
    expect(a1).toBeGreaterThanOrEqual(s.log.head);
    const r = s.read(key);
    expect(r.status).toBe('found');
    await s.set(key, k('v3'));
    const a2 = s.index.find(hashKey(key));
    expect(a2).toBeGreaterThan(a1);
    expect(a2).toBeGreaterThanOrEqual(s.log.readOnly);

    // On disk: a read goes pending and finds the value; an rmw copies to the tail.
    while (s.log.head <= a2) await filler(s, i++, 1);
    const p = s.read(key);
    expect(p.status).toBe('pending');
    if (p.status === 'pending') {
      const got = await p.pending;
      expect(got.status === 'found' && got.value.toString()).toBe('v3');
    }
    expect(await s.append(key, k('+'))).toBe(3);
    const a3 = s.index.find(hashKey(key));
    expect(a3).toBeGreaterThanOrEqual(s.log.readOnly);
    const again = s.read(key);
    expect(
      again.status === 'found' &&
        again.bytes.toString('utf8', again.offset, again.offset + again.length),
    ).toBe('v3+');

    // The chain still holds the older versions, newest first.
    expect(s.coreStats().ops.copies).toBeGreaterThan(0);
    expect(s.coreStats().ops.inPlace).toBeGreaterThan(0);
    expect(s.log.stats().memoryBytes).toBe(8192);
  });

  it('a blind upsert of an on-disk key never waits for the device', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = new StoreCore({ device, memory: 4096, pageSize: 1024 });
    await s.set(k('old'), k('x'));
    await filler(s, 0, 200);
    expect(s.read(k('old')).status).toBe('pending');
    expect(s.upsert(k('old'), k('y')).status).toBe('ok');
    const r = s.read(k('old'));
    expect(r.status === 'found' && r.bytes[r.offset]).toBe('y'.charCodeAt(0));
  });

  it('deletes write tombstones that hide older versions on disk', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = new StoreCore({ device, memory: 4096, pageSize: 1024 });
    await s.set(k('gone'), k('x'));
    await filler(s, 0, 200);
    expect(await s.delete(k('gone'))).toBe(true);
    expect(await s.exists(k('gone'))).toBe(false);
    await filler(s, 200, 200);
    // Tombstone on disk too now.
    expect(await s.exists(k('gone'))).toBe(false);
    expect(await s.delete(k('gone'))).toBe(false);
  });
});

describe('large values', () => {
  it('round-trips a 24 MiB value through blobs and changes it', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 26 });
    const s = new StoreCore({ device, memory: 1 << 18, pageSize: 1 << 16 });
    const big = Buffer.alloc(24 << 20);
    for (let i = 0; i < big.length; i += 4096) big[i] = (i >> 12) & 0xff;
    await s.set(k('big'), big);
    const r = await s.get(k('big'));
    expect(r.status === 'found' && r.value.equals(big)).toBe(true);
    expect(await s.setRange(k('big'), 10, k('patch'))).toBe(big.length);
    const r2 = await s.get(k('big'));
    expect(r2.status === 'found' && r2.value.subarray(10, 15).toString()).toBe('patch');
    // Log memory stayed at its budget; the blob never went through it.
    expect(s.log.stats().memoryBytes).toBe(1 << 18);
    expect(s.log.stats().blobsWritten).toBe(2);
  });

  it('rejects values over 512 MiB', () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = new StoreCore({ device, memory: 4096, pageSize: 1024 });
    const huge = { length: MAX_VALUE_LENGTH + 1 } as unknown as Uint8Array;
    expect(() => s.upsert(k('x'), huge)).toThrow(
      expect.objectContaining({ code: 'ERR_VALUE_TOO_LARGE' }),
    );
    expect(() => s.upsert(Buffer.alloc(s.maxKeyLength + 1), k('v'))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
  });
});
