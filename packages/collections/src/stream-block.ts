import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import { CollectionError } from './collection-error.js';
import type { CollectionValue } from './collection-value.js';
import type { Sliced } from './sliced.js';
import { ByteReader, type ByteWriter, STREAM_BLOCK_FORMAT } from './stream-format.js';
import { type StreamId, streamIdAt } from './stream-id.js';

/** Bytes of an entry's ID (ms then seq, big-endian: byte order is ID order). */
const ID_BYTES = 16;
/** Strings up to this long are copied into a block byte by byte. */
const SHORT_COPY = 32;
// Memory estimate: the object, its two buffers' headers.
const BLOCK_BYTES = 200;

/**
 * Where a reply goes, field by field, straight from a block's bytes
 * (@strata/protocol's ReplyWriter is one): no string is made per field.
 */
export interface FieldSink {
  array(length: number): unknown;
  bulkRange(bytes: Uint8Array, offset: number, length: number): unknown;
}

/**
 * Entries of a stream in ID order, packed as their record stores them:
 * per entry its 16 ID bytes, a u32 count of strings, then each string as a
 * u32 length and its bytes (little-endian lengths), with the start of each
 * entry in `starts`. No JS object per entry (Redis's listpack, in spirit):
 * a 20M-entry stream costs its bytes, not 20M arrays and strings for the
 * GC to trace. A stream's open tail is one (inside its head); a sealed
 * block is one as a collection record of its own (RecordType.STREAM_BLOCK)
 * under an internal key, loaded, evicted and written back as any
 * collection. Entries' fields are read through `fieldsAt` / `writeFields`.
 */
export class StreamBlockValue implements CollectionValue {
  readonly type: number = RecordType.STREAM_BLOCK;
  private buf: Buffer;
  private used = 0;
  private starts: Uint32Array;
  private n = 0;

  constructor(capacity = 256, entries = 8) {
    this.buf = Buffer.allocUnsafe(capacity);
    this.starts = new Uint32Array(entries);
  }

  get size(): number {
    return this.n;
  }

  /** Bytes of the packed entries (the seal threshold, and what a record holds). */
  get bytes(): number {
    return this.used;
  }

  encoding(): string {
    return 'stream-block';
  }

  memoryBytes(): number {
    return BLOCK_BYTES + this.buf.length + this.starts.byteLength;
  }

  first(): StreamId | undefined {
    return this.n === 0 ? undefined : this.idAt(0);
  }

  last(): StreamId | undefined {
    return this.n === 0 ? undefined : this.idAt(this.n - 1);
  }

  /** Entry `i`'s ID. */
  idAt(i: number): StreamId {
    const at = this.starts[i]!;
    return streamIdAt(this.buf, at);
  }

  /**
   * The buffer entries are packed in (valid until the next change) and
   * where entry `i` starts: its ID's 16 bytes (formatStreamIdAt prints them
   * with no ID string made).
   */
  get packed(): Buffer {
    return this.buf;
  }

  startOf(i: number): number {
    return this.starts[i]!;
  }

  /** Appends an entry whose strings are `argv[from, argv.length)` (XADD's field-value pairs). */
  push(id: StreamId, argv: readonly Uint8Array[], from: number): void {
    let size = ID_BYTES + 4;
    for (let i = from; i < argv.length; i++) size += 4 + argv[i]!.length;
    this.reserve(size);
    const b = this.buf;
    let at = this.used;
    this.startAt(at);
    // By code unit: 16 of them cost less than a call into Buffer.write.
    for (let k = 0; k < ID_BYTES; k++) b[at + k] = id.charCodeAt(k);
    at += ID_BYTES;
    putU32(b, at, argv.length - from);
    at += 4;
    for (let i = from; i < argv.length; i++) {
      const f = argv[i]!;
      const n = f.length;
      putU32(b, at, n);
      at += 4;
      // A short string byte by byte: TypedArray#set costs more than the copy.
      if (n <= SHORT_COPY) for (let k = 0; k < n; k++) b[at + k] = f[k]!;
      else b.set(f, at);
      at += n;
    }
    this.used = at;
  }

  /** Appends an entry of strings (latin1: one char, one byte). */
  pushStrings(id: StreamId, fields: readonly string[]): void {
    this.push(
      id,
      fields.map((f) => Buffer.from(f, 'latin1')),
      0,
    );
  }

  /** The index of the first ID >= `id` (size when none). */
  indexOf(id: StreamId): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index of entry `id`, -1 when it is not here. */
  find(id: StreamId): number {
    const i = this.indexOf(id);
    return i < this.n && this.compareAt(i, id) === 0 ? i : -1;
  }

  /** How many entries have `start <= id <= end`. */
  countIn(start: StreamId, end: StreamId): number {
    if (start > end) return 0;
    const from = this.indexOf(start);
    let to = this.indexOf(end);
    if (to < this.n && this.compareAt(to, end) === 0) to++;
    return to - from;
  }

  /** Entry `i`'s ID compared with `id`: negative, 0 or positive. */
  compareAt(i: number, id: StreamId): number {
    const b = this.buf;
    const at = this.starts[i]!;
    for (let k = 0; k < ID_BYTES; k++) {
      const d = b[at + k]! - id.charCodeAt(k);
      if (d !== 0) return d;
    }
    return 0;
  }

  /** Entry `i`'s strings. */
  fieldsAt(i: number): string[] {
    const b = this.buf;
    let at = this.starts[i]! + ID_BYTES;
    const k = b.readUInt32LE(at);
    at += 4;
    const out: string[] = new Array(k);
    for (let f = 0; f < k; f++) {
      const len = b.readUInt32LE(at);
      out[f] = b.toString('latin1', at + 4, at + 4 + len);
      at += 4 + len;
    }
    return out;
  }

  /** Entry `i`'s strings as a reply array, copied from the block's bytes. */
  writeFields(i: number, w: FieldSink): void {
    const b = this.buf;
    let at = this.starts[i]! + ID_BYTES;
    const k = b.readUInt32LE(at);
    at += 4;
    w.array(k);
    for (let f = 0; f < k; f++) {
      const len = b.readUInt32LE(at);
      w.bulkRange(b, at + 4, len);
      at += 4 + len;
    }
  }

  /** Removes entry `id`; whether it was here. */
  remove(id: StreamId): boolean {
    const i = this.find(id);
    if (i === -1) return false;
    const from = this.starts[i]!;
    const to = i + 1 < this.n ? this.starts[i + 1]! : this.used;
    const gone = to - from;
    this.buf.copyWithin(from, to, this.used);
    for (let k = i + 1; k < this.n; k++) this.starts[k - 1] = this.starts[k]! - gone;
    this.n--;
    this.used -= gone;
    return true;
  }

  /** Removes the first `k` entries. */
  dropFront(k: number): void {
    if (k <= 0) return;
    if (k >= this.n) {
      this.clear();
      return;
    }
    const gone = this.starts[k]!;
    this.buf.copyWithin(0, gone, this.used);
    for (let i = k; i < this.n; i++) this.starts[i - k] = this.starts[i]! - gone;
    this.n -= k;
    this.used -= gone;
  }

  clear(): void {
    this.n = 0;
    this.used = 0;
  }

  /** A copy sized to its entries (a sealed block keeps no spare room; COPY's blocks). */
  compact(): StreamBlockValue {
    const b = new StreamBlockValue(Math.max(1, this.used), Math.max(1, this.n));
    this.buf.copy(b.buf, 0, 0, this.used);
    b.starts.set(this.starts.subarray(0, this.n));
    b.used = this.used;
    b.n = this.n;
    return b;
  }

  encode(): Buffer {
    const out = Buffer.allocUnsafe(5 + this.used);
    out[0] = STREAM_BLOCK_FORMAT;
    out.writeUInt32LE(this.n, 1);
    this.buf.copy(out, 5, 0, this.used);
    return out;
  }

  // biome-ignore lint/correctness/useYield: a block's encode is one copy, never sliced
  *encodeSliced(): Sliced<Buffer> {
    return this.encode();
  }

  /** The entries as the block record and the head's tail write them: a u32 count, then the packed bytes. */
  writeEntries(w: ByteWriter): void {
    w.u32(this.n);
    w.raw(this.buf.subarray(0, this.used));
  }

  /**
   * Reads what writeEntries wrote, checking every length and that IDs
   * ascend after `after`: a record that does not check out is ERR_CORRUPT.
   */
  readEntries(r: ByteReader, after: StreamId | ''): void {
    const n = r.u32();
    const { bytes, offset, length } = r.rest();
    const starts = new Uint32Array(Math.max(1, n));
    let at = 0;
    let previous: string = after;
    for (let i = 0; i < n; i++) {
      if (at + ID_BYTES + 4 > length) throw cutShort();
      starts[i] = at;
      const id = streamIdAt(bytes, offset + at);
      if (id <= previous) throw new CollectionError('ERR_CORRUPT', 'stream entries out of order');
      previous = id;
      at += ID_BYTES;
      const k = bytes.readUInt32LE(offset + at);
      at += 4;
      for (let f = 0; f < k; f++) {
        if (at + 4 > length) throw cutShort();
        const len = bytes.readUInt32LE(offset + at);
        at += 4 + len;
        if (at > length) throw cutShort();
      }
    }
    this.buf = Buffer.allocUnsafe(Math.max(1, at));
    bytes.copy(this.buf, 0, offset, offset + at);
    this.starts = starts;
    this.n = n;
    this.used = at;
    r.skip(at);
  }

  private startAt(at: number): void {
    if (this.n === this.starts.length) {
      const next = new Uint32Array(this.starts.length * 2);
      next.set(this.starts);
      this.starts = next;
    }
    this.starts[this.n++] = at;
  }

  private reserve(size: number): void {
    if (this.used + size <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.used + size));
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }
}

/** A u32, little-endian, at `b[at]` (writeUInt32LE without its checks: `at` is reserved). */
function putU32(b: Uint8Array, at: number, v: number): void {
  b[at] = v;
  b[at + 1] = v >>> 8;
  b[at + 2] = v >>> 16;
  b[at + 3] = v >>> 24;
}

function cutShort(): CollectionError {
  return new CollectionError('ERR_CORRUPT', 'serialized stream cut short');
}

/** A sealed block from its record (StreamBlockValue.encode). */
// biome-ignore lint/correctness/useYield: one pass over the bytes, no slices needed
export function* decodeStreamBlockSliced(bytes: Uint8Array): Sliced<StreamBlockValue> {
  const r = new ByteReader(bytes);
  if (r.u8() !== STREAM_BLOCK_FORMAT) {
    throw new CollectionError('ERR_CORRUPT', 'not a stream block (bad format byte)');
  }
  const b = new StreamBlockValue(1, 1);
  b.readEntries(r, '');
  r.end();
  return b;
}

registerSlicedCodec(RecordType.STREAM_BLOCK, decodeStreamBlockSliced);
