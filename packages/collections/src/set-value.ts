import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import type { CollectionValue } from './collection-value.js';
import { DEFAULT_ENCODING_LIMITS, encodingLimits } from './encoding-limits.js';
import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';
import { cursorSlot, SlotMap, slotCursor } from './slot-map.js';
import { duplicateMember, putSlots, StringReader, StringWriter } from './value-format.js';

/** Redis 7.2's defaults of set-max-intset-entries, set-max-listpack-entries, set-max-listpack-value (see encodingLimits). */
export const SET_MAX_INTSET_ENTRIES = DEFAULT_ENCODING_LIMITS.setMaxIntsetEntries;
export const SET_MAX_LISTPACK_ENTRIES = DEFAULT_ENCODING_LIMITS.setMaxListpackEntries;
export const SET_MAX_LISTPACK_VALUE = DEFAULT_ENCODING_LIMITS.setMaxListpackValue;

const INTSET_ENTRY_BYTES = 8;
const LISTPACK_ENTRY_BYTES = 24;
const TABLE_ENTRY_BYTES = 96;

/**
 * The integer a member is when it belongs in an intset: the canonical
 * decimal form of a safe integer (what string2ll accepts, within 2^53), or
 * null. Integers beyond 2^53 are stored as strings (see README).
 */
export function intsetMember(m: string): number | null {
  const n = m.length;
  if (n === 0 || n > 16) return null;
  let i = m.charCodeAt(0) === 45 ? 1 : 0; // '-'
  if (i === n) return null;
  const first = m.charCodeAt(i);
  if (first === 48) return n === 1 ? 0 : null; // '0' alone; no leading zeros, no "-0"
  for (; i < n; i++) {
    const c = m.charCodeAt(i);
    if (c < 48 || c > 57) return null;
  }
  const v = Number(m);
  return Number.isSafeInteger(v) ? v : null;
}

/**
 * A set. Members are latin1 strings (any bytes round-trip). Three shapes, as
 * Redis 7.2: 'intset' (a sorted array of integers, binary searched) while
 * every member is an integer and there are at most 512; 'listpack' (an array
 * searched linearly) while there are at most 128 members of at most 64
 * bytes; then 'hashtable' (a SlotMap) for good. SMEMBERS of an intset is in
 * ascending order, of a listpack in insertion order.
 */
export class SetValue implements CollectionValue {
  readonly type = RecordType.SET;
  private ints: number[] | null = [];
  private list: string[] | null = null;
  private table: SlotMap<true> | null = null;
  private chars = 0;

  static empty(): SetValue {
    return new SetValue();
  }

  static decode(bytes: Uint8Array): SetValue {
    return runWhole(SetValue.decodeSliced(bytes));
  }

  /** The decoder, yielding every SLICE_ITEMS members (a large set loads without stalling). */
  static *decodeSliced(bytes: Uint8Array): Sliced<SetValue> {
    const r = new StringReader(bytes);
    const s = new SetValue();
    const n = r.count;
    if (n <= encodingLimits.setMaxIntsetEntries) {
      for (let i = 0; i < n; i++) s.add(r.next());
      r.end();
      return s;
    }
    s.toTable();
    const table = s.table!;
    let chars = 0;
    for (let i = 0; i < n; i++) {
      const m = r.next();
      if (!table.appendNew(m, true)) throw duplicateMember();
      chars += m.length;
      if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
    }
    r.end();
    s.chars = chars;
    return s;
  }

  get size(): number {
    if (this.ints !== null) return this.ints.length;
    if (this.list !== null) return this.list.length;
    return this.table!.size;
  }

  encoding(): string {
    if (this.ints !== null) return 'intset';
    return this.list !== null ? 'listpack' : 'hashtable';
  }

  memoryBytes(): number {
    if (this.ints !== null) return 64 + this.ints.length * INTSET_ENTRY_BYTES;
    const per = this.list !== null ? LISTPACK_ENTRY_BYTES : TABLE_ENTRY_BYTES;
    return 64 + this.chars + this.size * per;
  }

  has(m: string): boolean {
    if (this.ints !== null) {
      const v = intsetMember(m);
      return v !== null && search(this.ints, v) >= 0;
    }
    if (this.list !== null) return this.list.includes(m);
    return this.table!.has(m);
  }

  /** Adds `m`; true when it was new. */
  add(m: string): boolean {
    const ints = this.ints;
    if (ints !== null) {
      const v = intsetMember(m);
      if (v !== null) {
        const at = search(ints, v);
        if (at >= 0) return false;
        ints.splice(-at - 1, 0, v);
        this.chars += m.length;
        if (ints.length > encodingLimits.setMaxIntsetEntries) this.toTable();
        return true;
      }
      if (
        ints.length + 1 <= encodingLimits.setMaxListpackEntries &&
        m.length <= encodingLimits.setMaxListpackValue
      )
        this.toList();
      else this.toTable();
    }
    const list = this.list;
    if (list !== null) {
      if (list.includes(m)) return false;
      list.push(m);
      this.chars += m.length;
      if (
        list.length > encodingLimits.setMaxListpackEntries ||
        m.length > encodingLimits.setMaxListpackValue
      )
        this.toTable();
      return true;
    }
    const added = this.table!.set(m, true);
    if (added) this.chars += m.length;
    return added;
  }

  /** Removes `m`; true when it was there. */
  delete(m: string): boolean {
    const ints = this.ints;
    if (ints !== null) {
      const v = intsetMember(m);
      if (v === null) return false;
      const at = search(ints, v);
      if (at < 0) return false;
      ints.splice(at, 1);
    } else if (this.list !== null) {
      const at = this.list.indexOf(m);
      if (at < 0) return false;
      this.list.splice(at, 1);
    } else if (!this.table!.delete(m)) {
      return false;
    }
    this.chars -= m.length;
    return true;
  }

  forEach(visit: (member: string) => void): void {
    if (this.ints !== null) for (const v of this.ints) visit(String(v));
    else if (this.list !== null) for (const m of this.list) visit(m);
    else this.table!.forEach(visit);
  }

  /** A uniformly random member (the set must not be empty). */
  random(random: () => number): string {
    if (this.ints !== null) return String(this.ints[Math.floor(random() * this.ints.length)]!);
    if (this.list !== null) return this.list[Math.floor(random() * this.list.length)]!;
    const t = this.table!;
    return t.keyAt(t.randomSlot(random))!;
  }

  /** One SSCAN step; see HashValue.scan. Intsets and listpacks are visited whole. */
  scan(cursor: number, count: number, visit: (member: string) => void): number {
    const t = this.table;
    if (t === null) {
      this.forEach(visit);
      return 0;
    }
    let slot = cursorSlot(cursor, t.epoch);
    const end = Math.min(t.slotCount, slot + Math.max(1, count));
    for (; slot < end; slot++) {
      const m = t.keyAt(slot);
      if (m !== undefined) visit(m);
    }
    return slot >= t.slotCount ? 0 : slotCursor(slot, t.epoch);
  }

  encode(): Buffer {
    return runWhole(this.encodeSliced());
  }

  /** The serialized form, yielding every SLICE_ITEMS slots (a large set writes back without stalling). */
  *encodeSliced(): Sliced<Buffer> {
    const n = this.size;
    const w = new StringWriter(this.chars, n, n);
    // Intsets and listpacks hold at most 512 members: no slice needed.
    if (this.table !== null) yield* putSlots(w, this.table, null);
    else
      this.forEach((m) => {
        w.put(m);
      });
    return w.finish();
  }

  private toList(): void {
    this.list = this.ints!.map(String);
    this.ints = null;
  }

  private toTable(): void {
    const t = new SlotMap<true>();
    this.forEach((m) => {
      t.set(m, true);
    });
    this.table = t;
    this.ints = null;
    this.list = null;
  }
}

/** Index of `v` in sorted `a`, or -(insertion point) - 1. */
function search(a: number[], v: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = a[mid]!;
    if (x < v) lo = mid + 1;
    else if (x > v) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}

registerSlicedCodec(RecordType.SET, SetValue.decodeSliced);
