import { describe, expect, it } from 'vitest';
import { isStrataError } from './errors.js';
import { NullDevice } from './null-device.js';

describe('NullDevice', () => {
  it('discards writes but advances the end; reads zero-fill up to the end', async () => {
    const device = new NullDevice({ segmentSize: 4096 });
    expect(device.name).toBe('null');
    await device.write(100, new Uint8Array(50).fill(9));
    expect(device.endAddress).toBe(150);
    const into = new Uint8Array(100).fill(0xee);
    expect(await device.read(80, into)).toBe(70);
    expect([...into.subarray(0, 70)]).toEqual(new Array(70).fill(0));
    expect([...into.subarray(70)]).toEqual(new Array(30).fill(0xee));
    expect(await device.read(150, into)).toBe(0);
    await device.write(5 * 4096, new Uint8Array(10));
    expect(await device.read(0, new Uint8Array(8 * 4096))).toBe(5 * 4096 + 10);
  });

  it('counts stats like any device', async () => {
    const device = new NullDevice({ maxInFlight: 2 });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => device.write(i * 10, new Uint8Array(10))),
    );
    await device.read(0, new Uint8Array(100));
    await device.sync();
    await expect(device.read(-1, new Uint8Array(1))).rejects.toSatisfy((e) =>
      isStrataError(e, 'ERR_ADDRESS_OUT_OF_RANGE'),
    );
    const s = device.stats();
    expect(s).toMatchObject({
      writes: 20,
      reads: 1,
      syncs: 1,
      bytesWritten: 200,
      bytesRead: 100,
      errors: 1,
    });
    expect(s.inFlightHighWater).toBe(2);
    expect(s.writeLatencyUs.count).toBe(20);
  });

  it('applies truncation, alignment and close rules', async () => {
    const device = new NullDevice({ segmentSize: 4096, alignment: 512 });
    await device.write(0, new Uint8Array(3 * 4096));
    await device.truncateUntil(4096 + 512);
    expect(device.beginAddress).toBe(4096);
    await expect(device.read(0, new Uint8Array(512))).rejects.toSatisfy((e) =>
      isStrataError(e, 'ERR_ADDRESS_OUT_OF_RANGE'),
    );
    await expect(device.write(4096, new Uint8Array(100))).rejects.toSatisfy((e) =>
      isStrataError(e, 'ERR_INVALID_ARGUMENT'),
    );
    await device.close();
    await device.close();
    await expect(device.read(4096, new Uint8Array(512))).rejects.toSatisfy((e) =>
      isStrataError(e, 'ERR_DEVICE_CLOSED'),
    );
  });
});
