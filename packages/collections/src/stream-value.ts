import { randomBytes } from 'node:crypto';
import { RecordType } from '@strata/hlog';
import type { CollectionValue } from './collection-value.js';
import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';
import { StreamBlockValue } from './stream-block.js';
import { ByteWriter, STREAM_FORMAT, STREAM_FORMAT_INLINE } from './stream-format.js';
import type { StreamConsumer, StreamGroup } from './stream-group.js';
import { MAX_STREAM_ID, MIN_STREAM_ID, type StreamId } from './stream-id.js';

/**
 * The open tail seals into a block record at this many entries, or at
 * STREAM_BLOCK_BYTES: a 20M-entry stream is then 20K references in its head
 * (about 1 MB), and a block is one read of the disk. Approximate trimming
 * (`~`) drops whole blocks, so it keeps up to this many entries more than
 * asked (Redis: its nodes of stream-node-max-entries, 100).
 */
export const STREAM_BLOCK_ENTRIES = 1000;
export const STREAM_BLOCK_BYTES = 64 * 1024;

/** Bytes of a stream ID (a stream's block keys start with them). */
export const STREAM_SID_BYTES = 16;

/** A new stream ID: random bytes. */
export function newStreamId(): Buffer {
  return randomBytes(STREAM_SID_BYTES);
}

/** Bytes of a head's value up to the end of its stream ID (a format byte, a flag, the ID): what streamSidOf reads. */
export const STREAM_SID_END = 2 + STREAM_SID_BYTES;

/**
 * The stream ID (as latin1 text) that a head record's value starts with
 * (encodeSliced's layout: format byte, a flag, the 16 bytes), read without
 * decoding the head; null when the head has none (no block sealed yet, or
 * a head from before blocks), undefined when the bytes are no head.
 */
export function streamSidOf(
  bytes: Uint8Array,
  offset: number,
  length: number,
): string | null | undefined {
  if (length < 1) return undefined;
  const format = bytes[offset];
  if (format === STREAM_FORMAT_INLINE) return null;
  if (format !== STREAM_FORMAT || length < 2) return undefined;
  const flag = bytes[offset + 1];
  if (flag === 0) return null;
  if (flag !== 1 || length < STREAM_SID_END) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset + offset + 2, STREAM_SID_BYTES).toString(
    'latin1',
  );
}

/** What the head knows of a sealed block without reading it. */
export interface StreamBlockRef {
  /** The block's number in its stream (with the stream's `sid`, its record's key). */
  readonly no: number;
  first: StreamId;
  last: StreamId;
  /** Live entries (XDEL and cutting trims take them out). */
  count: number;
  /** StreamBlockValue.bytes of the block. */
  bytes: number;
}

/**
 * The sealed blocks a command works with, loaded before it runs (see
 * refsFor, refsOf, trimPlan): `get` of a block not loaded is a bug. The
 * other three hear what the head did to its blocks, so the owner of the
 * records (the collection cache) writes them.
 */
export interface StreamBlocks {
  get(ref: StreamBlockRef): StreamBlockValue;
  sealed(ref: StreamBlockRef, block: StreamBlockValue): void;
  changed(ref: StreamBlockRef, block: StreamBlockValue): void;
  dropped(ref: StreamBlockRef): void;
}

/** A trim (XADD's and XTRIM's MAXLEN / MINID options). */
export type StreamTrim =
  | {
      readonly strategy: 'maxlen';
      readonly maxLen: number;
      readonly approx: boolean;
      /** At most this many entries go, 0: no limit (`~` only). */
      readonly limit: number;
    }
  | {
      readonly strategy: 'minid';
      readonly minId: StreamId;
      readonly approx: boolean;
      readonly limit: number;
    };

/** Sees one entry, entry `i` of `block`; returns false to stop. */
export type StreamVisitor = (block: StreamBlockValue, i: number) => boolean;

/** Where an entry is: its block (a sealed one, or the tail) and its index there. */
export interface StreamEntry {
  readonly block: StreamBlockValue;
  readonly index: number;
}

// Memory estimate of the head.
const BASE_BYTES = 160;
const REF_BYTES = 120;
const GROUP_BYTES = 200;

/**
 * A stream's head, the record at the user's key: the counters (last
 * generated ID, entries ever added, the greatest deleted ID), the consumer
 * groups with their PELs, references to the sealed blocks in ID order and
 * the open tail block. A sealed block is a record of its own that the head
 * never holds: a command asks the head which blocks it needs, has them
 * loaded, then runs in one step with them (StreamBlocks). Appending touches
 * the tail only; trimming drops whole blocks from the front (then, when
 * exact, the first entries of the next one); counts, lag and entries-read
 * come from the head alone.
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
  /** 16 random bytes naming this stream's block records, made at the first seal. */
  sid: Buffer | null = null;
  /**
   * Moves whenever a sealed block appears, changes or goes. Kept in the
   * record, so blocks loaded at one version are current while the head (or
   * a reload of it) still has that version.
   */
  version = 0;
  /** The number the next sealed block gets. */
  nextNo = 0;
  /** The sealed blocks, in ID order. */
  readonly refs: StreamBlockRef[] = [];
  /** The open block new entries go to. */
  tail = new StreamBlockValue();
  private length = 0;

  get size(): number {
    return this.length;
  }

  encoding(): string {
    return 'stream';
  }

  memoryBytes(): number {
    let pel = 0;
    // No iterator made for a stream without groups (this runs on every change).
    if (this.groups.size > 0) {
      for (const g of this.groups.values()) pel += GROUP_BYTES + g.pendingCount * 64;
    }
    return BASE_BYTES + this.refs.length * REF_BYTES + this.tail.memoryBytes() + pel;
  }

  encode(): Buffer {
    return runWhole(this.encodeSliced());
  }

  /**
   * The record's value: a format byte, the stream ID (a flag, then 16
   * bytes), the counters, the block references (number, first and last ID,
   * count, bytes), the tail's entries (as a block writes them), then the
   * groups (name, last ID, entries read, consumers, PEL by consumer index).
   */
  *encodeSliced(): Sliced<Buffer> {
    const w = new ByteWriter(96 + this.refs.length * 44 + this.tail.size * 32 + this.tail.bytes);
    w.u8(STREAM_FORMAT);
    w.u8(this.sid === null ? 0 : 1);
    if (this.sid !== null) w.raw(this.sid);
    w.id(this.lastId);
    w.id(this.maxDeletedId);
    w.f64(this.entriesAdded);
    w.f64(this.version);
    w.u32(this.nextNo);
    w.u32(this.refs.length);
    for (let i = 0; i < this.refs.length; i++) {
      const r = this.refs[i]!;
      w.u32(r.no);
      w.id(r.first);
      w.id(r.last);
      w.u32(r.count);
      w.u32(r.bytes);
      if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
    }
    this.tail.writeEntries(w);
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

  /** The length from the references and the tail (after the codec filled them). */
  recount(): void {
    let n = this.tail.size;
    for (const r of this.refs) n += r.count;
    this.length = n;
  }

  /** Blocks holding entries, the tail included (XINFO's radix-tree counts). */
  get blockCount(): number {
    return this.refs.length + (this.tail.size > 0 ? 1 : 0);
  }

  /** The first entry's ID, 0-0 when empty. */
  firstId(): StreamId {
    return this.refs[0]?.first ?? this.tail.first() ?? MIN_STREAM_ID;
  }

  /** The last entry's ID, 0-0 when empty (the last generated ID may be greater). */
  lastEntryId(): StreamId {
    return this.tail.last() ?? this.refs[this.refs.length - 1]?.last ?? MIN_STREAM_ID;
  }

  /**
   * Appends an entry of the strings `argv[from, ...)` to the tail (XADD's
   * pairs, copied as they are); `id` must be greater than lastId (the
   * caller checked).
   */
  append(id: StreamId, argv: readonly Uint8Array[], from: number): void {
    this.tail.push(id, argv, from);
    this.length++;
    this.lastId = id;
    this.entriesAdded++;
  }

  /** append of latin1 strings. */
  appendStrings(id: StreamId, fields: readonly string[]): void {
    this.append(
      id,
      fields.map((f) => Buffer.from(f, 'latin1')),
      0,
    );
  }

  /** Seals the tail into a block record when it is full (after an append and its trim). */
  sealIfFull(blocks: StreamBlocks): void {
    const t = this.tail;
    if (t.size < STREAM_BLOCK_ENTRIES && t.bytes < STREAM_BLOCK_BYTES) return;
    this.sid ??= newStreamId();
    const ref: StreamBlockRef = {
      no: this.nextNo++,
      first: t.first()!,
      last: t.last()!,
      count: t.size,
      bytes: t.bytes,
    };
    this.refs.push(ref);
    this.version++;
    // The block gets a copy of its size; the tail keeps its buffer for the next entries.
    blocks.sealed(ref, t.compact());
    t.clear();
  }

  // ---- which blocks a command needs ----------------------------------------------

  /**
   * The sealed blocks a range visit needs: those overlapping
   * `[start, end]`, in visiting order, up to the one where `count` entries
   * (0: all) are reached for sure.
   */
  refsFor(start: StreamId, end: StreamId, reverse: boolean, count: number): StreamBlockRef[] {
    const out: StreamBlockRef[] = [];
    if (start > end) return out;
    const refs = this.refs;
    let have = reverse ? this.tail.countIn(start, end) : 0;
    if (count > 0 && have >= count) return out;
    const within = (r: StreamBlockRef) => {
      out.push(r);
      if (r.first >= start && r.last <= end) have += r.count;
      return count > 0 && have >= count;
    };
    if (!reverse) {
      for (let i = this.refAtOrAfter(start); i < refs.length; i++) {
        if (refs[i]!.first > end || within(refs[i]!)) break;
      }
    } else {
      let i = this.refAtOrAfter(end);
      if (i === refs.length || refs[i]!.first > end) i--;
      for (; i >= 0; i--) {
        if (refs[i]!.last < start || within(refs[i]!)) break;
      }
    }
    return out;
  }

  /** The sealed blocks that may hold the entries `ids` (XDEL, XCLAIM, a PEL's history). */
  refsOf(ids: Iterable<StreamId>): StreamBlockRef[] {
    const out: StreamBlockRef[] = [];
    if (this.refs.length === 0) return out;
    for (const id of ids) {
      const r = this.refs[this.refAtOrAfter(id)];
      if (r !== undefined && r.first <= id && !out.includes(r)) out.push(r);
    }
    return out;
  }

  /** The sealed block an exact trim would cut inside (null: none), `extra` entries to be appended first. */
  trimPlan(t: StreamTrim, extra = 0): StreamBlockRef | null {
    const reach = this.wholeRefs(t, this.length + extra);
    if (reach.stopped || t.approx || reach.k === this.refs.length) return null;
    const r = this.refs[reach.k]!;
    return cutsInto(t, reach.len, r.first) ? r : null;
  }

  // ---- entries ---------------------------------------------------------------------

  /** Where entry `id` is, null when it is not in the stream. */
  entry(id: StreamId, blocks: StreamBlocks): StreamEntry | null {
    const r = this.refs[this.refAtOrAfter(id)];
    if (r !== undefined && id < r.first) return null;
    const block = r === undefined ? this.tail : blocks.get(r);
    const index = block.find(id);
    return index === -1 ? null : { block, index };
  }

  /** Removes entry `id` (XDEL); whether it was there. */
  delete(id: StreamId, blocks: StreamBlocks): boolean {
    const i = this.refAtOrAfter(id);
    const r = this.refs[i];
    if (r === undefined) {
      if (!this.tail.remove(id)) return false;
    } else {
      if (id < r.first) return false;
      const b = blocks.get(r);
      if (!b.remove(id)) return false;
      this.version++;
      r.count--;
      r.bytes = b.bytes;
      if (b.size === 0) {
        this.refs.splice(i, 1);
        blocks.dropped(r);
      } else {
        r.first = b.first()!;
        r.last = b.last()!;
        blocks.changed(r, b);
      }
    }
    this.length--;
    if (id > this.maxDeletedId) this.maxDeletedId = id;
    return true;
  }

  /**
   * Visits the entries with `start <= id <= end`, in ID order or from the
   * end when `reverse`, while `visit` returns true.
   */
  range(
    start: StreamId,
    end: StreamId,
    reverse: boolean,
    visit: StreamVisitor,
    blocks: StreamBlocks,
  ): void {
    if (start > end) return;
    const refs = this.refs;
    if (!reverse) {
      for (let i = this.refAtOrAfter(start); i < refs.length; i++) {
        const r = refs[i]!;
        if (r.first > end) return;
        if (!visitForward(blocks.get(r), start, end, visit)) return;
      }
      visitForward(this.tail, start, end, visit);
      return;
    }
    if (!visitBackward(this.tail, start, end, visit)) return;
    let i = this.refAtOrAfter(end);
    if (i === refs.length || refs[i]!.first > end) i--;
    for (; i >= 0; i--) {
      const r = refs[i]!;
      if (r.last < start) return;
      if (!visitBackward(blocks.get(r), start, end, visit)) return;
    }
  }

  /**
   * Trims from the front as `t` says (XADD/XTRIM MAXLEN or MINID). `~`
   * drops whole blocks only, at most `limit` entries. Returns how many
   * entries went. The block an exact trim cuts must be loaded (trimPlan).
   */
  trim(t: StreamTrim, blocks: StreamBlocks): number {
    const reach = this.wholeRefs(t, this.length);
    let { removed, len } = reach;
    const k = reach.k;
    if (k > 0) {
      for (let i = 0; i < k; i++) blocks.dropped(this.refs[i]!);
      this.refs.splice(0, k);
      this.version++;
    }
    if (!reach.stopped) {
      const r = this.refs[0];
      if (r !== undefined) {
        if (!t.approx && cutsInto(t, len, r.first)) {
          const b = blocks.get(r);
          const n = cutCount(t, len, b);
          b.dropFront(n);
          removed += n;
          r.count -= n;
          r.first = b.first()!;
          r.bytes = b.bytes;
          this.version++;
          blocks.changed(r, b);
        }
      } else if (this.tail.size > 0) {
        const tail = this.tail;
        if (goesWhole(t, len, tail.size, tail.last()!)) {
          if (t.limit <= 0 || removed + tail.size <= t.limit) {
            removed += tail.size;
            len -= tail.size;
            tail.clear();
          }
        } else if (!t.approx && cutsInto(t, len, tail.first()!)) {
          const n = cutCount(t, len, tail);
          tail.dropFront(n);
          removed += n;
        }
      }
    }
    this.length -= removed;
    return removed;
  }

  /** How many sealed blocks from the front a trim drops whole, and what is left. */
  private wholeRefs(
    t: StreamTrim,
    length: number,
  ): { k: number; len: number; removed: number; stopped: boolean } {
    let k = 0;
    let len = length;
    let removed = 0;
    for (; k < this.refs.length; k++) {
      const r = this.refs[k]!;
      if (!goesWhole(t, len, r.count, r.last)) break;
      if (t.limit > 0 && removed + r.count > t.limit) return { k, len, removed, stopped: true };
      removed += r.count;
      len -= r.count;
    }
    return { k, len, removed, stopped: false };
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

  /** The index of the first reference whose last ID is >= `id` (refs.length if none). */
  private refAtOrAfter(id: StreamId): number {
    const rs = this.refs;
    let lo = 0;
    let hi = rs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rs[mid]!.last < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Whether a block of `count` entries ending at `last` goes whole, `len` entries left before it. */
function goesWhole(t: StreamTrim, len: number, count: number, last: StreamId): boolean {
  return t.strategy === 'maxlen' ? len - count >= t.maxLen : last < t.minId;
}

/** Whether an exact trim takes entries from a block starting at `first`. */
function cutsInto(t: StreamTrim, len: number, first: StreamId): boolean {
  return t.strategy === 'maxlen' ? len > t.maxLen : first < t.minId;
}

/** How many entries an exact trim takes from the front of `b`. */
function cutCount(t: StreamTrim, len: number, b: StreamBlockValue): number {
  return t.strategy === 'maxlen' ? len - t.maxLen : b.indexOf(t.minId);
}

/** Visits `b`'s entries in [start, end] forward; false once the visit is over. */
function visitForward(
  b: StreamBlockValue,
  start: StreamId,
  end: StreamId,
  visit: StreamVisitor,
): boolean {
  for (let i = b.indexOf(start); i < b.size; i++) {
    if (b.compareAt(i, end) > 0 || !visit(b, i)) return false;
  }
  return true;
}

/** Visits `b`'s entries in [start, end] backward; false once the visit is over. */
function visitBackward(
  b: StreamBlockValue,
  start: StreamId,
  end: StreamId,
  visit: StreamVisitor,
): boolean {
  let i = b.indexOf(end);
  if (i === b.size || b.compareAt(i, end) > 0) i--;
  for (; i >= 0; i--) {
    if (b.compareAt(i, start) < 0 || !visit(b, i)) return false;
  }
  return true;
}
