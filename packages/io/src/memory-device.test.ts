import { describe, expect, it } from 'vitest';
import { isStrataError } from './errors.js';
import { MemoryDevice } from './memory-device.js';
import { MemoryVolume } from './memory-volume.js';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

describe('MemoryDevice', () => {
  it('allocates 1 GiB segments lazily, one chunk at a time', async () => {
    const device = new MemoryDevice();
    expect(device.segmentSize).toBe(GiB);
    expect(device.allocatedBytes).toBe(0);
    await device.write(0, new Uint8Array(10).fill(1));
    await device.write(5 * GiB + 3 * MiB - 5, new Uint8Array(10).fill(2));
    // One chunk in segment 0, two (the write straddles a chunk) in segment 5.
    expect(device.allocatedBytes).toBe(3 * MiB);
    const into = new Uint8Array(10);
    expect(await device.read(5 * GiB + 3 * MiB - 5, into)).toBe(10);
    expect([...into]).toEqual(new Array(10).fill(2));
    expect(await device.read(3 * GiB, into)).toBe(10);
    expect([...into]).toEqual(new Array(10).fill(0));
    expect(device.allocatedBytes).toBe(3 * MiB);
    await device.close();
    expect(device.allocatedBytes).toBe(0);
  });

  it('chunk size is configurable, a power of two, and capped by the segment size', async () => {
    expect(() => new MemoryDevice({ chunkSize: 1000 })).toThrow(/power of two/);
    const small = new MemoryDevice({ segmentSize: 4096, chunkSize: 1 << 20 });
    await small.write(0, new Uint8Array(1));
    expect(small.allocatedBytes).toBe(4096);
    const tiny = new MemoryDevice({ chunkSize: 64 });
    await tiny.write(60, new Uint8Array(10));
    expect(tiny.allocatedBytes).toBe(128);
  });

  it('a shared volume keeps data across devices; one device at a time; same geometry', async () => {
    const volume = new MemoryVolume();
    const first = new MemoryDevice({ volume, segmentSize: 4096 });
    await first.write(9000, new Uint8Array([1, 2, 3]));
    expect(() => new MemoryDevice({ volume, segmentSize: 4096 })).toThrow(/in use/);
    await first.close();
    expect(() => new MemoryDevice({ volume, segmentSize: 8192 })).toThrow(/segmentSize/);
    const second = new MemoryDevice({ volume, segmentSize: 4096 });
    expect(second.endAddress).toBe(9003);
    const into = new Uint8Array(3);
    expect(await second.read(9000, into)).toBe(3);
    expect([...into]).toEqual([1, 2, 3]);
    expect(volume.segmentNumbers()).toEqual([0, 2]);
    await second.truncateUntil(8192);
    expect(volume.segmentNumbers()).toEqual([2]);
    await second.close();
  });

  it('IO queued before a truncation rejects with ERR_ADDRESS_OUT_OF_RANGE when its turn comes', async () => {
    const device = new MemoryDevice({ segmentSize: 4096, maxInFlight: 1 });
    await device.write(0, new Uint8Array(8192).fill(7));
    const inFlight = device.read(0, new Uint8Array(10));
    const queued = device.read(0, new Uint8Array(10));
    const queuedWrite = device.write(100, new Uint8Array(10));
    const truncation = device.truncateUntil(4096);
    expect(await inFlight).toBe(10);
    await expect(queued).rejects.toSatisfy((e) => isStrataError(e, 'ERR_ADDRESS_OUT_OF_RANGE'));
    await expect(queuedWrite).rejects.toSatisfy((e) =>
      isStrataError(e, 'ERR_ADDRESS_OUT_OF_RANGE'),
    );
    await truncation;
    expect(device.beginAddress).toBe(4096);
    expect(device.stats().errors).toBe(2);
  });
});
