import { MemoryDevice } from '@strata/io';
import { describe, expect, test } from 'vitest';
import { ClippedDevice } from './clipped-device.js';

describe('ClippedDevice', () => {
  test('ends at the clip until written past it; reads and writes go through', async () => {
    const inner = new MemoryDevice({ segmentSize: 1 << 16 });
    await inner.write(0, new Uint8Array(4096).fill(7));
    const d = new ClippedDevice(inner, 1024);
    expect(d.endAddress).toBe(1024);
    const buf = new Uint8Array(16);
    await d.read(2048, buf);
    expect(buf[0]).toBe(7); // the bytes are there, only the end moved
    await d.write(1024, new Uint8Array(512).fill(1));
    expect(d.endAddress).toBe(1536);
    await d.write(8192, new Uint8Array(8));
    expect(d.endAddress).toBe(8200);
    expect(new ClippedDevice(inner, 1 << 20).endAddress).toBe(inner.endAddress);
    await d.close();
    expect(inner.closed).toBe(true);
  });
});
