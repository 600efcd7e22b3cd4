import { type ByteCount, InvalidArgumentError } from '@strata/io';
import { FrameOwnershipError } from './errors.js';

export interface FramePoolOptions {
  /** Bytes per frame: a page, or the read size of a read-ahead window. */
  frameSize: ByteCount;
  /** Frames that may be held at once (in use plus free). */
  maxFrames: number;
  /**
   * Allocate all `maxFrames` frames now, as slices of one ArrayBuffer, so
   * that a reader's first frames cost nothing either. Default false: frames
   * are allocated on first need, each its own buffer, and can be given back
   * one by one (what adaptive read-ahead wants).
   */
  preallocate?: boolean;
}

/** A point-in-time copy of a pool's counters. */
export interface FramePoolStats {
  frameSize: ByteCount;
  maxFrames: number;
  /** Frames the pool holds now (in use and free). */
  allocatedFrames: number;
  inUse: number;
  free: number;
  /** Bytes of every frame the pool holds now. */
  allocatedBytes: ByteCount;
  /** Highest `inUse` since creation or `resetHighWater()`. */
  highWaterInUse: number;
  /** Highest `allocatedBytes` since creation or `resetHighWater()`. */
  highWaterBytes: ByteCount;
  /** Buffer allocations ever made; flat while a hot loop runs means nothing was allocated. */
  allocations: number;
  /** Bytes handed back to the garbage collector by `trim`, `resize` and stale releases. */
  releasedBytes: ByteCount;
}

/**
 * Fixed-size frames allocated once and reused: `acquire` pops a free frame
 * (allocating only while fewer than `maxFrames` exist), `release` pushes it
 * back. Nothing is allocated once the pool is warm, so a reader that cycles
 * frames through it costs the garbage collector nothing per page.
 *
 * `resize` changes the frame size for the frames handed out from then on:
 * free frames of the old size are dropped at once, frames in use are dropped
 * when released. `trim` drops every free frame. Both give memory back.
 */
export class FramePool {
  #frameSize: ByteCount;
  readonly maxFrames: number;
  readonly #free: Buffer[] = [];
  /**
   * Every frame the pool holds, mapped to whether it is in use. A map whose
   * keys stay put between acquire and release (only the value flips) costs
   * nothing per cycle, unlike adding to and deleting from a set.
   */
  readonly #owned = new Map<Buffer, boolean>();
  #inUse = 0;
  #allocatedBytes = 0;
  #highWaterInUse = 0;
  #highWaterBytes = 0;
  #allocations = 0;
  #releasedBytes = 0;

  constructor(options: FramePoolOptions) {
    checkFrameSize(options.frameSize);
    if (!Number.isInteger(options.maxFrames) || options.maxFrames < 1) {
      throw new InvalidArgumentError(
        `maxFrames must be a positive integer, got ${options.maxFrames}`,
      );
    }
    this.#frameSize = options.frameSize;
    this.maxFrames = options.maxFrames;
    if (options.preallocate) {
      const slab = new ArrayBuffer(this.maxFrames * this.#frameSize);
      this.#allocations++;
      for (let i = 0; i < this.maxFrames; i++) {
        const frame = Buffer.from(slab, i * this.#frameSize, this.#frameSize);
        this.#owned.set(frame, false);
        this.#free.push(frame);
      }
      this.#addBytes(slab.byteLength);
    }
  }

  get frameSize(): ByteCount {
    return this.#frameSize;
  }

  get inUse(): number {
    return this.#inUse;
  }

  /** Frames `acquire` can still hand out (free now, or allocatable). */
  get available(): number {
    return this.maxFrames - this.#inUse;
  }

  get allocatedBytes(): ByteCount {
    return this.#allocatedBytes;
  }

  get highWaterInUse(): number {
    return this.#highWaterInUse;
  }

  get highWaterBytes(): ByteCount {
    return this.#highWaterBytes;
  }

  /**
   * A frame of `frameSize` bytes, or `undefined` when `maxFrames` are in use.
   * Its contents are whatever the previous user left: callers overwrite it.
   */
  acquire(): Buffer | undefined {
    if (this.#inUse >= this.maxFrames) return undefined;
    let frame = this.#free.pop();
    if (frame === undefined) {
      // Frames of an old size still in use count against maxFrames (checked
      // above), so memory stays bounded across a resize.
      frame = Buffer.alloc(this.#frameSize);
      this.#allocations++;
      this.#addBytes(frame.byteLength);
    }
    this.#owned.set(frame, true);
    this.#inUse++;
    if (this.#inUse > this.#highWaterInUse) this.#highWaterInUse = this.#inUse;
    return frame;
  }

  /** Gives a frame back. Throws if this pool did not hand it out or it was already released. */
  release(frame: Buffer): void {
    if (this.#owned.get(frame) !== true) {
      throw new FrameOwnershipError('frame released twice or not acquired from this pool');
    }
    this.#inUse--;
    if (frame.byteLength !== this.#frameSize) {
      this.#owned.delete(frame);
      this.#dropBytes(frame.byteLength);
      return;
    }
    this.#owned.set(frame, false);
    this.#free.push(frame);
  }

  /**
   * Sets the size of frames handed out from now on. Free frames of another
   * size are dropped now; frames in use are dropped when released.
   */
  resize(frameSize: ByteCount): void {
    checkFrameSize(frameSize);
    if (frameSize === this.#frameSize) return;
    this.#frameSize = frameSize;
    this.trim();
  }

  /** Drops every free frame so the garbage collector can reclaim it; returns the bytes dropped. */
  trim(): ByteCount {
    let bytes = 0;
    for (const frame of this.#free) {
      bytes += frame.byteLength;
      this.#owned.delete(frame);
    }
    this.#free.length = 0;
    this.#dropBytes(bytes);
    return bytes;
  }

  resetHighWater(): void {
    this.#highWaterInUse = this.#inUse;
    this.#highWaterBytes = this.#allocatedBytes;
  }

  stats(): FramePoolStats {
    return {
      frameSize: this.#frameSize,
      maxFrames: this.maxFrames,
      allocatedFrames: this.#owned.size,
      inUse: this.#inUse,
      free: this.#free.length,
      allocatedBytes: this.#allocatedBytes,
      highWaterInUse: this.#highWaterInUse,
      highWaterBytes: this.#highWaterBytes,
      allocations: this.#allocations,
      releasedBytes: this.#releasedBytes,
    };
  }

  #addBytes(bytes: ByteCount): void {
    this.#allocatedBytes += bytes;
    if (this.#allocatedBytes > this.#highWaterBytes) this.#highWaterBytes = this.#allocatedBytes;
  }

  #dropBytes(bytes: ByteCount): void {
    this.#allocatedBytes -= bytes;
    this.#releasedBytes += bytes;
  }
}

function checkFrameSize(frameSize: ByteCount): void {
  if (!Number.isInteger(frameSize) || frameSize < 1) {
    throw new InvalidArgumentError(`frameSize must be a positive integer, got ${frameSize}`);
  }
}
