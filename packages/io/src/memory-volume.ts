import type { ByteCount } from './address.js';
import { InvalidArgumentError } from './errors.js';

interface MemorySegment {
  /** Chunks allocated on first write; a missing chunk reads as zeros. */
  readonly chunks: (Buffer | undefined)[];
  /** One past the highest byte written, like a segment file's size. */
  size: ByteCount;
}

/**
 * The storage behind a {@link MemoryDevice}: segments held as lazily
 * allocated, zero-filled chunks, so a 1 GiB segment with a few bytes in it
 * costs one chunk. It behaves like a directory of segment files: pass the
 * same volume to a new device after closing the old one and the new device
 * sees the data, its begin and its end (a simulated restart).
 * One device at a time may use a volume.
 */
export class MemoryVolume {
  private readonly segments = new Map<number, MemorySegment>();
  private segmentSize = 0;
  private chunkSize = 0;
  private inUse = false;

  /** Bytes of chunks allocated. */
  get allocatedBytes(): ByteCount {
    let total = 0;
    for (const segment of this.segments.values()) {
      for (const chunk of segment.chunks) if (chunk !== undefined) total += chunk.length;
    }
    return total;
  }

  /** Segment numbers present, ascending. */
  segmentNumbers(): number[] {
    return [...this.segments.keys()].sort((a, b) => a - b);
  }

  /** Claims the volume for one device, fixing its geometry on first use. */
  attach(segmentSize: ByteCount, chunkSize: ByteCount): void {
    if (this.inUse) throw new InvalidArgumentError('memory volume is in use by another device');
    if (this.segmentSize !== 0 && this.segmentSize !== segmentSize) {
      throw new InvalidArgumentError(
        `memory volume has segmentSize ${this.segmentSize}, device asked for ${segmentSize}`,
      );
    }
    if (this.chunkSize === 0) this.chunkSize = Math.min(chunkSize, segmentSize);
    this.segmentSize = segmentSize;
    this.inUse = true;
  }

  detach(): void {
    this.inUse = false;
  }

  /** Begin and end recovered from the segments present, as for segment files. */
  bounds(): { begin: number; end: number } {
    let first = Number.POSITIVE_INFINITY;
    let end = 0;
    for (const [n, segment] of this.segments) {
      if (n < first) first = n;
      end = Math.max(end, n * this.segmentSize + segment.size);
    }
    return { begin: first === Number.POSITIVE_INFINITY ? 0 : first * this.segmentSize, end };
  }

  has(segment: number): boolean {
    return this.segments.has(segment);
  }

  /** Creates an empty segment if missing (like creating an empty file). */
  create(segment: number): void {
    if (!this.segments.has(segment)) this.segments.set(segment, { chunks: [], size: 0 });
  }

  /** Deletes every segment below `segment`. */
  deleteBelow(segment: number): void {
    for (const n of this.segments.keys()) if (n < segment) this.segments.delete(n);
  }

  /** Drops everything. */
  clear(): void {
    this.segments.clear();
  }

  read(
    segment: number,
    offset: ByteCount,
    into: Uint8Array,
    intoOffset: ByteCount,
    length: ByteCount,
  ): void {
    const seg = this.segments.get(segment);
    if (seg === undefined) {
      into.fill(0, intoOffset, intoOffset + length);
      return;
    }
    const chunkSize = this.chunkSize;
    let done = 0;
    while (done < length) {
      const pos = offset + done;
      const index = Math.floor(pos / chunkSize);
      const at = pos - index * chunkSize;
      const n = Math.min(length - done, chunkSize - at);
      const chunk = seg.chunks[index];
      if (chunk === undefined) into.fill(0, intoOffset + done, intoOffset + done + n);
      else into.set(chunk.subarray(at, at + n), intoOffset + done);
      done += n;
    }
  }

  write(
    segment: number,
    offset: ByteCount,
    from: Uint8Array,
    fromOffset: ByteCount,
    length: ByteCount,
  ): void {
    let seg = this.segments.get(segment);
    if (seg === undefined) {
      seg = { chunks: [], size: 0 };
      this.segments.set(segment, seg);
    }
    const chunkSize = this.chunkSize;
    let done = 0;
    while (done < length) {
      const pos = offset + done;
      const index = Math.floor(pos / chunkSize);
      const at = pos - index * chunkSize;
      const n = Math.min(length - done, chunkSize - at);
      let chunk = seg.chunks[index];
      if (chunk === undefined) {
        chunk = Buffer.alloc(chunkSize);
        seg.chunks[index] = chunk;
      }
      chunk.set(from.subarray(fromOffset + done, fromOffset + done + n), at);
      done += n;
    }
    if (offset + length > seg.size) seg.size = offset + length;
  }
}
