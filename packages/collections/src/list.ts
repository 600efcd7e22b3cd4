import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import { CollectionError } from './collection-error.js';
import type { CollectionValue } from './collection-value.js';
import { listFitsListpack } from './encoding-limits.js';
import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';

/** Elements per chunk of the deque (a quicklist node). */
export const LIST_CHUNK = 128;
/**
 * Redis 7.2's list-max-listpack-size -2: a list is a `listpack` while its
 * listpack would take at most 8 KiB, and a `quicklist` past that; it goes
 * back once it fits half of that again.
 */
export const LIST_LISTPACK_BYTES = 8192;

// Memory estimate per element: a V8 one-byte string header and an array slot.
const ELEMENT_BYTES = 24;
const CHUNK_BYTES = 64;
/** Whole chunks encoded between two yields: about SLICE_ITEMS elements. */
const CHUNKS_PER_SLICE = SLICE_ITEMS / LIST_CHUNK;
const BASE_BYTES = 96;

/** Bytes an element takes in a listpack (encoding byte(s), data, back-length). */
function listpackEntryBytes(len: number): number {
  const header = len < 64 ? 1 : len < 4096 ? 2 : 5;
  const total = header + len;
  return total + (total < 128 ? 1 : total < 16384 ? 2 : total < 2097152 ? 3 : 5);
}

/**
 * A list: a deque of chunks of up to LIST_CHUNK elements (latin1 strings,
 * one char per byte). The chunks sit in a ring that doubles when full, so a
 * push or pop at either end is O(1); an index walks chunk by chunk from the
 * nearer end, so it costs the distance / LIST_CHUNK. Inserts and removals
 * in the middle touch one chunk (split when it overflows).
 */
export class List implements CollectionValue {
  readonly type: number = RecordType.LIST;
  private ring: (string[] | undefined)[] = new Array(4);
  private head = 0;
  private chunks = 0;
  private length = 0;
  private bytes = 0;
  private packedBytes = 7;
  private quick = false;

  get size(): number {
    return this.length;
  }

  encoding(): string {
    return this.quick ? 'quicklist' : 'listpack';
  }

  memoryBytes(): number {
    return BASE_BYTES + this.chunks * CHUNK_BYTES + this.length * ELEMENT_BYTES + this.bytes;
  }

  encode(): Buffer {
    return runWhole(this.encodeSliced());
  }

  /**
   * The record's value (see encodeList), written into one buffer sized up
   * front, yielding about every SLICE_ITEMS elements (whole chunks): a large
   * list writes back without stalling.
   */
  *encodeSliced(): Sliced<Buffer> {
    const out = Buffer.allocUnsafe(5 + 4 * this.length + this.bytes);
    out[0] = LIST_FORMAT;
    out.writeUInt32LE(this.length, 1);
    let o = 5;
    for (let ci = 0; ci < this.chunks; ci++) {
      for (const v of this.chunk(ci)!) {
        out.writeUInt32LE(v.length, o);
        o = out.write(v, o + 4, 'latin1') + o + 4;
      }
      if (ci % CHUNKS_PER_SLICE === CHUNKS_PER_SLICE - 1) yield;
    }
    if (o !== out.length) {
      throw new CollectionError('ERR_INVALID_ARGUMENT', 'serialized size mismatch');
    }
    return out;
  }

  // ---- ends ------------------------------------------------------------------------

  pushBack(v: string): void {
    let last = this.chunk(this.chunks - 1);
    if (last === undefined || last.length >= LIST_CHUNK) {
      last = [];
      this.insertChunk(this.chunks, last);
    }
    last.push(v);
    this.added(v);
  }

  pushFront(v: string): void {
    let first = this.chunk(0);
    if (first === undefined || first.length >= LIST_CHUNK) {
      first = [];
      this.insertChunk(0, first);
    }
    first.unshift(v);
    this.added(v);
  }

  popFront(): string | undefined {
    const first = this.chunk(0);
    if (first === undefined) return undefined;
    const v = first.shift()!;
    if (first.length === 0) this.removeChunk(0);
    this.removed(v);
    return v;
  }

  popBack(): string | undefined {
    const last = this.chunk(this.chunks - 1);
    if (last === undefined) return undefined;
    const v = last.pop()!;
    if (last.length === 0) this.removeChunk(this.chunks - 1);
    this.removed(v);
    return v;
  }

  // ---- by index ----------------------------------------------------------------------

  /** The element at `index` (0 <= index < size). */
  get(index: number): string {
    this.locate(index);
    return this.chunk(located.chunk)![located.offset]!;
  }

  set(index: number, v: string): void {
    this.locate(index);
    const c = this.chunk(located.chunk)!;
    this.removed(c[located.offset]!);
    c[located.offset] = v;
    this.added(v);
  }

  /** Inserts `v` so that it ends at `index` (0 <= index <= size). */
  insert(index: number, v: string): void {
    if (index === 0) {
      this.pushFront(v);
      return;
    }
    if (index === this.length) {
      this.pushBack(v);
      return;
    }
    this.locate(index);
    const at = located.chunk;
    const c = this.chunk(at)!;
    c.splice(located.offset, 0, v);
    if (c.length > LIST_CHUNK) this.insertChunk(at + 1, c.splice(c.length >>> 1));
    this.added(v);
  }

  /** Removes the element at `index`. */
  removeAt(index: number): void {
    this.locate(index);
    const c = this.chunk(located.chunk)!;
    const [v] = c.splice(located.offset, 1);
    if (c.length === 0) this.removeChunk(located.chunk);
    this.removed(v!);
  }

  /** Calls `fn` for the elements of [start, end] (0 <= start <= end < size), walking forward. */
  forRange(start: number, end: number, fn: (v: string, index: number) => void): void {
    if (start > end) return;
    this.locate(start);
    let ci = located.chunk;
    let off = located.offset;
    for (let i = start; i <= end; ci++, off = 0) {
      const c = this.chunk(ci)!;
      for (; off < c.length && i <= end; off++, i++) fn(c[off]!, i);
    }
  }

  /** Calls `fn` from `start` downwards to `end` (end <= start), walking backward. */
  forRangeReverse(start: number, end: number, fn: (v: string, index: number) => void): void {
    if (start < end) return;
    this.locate(start);
    let ci = located.chunk;
    let off = located.offset;
    for (let i = start; i >= end; ) {
      const c = this.chunk(ci)!;
      for (; off >= 0 && i >= end; off--, i--) fn(c[off]!, i);
      ci--;
      if (ci >= 0) off = this.chunk(ci)!.length - 1;
    }
  }

  /** Keeps only [start, end] (an empty range empties the list). Whole chunks go at once. */
  trim(start: number, end: number): void {
    if (start > end || start >= this.length) {
      this.clear();
      return;
    }
    let dropBack = this.length - 1 - end;
    while (dropBack > 0) {
      const c = this.chunk(this.chunks - 1)!;
      if (c.length <= dropBack) {
        for (const v of c) this.removed(v);
        dropBack -= c.length;
        this.removeChunk(this.chunks - 1);
      } else {
        for (const v of c.splice(c.length - dropBack)) this.removed(v);
        dropBack = 0;
      }
    }
    let dropFront = start;
    while (dropFront > 0) {
      const c = this.chunk(0)!;
      if (c.length <= dropFront) {
        for (const v of c) this.removed(v);
        dropFront -= c.length;
        this.removeChunk(0);
      } else {
        for (const v of c.splice(0, dropFront)) this.removed(v);
        dropFront = 0;
      }
    }
  }

  /**
   * LREM: removes up to `count` elements equal to `v` from the head (count
   * > 0), from the tail (count < 0), or all (0). Returns how many went.
   */
  removeEqual(v: string, count: number): number {
    let removed = 0;
    const limit = count === 0 ? Number.POSITIVE_INFINITY : Math.abs(count);
    if (count >= 0) {
      for (let ci = 0; ci < this.chunks && removed < limit; ) {
        const c = this.chunk(ci)!;
        for (let i = 0; i < c.length && removed < limit; ) {
          if (c[i] === v) {
            c.splice(i, 1);
            removed++;
            this.removed(v);
          } else i++;
        }
        if (c.length === 0) this.removeChunk(ci);
        else ci++;
      }
    } else {
      for (let ci = this.chunks - 1; ci >= 0 && removed < limit; ci--) {
        const c = this.chunk(ci)!;
        for (let i = c.length - 1; i >= 0 && removed < limit; i--) {
          if (c[i] === v) {
            c.splice(i, 1);
            removed++;
            this.removed(v);
          }
        }
        if (c.length === 0) this.removeChunk(ci);
      }
    }
    return removed;
  }

  clear(): void {
    this.ring = new Array(4);
    this.head = 0;
    this.chunks = 0;
    this.length = 0;
    this.bytes = 0;
    this.packedBytes = 7;
    this.quick = false;
  }

  // ---- internals ---------------------------------------------------------------------

  private chunk(i: number): string[] | undefined {
    if (i < 0 || i >= this.chunks) return undefined;
    return this.ring[(this.head + i) & (this.ring.length - 1)];
  }

  /** Sets `located` to the chunk and offset of `index`, walking from the nearer end. */
  private locate(index: number): void {
    if (index < this.length >>> 1) {
      let i = index;
      for (let ci = 0; ; ci++) {
        const n = this.chunk(ci)!.length;
        if (i < n) {
          located.chunk = ci;
          located.offset = i;
          return;
        }
        i -= n;
      }
    }
    let fromEnd = this.length - 1 - index;
    for (let ci = this.chunks - 1; ; ci--) {
      const n = this.chunk(ci)!.length;
      if (fromEnd < n) {
        located.chunk = ci;
        located.offset = n - 1 - fromEnd;
        return;
      }
      fromEnd -= n;
    }
  }

  private insertChunk(at: number, c: string[]): void {
    if (this.chunks === this.ring.length) this.grow();
    const mask = this.ring.length - 1;
    if (at === 0) {
      this.head = (this.head - 1) & mask;
      this.ring[this.head] = c;
    } else {
      // Chunks after `at` move one slot right (middle inserts only: LINSERT).
      for (let i = this.chunks; i > at; i--) {
        this.ring[(this.head + i) & mask] = this.ring[(this.head + i - 1) & mask];
      }
      this.ring[(this.head + at) & mask] = c;
    }
    this.chunks++;
  }

  private removeChunk(at: number): void {
    const mask = this.ring.length - 1;
    if (at === 0) {
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) & mask;
    } else {
      for (let i = at; i < this.chunks - 1; i++) {
        this.ring[(this.head + i) & mask] = this.ring[(this.head + i + 1) & mask];
      }
      this.ring[(this.head + this.chunks - 1) & mask] = undefined;
    }
    this.chunks--;
  }

  private grow(): void {
    const old = this.ring;
    const next = new Array<string[] | undefined>(old.length * 2);
    for (let i = 0; i < this.chunks; i++) next[i] = old[(this.head + i) & (old.length - 1)];
    this.ring = next;
    this.head = 0;
  }

  private added(v: string): void {
    this.length++;
    this.bytes += v.length;
    this.packedBytes += listpackEntryBytes(v.length);
    if (!this.quick && !listFitsListpack(this.packedBytes, this.length)) this.quick = true;
  }

  private removed(v: string): void {
    this.length--;
    this.bytes -= v.length;
    this.packedBytes -= listpackEntryBytes(v.length);
    // Redis converts back only when the quicklist is one node that fits
    // half the limit (no flapping at the edge).
    if (this.quick && listFitsListpack(this.packedBytes, this.length, true)) this.quick = false;
  }
}

const located = { chunk: 0, offset: 0 };

// ---- codec ----------------------------------------------------------------------

const LIST_FORMAT = 1;

/** The record's value: a format byte, the count (u32), then each element (u32 length, bytes). */
export function encodeList(l: List): Buffer {
  return l.encode();
}

export function decodeList(bytes: Uint8Array): List {
  return runWhole(decodeListSliced(bytes));
}

/** The decoder, yielding every SLICE_ITEMS elements (a large list loads without stalling). */
export function* decodeListSliced(bytes: Uint8Array): Sliced<List> {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 5 || b[0] !== LIST_FORMAT) throw corrupt('bad header');
  const n = b.readUInt32LE(1);
  const l = new List();
  let o = 5;
  for (let i = 0; i < n; i++) {
    if (o + 4 > b.length) throw corrupt('truncated');
    const len = b.readUInt32LE(o);
    o += 4;
    if (o + len > b.length) throw corrupt('truncated');
    l.pushBack(b.toString('latin1', o, o + len));
    o += len;
    if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
  }
  if (o !== b.length) throw corrupt('trailing bytes');
  return l;
}

function corrupt(why: string): CollectionError {
  return new CollectionError('ERR_CORRUPT', `list record does not decode: ${why}`);
}

registerSlicedCodec(RecordType.LIST, decodeListSliced);
