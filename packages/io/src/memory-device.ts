import { type ByteCount, isPowerOfTwo } from './address.js';
import type { DeviceOptions } from './device.js';
import { InvalidArgumentError } from './errors.js';
import { MemoryVolume } from './memory-volume.js';
import { RESOLVED, SegmentedDevice } from './segmented-device.js';

export interface MemoryDeviceOptions extends DeviceOptions {
  /** Default `"memory"`. */
  name?: string;
  /** Allocation unit inside a segment, a power of two. Default 1 MiB (or the segment size if smaller). */
  chunkSize?: ByteCount;
  /**
   * Storage to use; a new device over a volume a closed device used sees its
   * data (a simulated restart). Default: a private volume, freed by `close()`.
   */
  volume?: MemoryVolume;
}

export const DEFAULT_CHUNK_SIZE: ByteCount = 1 << 20;

/**
 * A device in memory, with the same semantics as the file device (segments,
 * holes, begin/end, truncation, in-flight limit, stats). Segments are
 * allocated lazily in chunks, so a sparse 1 GiB segment costs little. IO
 * completes without touching the OS, which makes it a fast fake disk for
 * benchmarks and tests.
 */
export class MemoryDevice extends SegmentedDevice {
  readonly volume: MemoryVolume;
  private readonly ownsVolume: boolean;

  constructor(options: MemoryDeviceOptions = {}) {
    super(options.name ?? 'memory', options);
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!isPowerOfTwo(chunkSize)) {
      throw new InvalidArgumentError(`chunkSize must be a power of two, got ${chunkSize}`);
    }
    this.ownsVolume = options.volume === undefined;
    this.volume = options.volume ?? new MemoryVolume();
    this.volume.attach(this.segmentSize, chunkSize);
    const { begin, end } = this.volume.bounds();
    this.restoreBounds(begin, end);
  }

  /** Bytes of memory held by segment chunks. */
  get allocatedBytes(): ByteCount {
    return this.volume.allocatedBytes;
  }

  protected override readPiece(
    segment: number,
    offset: ByteCount,
    into: Uint8Array,
    intoOffset: ByteCount,
    length: ByteCount,
  ): Promise<void> {
    this.volume.read(segment, offset, into, intoOffset, length);
    return RESOLVED;
  }

  protected override writePiece(
    segment: number,
    offset: ByteCount,
    from: Uint8Array,
    fromOffset: ByteCount,
    length: ByteCount,
  ): Promise<void> {
    // Keep the begin segment present, as the file device keeps its file, so
    // a device reopened over this volume recovers the same begin address.
    if (!this.volume.has(segment)) this.volume.create(this.beginSegment);
    this.volume.write(segment, offset, from, fromOffset, length);
    return RESOLVED;
  }

  protected override syncStorage(): Promise<void> {
    return RESOLVED;
  }

  protected override dropSegments(segment: number): Promise<void> {
    this.volume.deleteBelow(segment);
    this.volume.create(segment);
    return RESOLVED;
  }

  protected override closeStorage(): Promise<void> {
    this.volume.detach();
    if (this.ownsVolume) this.volume.clear();
    return RESOLVED;
  }
}
