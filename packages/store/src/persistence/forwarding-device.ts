import type { Device, DeviceStatsSnapshot } from '@strata/io';

/**
 * A device that passes every call to `inner`: the base of the app's device
 * decorators, each overriding only what it changes.
 */
export class ForwardingDevice implements Device {
  constructor(readonly inner: Device) {}

  get name(): string {
    return this.inner.name;
  }
  get segmentSize(): number {
    return this.inner.segmentSize;
  }
  get alignment(): number {
    return this.inner.alignment;
  }
  get maxInFlight(): number {
    return this.inner.maxInFlight;
  }
  get beginAddress(): number {
    return this.inner.beginAddress;
  }
  get endAddress(): number {
    return this.inner.endAddress;
  }
  get closed(): boolean {
    return this.inner.closed;
  }

  read(address: number, into: Uint8Array): Promise<number> {
    return this.inner.read(address, into);
  }

  write(address: number, from: Uint8Array): Promise<void> {
    return this.inner.write(address, from);
  }

  sync(): Promise<void> {
    return this.inner.sync();
  }

  truncateUntil(address: number): Promise<void> {
    return this.inner.truncateUntil(address);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  stats(): DeviceStatsSnapshot {
    return this.inner.stats();
  }

  resetStats(): void {
    this.inner.resetStats();
  }
}
