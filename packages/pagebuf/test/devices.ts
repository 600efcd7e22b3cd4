import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Address, ByteCount, Device } from '@strata/io';
import { FileDevice, MemoryDevice } from '@strata/io';

/** Deterministic bytes: a small xorshift stream, so a mismatch names its offset. */
export function patternBytes(length: ByteCount, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

export interface DeviceGeometry {
  segmentSize: ByteCount;
  alignment?: ByteCount;
  maxInFlight?: number;
}

export type DeviceKind = 'memory' | 'file';

export interface TestDevice {
  device: Device;
  data: Buffer;
  dispose(): Promise<void>;
}

/** A real device of `kind` holding `data` from address 0 (files in a fresh temp dir). */
export async function makeDevice(
  kind: DeviceKind,
  data: Buffer,
  geometry: DeviceGeometry,
): Promise<TestDevice> {
  const options = {
    segmentSize: geometry.segmentSize,
    alignment: geometry.alignment ?? 1,
    maxInFlight: geometry.maxInFlight ?? 8,
  };
  let dir: string | undefined;
  let device: Device;
  if (kind === 'memory') {
    device = new MemoryDevice(options);
  } else {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pagebuf-test-'));
    device = new FileDevice({ ...options, dir, name: 'log' });
  }
  // Written in uneven pieces (aligned when the device needs it) so segment
  // boundaries fall inside writes.
  const step = options.alignment > 1 ? options.alignment * 37 : 29_267;
  for (let at = 0; at < data.length; at += step) {
    await device.write(at, data.subarray(at, Math.min(data.length, at + step)));
  }
  await device.sync();
  return {
    device,
    data,
    async dispose() {
      if (!device.closed) await device.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Wraps a device and records, in one timeline with the test's own entries,
 * when each read was issued: enough to check what was read ahead of the caller.
 */
export class ReadLog implements Device {
  readonly events: string[] = [];
  constructor(readonly inner: Device) {}
  get name(): string {
    return this.inner.name;
  }
  get segmentSize(): ByteCount {
    return this.inner.segmentSize;
  }
  get alignment(): ByteCount {
    return this.inner.alignment;
  }
  get maxInFlight(): number {
    return this.inner.maxInFlight;
  }
  get beginAddress(): Address {
    return this.inner.beginAddress;
  }
  get endAddress(): Address {
    return this.inner.endAddress;
  }
  get closed(): boolean {
    return this.inner.closed;
  }
  read(address: Address, into: Uint8Array): Promise<ByteCount> {
    this.events.push(`read ${address}`);
    return this.inner.read(address, into);
  }
  write(address: Address, from: Uint8Array): Promise<void> {
    return this.inner.write(address, from);
  }
  sync(): Promise<void> {
    return this.inner.sync();
  }
  truncateUntil(address: Address): Promise<void> {
    return this.inner.truncateUntil(address);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  stats(): ReturnType<Device['stats']> {
    return this.inner.stats();
  }
  resetStats(): void {
    this.inner.resetStats();
  }
}
