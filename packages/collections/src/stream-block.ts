import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import { CollectionError } from './collection-error.js';
import type { CollectionValue } from './collection-value.js';
import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';
import { ByteReader, ByteWriter, STREAM_BLOCK_FORMAT } from './stream-format.js';
import type { StreamId } from './stream-id.js';

// Memory estimate: an ID string and an array per entry, a string header per field.
const ENTRY_BYTES = 96;
const FIELD_BYTES = 24;
const BLOCK_BYTES = 64;

/**
 * Entries of a stream in ID order: `fields[i]` is entry `ids[i]`'s
 * `[field, value, ...]`. A stream's open tail is one (inside the stream's
 * head); a sealed block is one too, as a collection record of its own
 * (RecordType.STREAM_BLOCK) under an internal key, so the collection cache
 * loads, evicts and writes it back as any collection.
 */
export class StreamBlockValue implements CollectionValue {
  readonly type: number = RecordType.STREAM_BLOCK;
  readonly ids: StreamId[] = [];
  readonly fields: string[][] = [];
  /** Bytes of the entries' strings (for the memory estimate and the seal threshold). */
  bytes = 0;

  get size(): number {
    return this.ids.length;
  }

  first(): StreamId | undefined {
    return this.ids[0];
  }

  last(): StreamId | undefined {
    return this.ids[this.ids.length - 1];
  }

  encoding(): string {
    return 'stream-block';
  }

  memoryBytes(): number {
    return BLOCK_BYTES + this.ids.length * ENTRY_BYTES + this.bytes;
  }

  push(id: StreamId, fields: string[]): void {
    this.ids.push(id);
    this.fields.push(fields);
    this.bytes += entryBytes(fields);
  }

  /** The index of the first ID >= `id` (size when none). */
  indexOf(id: StreamId): number {
    const ids = this.ids;
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** How many entries have `start <= id <= end`. */
  countIn(start: StreamId, end: StreamId): number {
    if (start > end) return 0;
    const from = this.indexOf(start);
    let to = this.indexOf(end);
    if (this.ids[to] === end) to++;
    return to - from;
  }

  /** Entry `id`'s fields, undefined when it is not here. */
  get(id: StreamId): readonly string[] | undefined {
    const i = this.indexOf(id);
    return this.ids[i] === id ? this.fields[i] : undefined;
  }

  /** Removes entry `id`; whether it was here. */
  remove(id: StreamId): boolean {
    const i = this.indexOf(id);
    if (this.ids[i] !== id) return false;
    this.bytes -= entryBytes(this.fields[i]!);
    this.ids.splice(i, 1);
    this.fields.splice(i, 1);
    return true;
  }

  /** Removes the first `n` entries. */
  dropFront(n: number): void {
    for (let i = 0; i < n; i++) this.bytes -= entryBytes(this.fields[i]!);
    this.ids.splice(0, n);
    this.fields.splice(0, n);
  }

  /** Removes every entry. */
  clear(): void {
    this.ids.length = 0;
    this.fields.length = 0;
    this.bytes = 0;
  }

  encode(): Buffer {
    return runWhole(this.encodeSliced());
  }

  /** A format byte, the entry count, then each entry (ID, u32 string count, strings). */
  *encodeSliced(): Sliced<Buffer> {
    const w = new ByteWriter(16 + this.ids.length * 32 + this.bytes);
    w.u8(STREAM_BLOCK_FORMAT);
    yield* this.writeEntries(w);
    return w.finish();
  }

  /** The entries as the block record and the head's tail write them. */
  *writeEntries(w: ByteWriter): Sliced<void> {
    w.u32(this.ids.length);
    for (let i = 0; i < this.ids.length; i++) {
      const fields = this.fields[i]!;
      w.id(this.ids[i]!);
      w.u32(fields.length);
      for (const f of fields) w.str(f);
      if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
    }
  }

  /** Reads what writeEntries wrote, after the last ID `after` (entries must ascend). */
  *readEntries(r: ByteReader, after: StreamId | ''): Sliced<void> {
    const n = r.u32();
    let previous: string = after;
    for (let i = 0; i < n; i++) {
      const id = r.id();
      if (id <= previous) throw new CollectionError('ERR_CORRUPT', 'stream entries out of order');
      previous = id;
      const k = r.u32();
      const fields: string[] = new Array(k);
      for (let f = 0; f < k; f++) fields[f] = r.str();
      this.push(id, fields);
      if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
    }
  }
}

export function entryBytes(fields: readonly string[]): number {
  let n = 0;
  for (const f of fields) n += FIELD_BYTES + f.length;
  return n;
}

/** A sealed block from its record (StreamBlockValue.encodeSliced). */
export function* decodeStreamBlockSliced(bytes: Uint8Array): Sliced<StreamBlockValue> {
  const r = new ByteReader(bytes);
  if (r.u8() !== STREAM_BLOCK_FORMAT) {
    throw new CollectionError('ERR_CORRUPT', 'not a stream block (bad format byte)');
  }
  const b = new StreamBlockValue();
  yield* b.readEntries(r, '');
  r.end();
  return b;
}

registerSlicedCodec(RecordType.STREAM_BLOCK, decodeStreamBlockSliced);
