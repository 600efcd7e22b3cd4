import type { Address, ByteCount } from '@strata/io';

/**
 * Bytes of the device handed to the caller by a page reader. The valid
 * bytes are `buffer[offset, offset + length)` and hold device addresses
 * `[address, end)`; `buffer[i]` holds address `bufferAddress + i`, so in the
 * fixed modes (single, double, frames) `buffer` is laid out as the page it
 * came from and page offsets index it directly.
 *
 * A frame is valid until the next call to the reader's `next()`, `seek()` or
 * `close()`; its object and buffer are then reused for a later frame. Copy
 * what must outlive that.
 */
export interface Frame {
  readonly buffer: Buffer;
  /** Device address of `buffer[0]`. */
  readonly bufferAddress: Address;
  /** Device address of the first valid byte. */
  readonly address: Address;
  /** Index of `address` in `buffer`. */
  readonly offset: number;
  /** Valid bytes. */
  readonly length: ByteCount;
  /** One past the last valid byte's address. */
  readonly end: Address;
  /** 0-based position of this frame in the stream since the reader was created. */
  readonly sequence: number;
  /** The valid bytes as a view (allocates a view object; the hot path uses `buffer` + `offset`). */
  bytes(): Buffer;
}

/** The reader's reusable frame object: one per read slot, rewritten for each read. */
export class MutableFrame implements Frame {
  buffer: Buffer = EMPTY;
  bufferAddress: Address = 0;
  address: Address = 0;
  offset = 0;
  length: ByteCount = 0;
  sequence = 0;

  get end(): Address {
    return this.address + this.length;
  }

  bytes(): Buffer {
    return this.buffer.subarray(this.offset, this.offset + this.length);
  }

  /** Drops the buffer reference, so a frame given back can be garbage collected. */
  clear(): void {
    this.buffer = EMPTY;
    this.length = 0;
  }
}

const EMPTY = Buffer.alloc(0);
