import { RecordType } from '@strata/hlog';
import type { CollectionValue } from './collection-value.js';
import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';
import { ByteWriter, STREAM_FORMAT } from './stream-format.js';
import type { StreamConsumer, StreamGroup } from './stream-group.js';
import { MAX_STREAM_ID, MIN_STREAM_ID, type StreamId } from './stream-id.js';

/**
 * Entries per block (Redis's stream-node-max-entries): a block is the unit
 * that approximate trimming (`~`) drops whole and that a range finds by
 * binary search before searching inside it.
 */
export const STREAM_BLOCK_ENTRIES = 100;

/** Entries in ID order: `fields[i]` is entry `ids[i]`'s `[field, value, ...]`. */
export interface StreamBlock {
  readonly ids: StreamId[];
  readonly fields: string[][];
}

/** Sees one entry; returns false to stop. */
export type StreamVisitor = (id: StreamId, fields: readonly string[]) => boolean;

// Memory estimate: an ID string and an array per entry, a string header per field.
const ENTRY_BYTES = 96;
const FIELD_BYTES = 24;
const BLOCK_BYTES = 64;
const BASE_BYTES = 160;
const GROUP_BYTES = 200;

/**
 * A stream: entries in ID order in blocks of up to STREAM_BLOCK_ENTRIES,
 * the stream's counters (last generated ID, entries ever added, the
 * greatest deleted ID) and its consumer groups. Appending touches the last
 * block only; a range starts by a binary search over the blocks; trimming
 * drops whole blocks from the front (then, for exact trimming, the first
 * entries of the next one).
 */
export class StreamValue implements CollectionValue {
  readonly type: number = RecordType.STREAM;
  /** The last ID generated or set (XADD, XSETID): every new ID is greater. */
  lastId: StreamId = MIN_STREAM_ID;
  /** The greatest ID XDEL removed (or XSETID set), 0-0 if none. */
  maxDeletedId: StreamId = MIN_STREAM_ID;
  /** Entries ever added, trimmed and deleted ones included (XSETID may set it). */
  entriesAdded = 0;
  /** Consumer groups by name. */
  readonly groups = new Map<string, StreamGroup>();
  private blocks: StreamBlock[] = [];
  private length = 0;
  private bytes = 0;

  get size(): number {
    return this.length;
  }

  encoding(): string {
    return 'stream';
  }

  memoryBytes(): number {
    let pel = 0;
    for (const g of this.groups.values()) pel += GROUP_BYTES + g.pendingCount * 64;
    return (
      BASE_BYTES + this.blocks.length * BLOCK_BYTES + this.length * ENTRY_BYTES + this.bytes + pel
    );
  }

  encode(): Buffer {
    return runWhole(this.encodeSliced());
  }

  /**
   * The record's value: a format byte, the counters, the entries (ID, u32
   * string count, u32-length-prefixed fields and values), then the groups
   * (name, last ID, entries read, consumers, PEL by consumer index).
   * Yields about every SLICE_ITEMS entries.
   */
  *encodeSliced(): Sliced<Buffer> {
    const w = new ByteWriter(64 + this.length * 32 + this.bytes);
    w.u8(STREAM_FORMAT);
    w.id(this.lastId);
    w.id(this.maxDeletedId);
    w.f64(this.entriesAdded);
    w.u32(this.length);
    let n = 0;
    for (const b of this.blocks) {
      for (let i = 0; i < b.ids.length; i++) {
        const fields = b.fields[i]!;
        w.id(b.ids[i]!);
        w.u32(fields.length);
        for (const f of fields) w.str(f);
      }
      n += b.ids.length;
      if (n >= SLICE_ITEMS) {
        n = 0;
        yield;
      }
    }
    w.u32(this.groups.size);
    for (const g of this.groups.values()) {
      w.str(g.name);
      w.id(g.lastId);
      w.f64(g.entriesRead);
      const index = new Map<StreamConsumer, number>();
      w.u32(g.consumers.size);
      for (const c of g.consumers.values()) {
        index.set(c, index.size);
        w.str(c.name);
        w.f64(c.seenTime);
        w.f64(c.activeTime);
      }
      w.u32(g.pendingCount);
      g.forPending(MIN_STREAM_ID, MAX_STREAM_ID, (e) => {
        w.id(e.id);
        w.u32(index.get(e.consumer)!);
        w.f64(e.deliveryTime);
        w.u32(e.deliveryCount);
        return true;
      });
      yield;
    }
    return w.finish();
  }

  /** The blocks in ID order (for the codec and XINFO's node counts). */
  get allBlocks(): readonly StreamBlock[] {
    return this.blocks;
  }

  /** The first entry's ID, 0-0 when empty. */
  firstId(): StreamId {
    return this.blocks[0]?.ids[0] ?? MIN_STREAM_ID;
  }

  /** The last entry's ID, 0-0 when empty (the last generated ID may be greater). */
  lastEntryId(): StreamId {
    const b = this.blocks[this.blocks.length - 1];
    return b === undefined ? MIN_STREAM_ID : b.ids[b.ids.length - 1]!;
  }

  /** Appends an entry; `id` must be greater than lastId (the caller checked). */
  append(id: StreamId, fields: string[]): void {
    this.put(id, fields);
    this.lastId = id;
    this.entriesAdded++;
  }

  /** Appends an entry as loaded from the serialized form (no counter moves). */
  put(id: StreamId, fields: string[]): void {
    let b = this.blocks[this.blocks.length - 1];
    if (b === undefined || b.ids.length >= STREAM_BLOCK_ENTRIES) {
      b = { ids: [], fields: [] };
      this.blocks.push(b);
    }
    b.ids.push(id);
    b.fields.push(fields);
    this.length++;
    this.bytes += entryBytes(fields);
  }

  /** The entry `id`'s fields, undefined when it is not in the stream. */
  get(id: StreamId): readonly string[] | undefined {
    const bi = this.blockAtOrAfter(id);
    const b = this.blocks[bi];
    if (b === undefined) return undefined;
    const i = indexInBlock(b, id);
    return b.ids[i] === id ? b.fields[i] : undefined;
  }

  /** Removes entry `id` (XDEL); whether it was there. */
  delete(id: StreamId): boolean {
    const bi = this.blockAtOrAfter(id);
    const b = this.blocks[bi];
    if (b === undefined) return false;
    const i = indexInBlock(b, id);
    if (b.ids[i] !== id) return false;
    this.bytes -= entryBytes(b.fields[i]!);
    b.ids.splice(i, 1);
    b.fields.splice(i, 1);
    if (b.ids.length === 0) this.blocks.splice(bi, 1);
    this.length--;
    if (id > this.maxDeletedId) this.maxDeletedId = id;
    return true;
  }

  /**
   * Visits the entries with `start <= id <= end`, in ID order or from the
   * end when `reverse`, while `visit` returns true.
   */
  range(start: StreamId, end: StreamId, reverse: boolean, visit: StreamVisitor): void {
    if (start > end) return;
    if (!reverse) {
      const from = this.blockAtOrAfter(start);
      for (let bi = from; bi < this.blocks.length; bi++) {
        const b = this.blocks[bi]!;
        for (let i = bi === from ? indexInBlock(b, start) : 0; i < b.ids.length; i++) {
          const id = b.ids[i]!;
          if (id > end) return;
          if (!visit(id, b.fields[i]!)) return;
        }
      }
      return;
    }
    let bi = this.blockAtOrAfter(end);
    if (bi === this.blocks.length) bi--;
    for (; bi >= 0; bi--) {
      const b = this.blocks[bi]!;
      let i = indexInBlock(b, end);
      if (i === b.ids.length || b.ids[i]! > end) i--;
      for (; i >= 0; i--) {
        const id = b.ids[i]!;
        if (id < start) return;
        if (!visit(id, b.fields[i]!)) return;
      }
    }
  }

  /**
   * Trims to `maxLen` entries from the front (XADD/XTRIM MAXLEN). `approx`
   * drops whole blocks only, at most `limit` entries (0: no limit).
   * Returns how many entries went.
   */
  trimMaxLen(maxLen: number, approx: boolean, limit: number): number {
    return this.trim(
      approx,
      limit,
      (b) => this.length - b.ids.length >= maxLen,
      () => this.length > maxLen,
    );
  }

  /** Trims the entries with an ID below `minId` (MINID); as trimMaxLen. */
  trimMinId(minId: StreamId, approx: boolean, limit: number): number {
    return this.trim(
      approx,
      limit,
      (b) => b.ids[b.ids.length - 1]! < minId,
      (b, i) => b.ids[i]! < minId,
    );
  }

  private trim(
    approx: boolean,
    limit: number,
    wholeBlock: (b: StreamBlock) => boolean,
    /** Whether entry `i` of the first block goes too (exact trimming). */
    more: (b: StreamBlock, i: number) => boolean,
  ): number {
    let removed = 0;
    while (this.blocks.length > 0) {
      const b = this.blocks[0]!;
      if (wholeBlock(b)) {
        if (limit > 0 && removed + b.ids.length > limit) break;
        for (const f of b.fields) this.bytes -= entryBytes(f);
        removed += b.ids.length;
        this.length -= b.ids.length;
        this.blocks.shift();
        continue;
      }
      if (approx) break;
      // Exact: the first entries of this block, one by one.
      let n = 0;
      while (n < b.ids.length && more(b, n)) {
        this.bytes -= entryBytes(b.fields[n]!);
        this.length--;
        n++;
      }
      b.ids.splice(0, n);
      b.fields.splice(0, n);
      removed += n;
      break;
    }
    return removed;
  }

  // ---- consumer groups: entries-read and lag, as Redis 7 computes them ----

  /**
   * How many entries were added up to `id` (Redis's
   * streamEstimateDistanceFromFirstEverEntry), -1 when it cannot be told.
   */
  entriesUpTo(id: StreamId): number {
    if (this.entriesAdded === 0) return 0;
    if (this.length === 0 && id <= this.lastId) return this.entriesAdded;
    if (id === this.lastId) return this.entriesAdded;
    if (id > this.lastId) return -1;
    const first = this.firstId();
    if (this.maxDeletedId === MIN_STREAM_ID || this.maxDeletedId < first) {
      if (id < first) return this.entriesAdded - this.length;
      if (id === first) return this.entriesAdded - this.length + 1;
    }
    return -1;
  }

  /** Whether an entry at or after `start` may have been deleted (streamRangeHasTombstones). */
  hasTombstonesFrom(start: StreamId): boolean {
    if (this.length === 0 || this.maxDeletedId === MIN_STREAM_ID) return false;
    if (this.firstId() > this.maxDeletedId) return false;
    return start <= this.maxDeletedId;
  }

  /** The group's lag (entries not yet delivered to it), null when it cannot be told. */
  lag(g: StreamGroup): number | null {
    if (this.entriesAdded === 0) return 0;
    if (g.entriesRead !== -1 && !this.hasTombstonesFrom(g.lastId)) {
      return this.entriesAdded - g.entriesRead;
    }
    const read = this.entriesUpTo(g.lastId);
    return read === -1 ? null : this.entriesAdded - read;
  }

  /** The group was delivered entry `id` (greater than its last ID): its counters move. */
  delivered(g: StreamGroup, id: StreamId): void {
    if (id <= g.lastId) return;
    if (g.entriesRead !== -1 && !this.hasTombstonesFrom(id)) g.entriesRead++;
    else if (this.entriesAdded !== 0) g.entriesRead = this.entriesUpTo(id);
    g.lastId = id;
  }

  /** The index of the first block whose last ID is >= `id` (blocks.length if none). */
  private blockAtOrAfter(id: StreamId): number {
    const bs = this.blocks;
    let lo = 0;
    let hi = bs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const b = bs[mid]!;
      if (b.ids[b.ids.length - 1]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The index of the first ID >= `id` in `b`. */
function indexInBlock(b: StreamBlock, id: StreamId): number {
  let lo = 0;
  let hi = b.ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (b.ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function entryBytes(fields: readonly string[]): number {
  let n = 0;
  for (const f of fields) n += FIELD_BYTES + f.length;
  return n;
}
