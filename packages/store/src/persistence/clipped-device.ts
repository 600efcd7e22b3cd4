import type { Device } from '@strata/io';
import { ForwardingDevice } from './forwarding-device.js';

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
export class ClippedDevice extends ForwardingDevice {
  private writtenEnd = 0;

  constructor(
    inner: Device,
    private readonly clip: number,
  ) {
    super(inner);
  }

  override get endAddress(): number {
    return Math.min(this.inner.endAddress, Math.max(this.clip, this.writtenEnd));
  }

  override write(address: number, from: Uint8Array): Promise<void> {
    const end = address + from.length;
    if (end > this.writtenEnd) this.writtenEnd = end;
    return this.inner.write(address, from);
  }
}
