import type { ByteCount } from './address.js';
import type { DeviceOptions } from './device.js';
import { RESOLVED, SegmentedDevice } from './segmented-device.js';

export interface NullDeviceOptions extends DeviceOptions {
  /** Default `"null"`. */
  name?: string;
}

/**
 * A device that stores nothing: writes are discarded (but still advance
 * `endAddress`), and reads inside `[beginAddress, endAddress)` are filled
 * with zeros and return their full length, exactly as if every byte written
 * had been a zero; reads at or past the end return 0 bytes. Every check
 * (alignment, range, closed, truncation) and every counter works as on a
 * real device, which makes it a measure of the device layer's own overhead
 * and a sink for write benchmarks.
 */
export class NullDevice extends SegmentedDevice {
  constructor(options: NullDeviceOptions = {}) {
    super(options.name ?? 'null', options);
  }

  protected override readPiece(
    _segment: number,
    _offset: ByteCount,
    into: Uint8Array,
    intoOffset: ByteCount,
    length: ByteCount,
  ): Promise<void> {
    into.fill(0, intoOffset, intoOffset + length);
    return RESOLVED;
  }

  protected override writePiece(): Promise<void> {
    return RESOLVED;
  }

  protected override syncStorage(): Promise<void> {
    return RESOLVED;
  }

  protected override dropSegments(): Promise<void> {
    return RESOLVED;
  }

  protected override closeStorage(): Promise<void> {
    return RESOLVED;
  }
}
