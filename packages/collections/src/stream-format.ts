import { CollectionError } from './collection-error.js';
import { type StreamId, streamIdAt } from './stream-id.js';

/** The format byte of a stream head with its entries inline (read only: streams before blocks). */
export const STREAM_FORMAT_INLINE = 1;

/** The format byte of a stream head (see StreamValue.encodeSliced). */
export const STREAM_FORMAT = 2;

/** The format byte of a sealed stream block (see StreamBlockValue.encodeSliced). */
export const STREAM_BLOCK_FORMAT = 1;

/** Little-endian fields into a buffer that doubles when full. */
export class ByteWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(estimate: number) {
    this.buf = Buffer.allocUnsafe(Math.max(64, estimate));
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.pos++] = v;
  }

  u32(v: number): void {
    this.room(4);
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
  }

  f64(v: number): void {
    this.room(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  id(id: StreamId): void {
    this.room(16);
    this.buf.write(id, this.pos, 16, 'latin1');
    this.pos += 16;
  }

  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A u32 length, then the latin1 string's bytes. */
  str(s: string): void {
    this.room(4 + s.length);
    this.buf.writeUInt32LE(s.length, this.pos);
    this.buf.write(s, this.pos + 4, 'latin1');
    this.pos += 4 + s.length;
  }

  finish(): Buffer {
    return this.pos === this.buf.length ? this.buf : Buffer.from(this.buf.subarray(0, this.pos));
  }
}

/** Reads what ByteWriter wrote; a short or malformed value is ERR_CORRUPT. */
export class ByteReader {
  private readonly buf: Buffer;
  private pos = 0;

  constructor(bytes: Uint8Array) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number): number {
    const at = this.pos;
    if (at + n > this.buf.length)
      throw new CollectionError('ERR_CORRUPT', 'serialized stream cut short');
    this.pos += n;
    return at;
  }

  u8(): number {
    return this.buf[this.need(1)]!;
  }

  u32(): number {
    return this.buf.readUInt32LE(this.need(4));
  }

  f64(): number {
    return this.buf.readDoubleLE(this.need(8));
  }

  id(): StreamId {
    const at = this.need(16);
    return streamIdAt(this.buf, at);
  }

  /** `n` bytes, copied. */
  raw(n: number): Buffer {
    const at = this.need(n);
    return Buffer.from(this.buf.subarray(at, at + n));
  }

  str(): string {
    const n = this.u32();
    const at = this.need(n);
    return this.buf.toString('latin1', at, at + n);
  }

  /** What is left to read, without copying. */
  rest(): { readonly bytes: Buffer; readonly offset: number; readonly length: number } {
    return { bytes: this.buf, offset: this.pos, length: this.buf.length - this.pos };
  }

  skip(n: number): void {
    this.need(n);
  }

  end(): void {
    if (this.pos !== this.buf.length) {
      throw new CollectionError('ERR_CORRUPT', 'trailing bytes after a stream');
    }
  }
}
