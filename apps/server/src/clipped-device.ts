import type { Device, DeviceStatsSnapshot } from '@strata/io';

/**
 * A device whose end reads as `clip` until something is written past it.
 * With the AOF on, a database opens at exactly the checkpoint the AOF
 * continues from: hlog's recovery replays the log after a checkpoint, and
 * that log (what reached the segments before a crash) is not a prefix of
 * the command history, so replaying the AOF on top of it would apply some
 * commands twice. Clipped, recovery stops at the checkpoint and the AOF
 * brings back everything after it; the stale pages beyond are overwritten
 * (a new session epoch keeps them from ever being read).
 */
export class ClippedDevice implements Device {
  private writtenEnd = 0;

  constructor(
    readonly inner: Device,
    private readonly clip: number,
  ) {}

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
    return Math.min(this.inner.endAddress, Math.max(this.clip, this.writtenEnd));
  }
  get closed(): boolean {
    return this.inner.closed;
  }

  read(address: number, into: Uint8Array): Promise<number> {
    return this.inner.read(address, into);
  }

  write(address: number, from: Uint8Array): Promise<void> {
    const end = address + from.length;
    if (end > this.writtenEnd) this.writtenEnd = end;
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
