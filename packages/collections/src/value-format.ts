import { CollectionError } from './collection-error.js';
import { SLICE_ITEMS, type Sliced } from './sliced.js';
import type { SlotMap } from './slot-map.js';

/**
 * The serialized form shared by hashes and sets: a format byte, a u32
 * count, then u32-length-prefixed strings (fields and values alternate for
 * a hash). Strings are latin1 inside the structures (one byte per char), so
 * a byte string round-trips exactly.
 */
export const FORMAT_V1 = 1;
/**
 * A hash with field expiry times: FORMAT_V1's body, then a u32 count and
 * that many (u32-length-prefixed field, f64 LE unix ms) pairs.
 */
export const FORMAT_HASH_TTL = 2;

/** Bytes of the serialized form of `strings` (each with its u32 length). */
export function encodedSize(totalChars: number, strings: number): number {
  return 5 + strings * 4 + totalChars;
}

export class StringWriter {
  readonly buf: Buffer;
  private pos = 5;

  constructor(totalChars: number, count: number, strings: number) {
    this.buf = Buffer.allocUnsafe(encodedSize(totalChars, strings));
    this.buf[0] = FORMAT_V1;
    this.buf.writeUInt32LE(count, 1);
  }

  put(s: string): void {
    const n = this.buf.write(s, this.pos + 4, 'latin1');
    this.buf.writeUInt32LE(n, this.pos);
    this.pos += 4 + n;
  }

  finish(): Buffer {
    if (this.pos !== this.buf.length) {
      throw new CollectionError('ERR_INVALID_ARGUMENT', 'serialized size mismatch');
    }
    return this.buf;
  }
}

/**
 * Writes the keys of a SlotMap in slot order, each followed by its value in
 * `values` (the same map, for a hash) when given, yielding every
 * SLICE_ITEMS slots: the large shapes of hashes and sets encode in slices.
 */
export function* putSlots(
  w: StringWriter,
  keys: SlotMap<unknown>,
  values: SlotMap<string> | null,
): Sliced<void> {
  const n = keys.slotCount;
  for (let s = 0; s < n; s++) {
    const k = keys.keyAt(s);
    if (k !== undefined) {
      w.put(k);
      if (values !== null) w.put(values.valueAt(s)!);
    }
    if (s % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
  }
}

export class StringReader {
  private readonly buf: Buffer;
  private pos = 5;
  readonly count: number;

  /** The format byte: FORMAT_V1, or FORMAT_HASH_TTL when `withTtls` allowed it. */
  readonly format: number;

  constructor(bytes: Uint8Array, withTtls = false) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const format = this.buf[0];
    if (
      this.buf.length < 5 ||
      (format !== FORMAT_V1 && !(withTtls && format === FORMAT_HASH_TTL))
    ) {
      throw new CollectionError('ERR_CORRUPT', 'not a serialized collection (bad format byte)');
    }
    this.format = format!;
    this.count = this.buf.readUInt32LE(1);
  }

  /** A u32 (the count of a trailing section). */
  u32(): number {
    if (this.pos + 4 > this.buf.length)
      throw new CollectionError('ERR_CORRUPT', 'serialized collection cut short');
    const n = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return n;
  }

  /** An f64 LE (a field's expiry time). */
  f64(): number {
    if (this.pos + 8 > this.buf.length)
      throw new CollectionError('ERR_CORRUPT', 'serialized collection cut short');
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  next(): string {
    const { buf } = this;
    if (this.pos + 4 > buf.length)
      throw new CollectionError('ERR_CORRUPT', 'serialized collection cut short');
    const n = buf.readUInt32LE(this.pos);
    const start = this.pos + 4;
    if (start + n > buf.length)
      throw new CollectionError('ERR_CORRUPT', 'serialized collection cut short');
    this.pos = start + n;
    return buf.toString('latin1', start, start + n);
  }

  end(): void {
    if (this.pos !== this.buf.length)
      throw new CollectionError('ERR_CORRUPT', 'trailing bytes after a collection');
  }
}

/** A byte string as the latin1 string the structures hold. */
export function latin1(bytes: Uint8Array): string {
  // Arguments off the socket are Buffers already: no view made for them.
  if (Buffer.isBuffer(bytes)) return bytes.toString('latin1');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** A record that names one field or member twice: not written by this package's encoders. */
export function duplicateMember(): CollectionError {
  return new CollectionError('ERR_CORRUPT', 'serialized collection repeats a member');
}
