import { type Address, type ByteCount, isPowerOfTwo, MAX_ADDRESS } from './address.js';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_SEGMENT_SIZE, type DeviceOptions } from './device.js';
import { InvalidArgumentError, OutOfRangeError } from './errors.js';

/**
 * A device's geometry (segment size and alignment) and the argument checks
 * every device applies to an operation before it is queued.
 */
export class SegmentLayout {
  readonly segmentSize: ByteCount;
  readonly alignment: ByteCount;
  readonly maxInFlight: number;

  constructor(options: DeviceOptions = {}) {
    const segmentSize = options.segmentSize ?? DEFAULT_SEGMENT_SIZE;
    const alignment = options.alignment ?? 1;
    const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    if (!isPowerOfTwo(segmentSize) || segmentSize > MAX_ADDRESS) {
      throw new InvalidArgumentError(
        `segmentSize must be a power of two <= 2^48, got ${segmentSize}`,
      );
    }
    if (!isPowerOfTwo(alignment) || alignment > segmentSize) {
      throw new InvalidArgumentError(
        `alignment must be a power of two <= segmentSize, got ${alignment}`,
      );
    }
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1) {
      throw new InvalidArgumentError(`maxInFlight must be a positive integer, got ${maxInFlight}`);
    }
    this.segmentSize = segmentSize;
    this.alignment = alignment;
    this.maxInFlight = maxInFlight;
  }

  /** The segment holding `address`. */
  segmentOf(address: Address): number {
    return Math.floor(address / this.segmentSize);
  }

  /** The first address of `segment`. */
  segmentStart(segment: number): Address {
    return segment * this.segmentSize;
  }

  /**
   * Checks an IO of `length` bytes at `address`: an integer address in
   * `[0, 2^48)` with the IO ending at or below 2^48 (else ERR_ADDRESS_OUT_OF_RANGE),
   * address and length multiples of the alignment (else ERR_INVALID_ARGUMENT).
   */
  checkIo(address: Address, length: ByteCount): void {
    if (!Number.isInteger(address)) {
      throw new InvalidArgumentError(`address must be an integer, got ${address}`);
    }
    if (address < 0 || address + length > MAX_ADDRESS || address >= MAX_ADDRESS) {
      throw new OutOfRangeError(
        `IO of ${length} bytes at ${address} is outside [0, 2^48)`,
        address,
      );
    }
    if (this.alignment > 1 && (address % this.alignment !== 0 || length % this.alignment !== 0)) {
      throw new InvalidArgumentError(
        `IO of ${length} bytes at ${address} is not aligned to ${this.alignment} bytes`,
      );
    }
  }

  /** Checks a truncation address: an integer in `[0, 2^48]`. */
  checkTruncate(address: Address): void {
    if (!Number.isInteger(address)) {
      throw new InvalidArgumentError(`address must be an integer, got ${address}`);
    }
    if (address < 0 || address > MAX_ADDRESS) {
      throw new OutOfRangeError(`truncation address ${address} is outside [0, 2^48]`, address);
    }
  }
}
