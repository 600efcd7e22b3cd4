import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import type { CollectionValue } from './collection-value.js';
import { DEFAULT_ENCODING_LIMITS, encodingLimits } from './encoding-limits.js';
import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';
import { cursorSlot, SlotMap, slotCursor } from './slot-map.js';
import { duplicateMember, putSlots, StringReader, StringWriter } from './value-format.js';

/** Redis's defaults of hash-max-listpack-entries / hash-max-listpack-value (see encodingLimits). */
export const HASH_MAX_LISTPACK_ENTRIES = DEFAULT_ENCODING_LIMITS.hashMaxListpackEntries;
export const HASH_MAX_LISTPACK_VALUE = DEFAULT_ENCODING_LIMITS.hashMaxListpackValue;

// Rough per-entry costs of the two shapes (V8 strings, array slots, Map entry).
const COMPACT_ENTRY_BYTES = 48;
const TABLE_ENTRY_BYTES = 112;

/**
 * A hash. Fields and values are latin1 strings (one char per byte, so any
 * bytes round-trip). Small hashes are a flat [field, value, ...] array
 * searched linearly ('listpack', as Redis's); one that grows past
 * hash-max-listpack-entries fields (512) or gets a field or value over
 * hash-max-listpack-value bytes (64) becomes a SlotMap ('hashtable')
 * and stays one. A one-field write is O(1) (O(entries) while compact, as
 * Redis's listpack).
 */
export class HashValue implements CollectionValue {
  readonly type = RecordType.HASH;
  private flat: string[] | null = [];
  private table: SlotMap<string> | null = null;
  /** Sum of field and value lengths. */
  private chars = 0;

  static empty(): HashValue {
    return new HashValue();
  }

  static decode(bytes: Uint8Array): HashValue {
    return runWhole(HashValue.decodeSliced(bytes));
  }

  /** The decoder, yielding every SLICE_ITEMS fields (a large hash loads without stalling). */
  static *decodeSliced(bytes: Uint8Array): Sliced<HashValue> {
    const r = new StringReader(bytes);
    const h = new HashValue();
    const n = r.count;
    if (n <= encodingLimits.hashMaxListpackEntries) {
      for (let i = 0; i < n; i++) h.set(r.next(), r.next());
      r.end();
      return h;
    }
    h.toTable();
    const table = h.table!;
    let chars = 0;
    for (let i = 0; i < n; i++) {
      const f = r.next();
      const v = r.next();
      if (!table.appendNew(f, v)) throw duplicateMember();
      chars += f.length + v.length;
      if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
    }
    r.end();
    h.chars = chars;
    return h;
  }

  get size(): number {
    return this.flat !== null ? this.flat.length >>> 1 : this.table!.size;
  }

  encoding(): string {
    return this.flat !== null ? 'listpack' : 'hashtable';
  }

  memoryBytes(): number {
    return (
      64 + this.chars + this.size * (this.flat !== null ? COMPACT_ENTRY_BYTES : TABLE_ENTRY_BYTES)
    );
  }

  get(field: string): string | undefined {
    const flat = this.flat;
    if (flat === null) return this.table!.get(field);
    for (let i = 0; i < flat.length; i += 2) if (flat[i] === field) return flat[i + 1];
    return undefined;
  }

  has(field: string): boolean {
    return this.get(field) !== undefined;
  }

  /** Sets `field`; true when it is a new field. */
  set(field: string, value: string): boolean {
    const flat = this.flat;
    if (flat !== null) {
      for (let i = 0; i < flat.length; i += 2) {
        if (flat[i] === field) {
          this.chars += value.length - flat[i + 1]!.length;
          flat[i + 1] = value;
          if (value.length > encodingLimits.hashMaxListpackValue) this.toTable();
          return false;
        }
      }
      flat.push(field, value);
      this.chars += field.length + value.length;
      if (
        flat.length > encodingLimits.hashMaxListpackEntries * 2 ||
        field.length > encodingLimits.hashMaxListpackValue ||
        value.length > encodingLimits.hashMaxListpackValue
      ) {
        this.toTable();
      }
      return true;
    }
    const table = this.table!;
    const old = table.swap(field, value);
    if (old === undefined) {
      this.chars += field.length + value.length;
      return true;
    }
    this.chars += value.length - old.length;
    return false;
  }

  /** Removes `field`; true when it was there. */
  delete(field: string): boolean {
    const flat = this.flat;
    if (flat === null) {
      const old = this.table!.get(field);
      if (old === undefined) return false;
      this.table!.delete(field);
      this.chars -= field.length + old.length;
      return true;
    }
    for (let i = 0; i < flat.length; i += 2) {
      if (flat[i] === field) {
        this.chars -= field.length + flat[i + 1]!.length;
        // Keep the order (Redis's listpack does): HGETALL of a small hash lists fields as inserted.
        flat.splice(i, 2);
        return true;
      }
    }
    return false;
  }

  forEach(visit: (field: string, value: string) => void): void {
    const flat = this.flat;
    if (flat === null) {
      this.table!.forEach(visit);
      return;
    }
    for (let i = 0; i < flat.length; i += 2) visit(flat[i]!, flat[i + 1]!);
  }

  /** A uniformly random field and its value (the hash must not be empty). */
  random(random: () => number, out: [string, string]): [string, string] {
    const flat = this.flat;
    if (flat !== null) {
      const i = Math.floor(random() * (flat.length >>> 1)) * 2;
      out[0] = flat[i]!;
      out[1] = flat[i + 1]!;
      return out;
    }
    const t = this.table!;
    const s = t.randomSlot(random);
    out[0] = t.keyAt(s)!;
    out[1] = t.valueAt(s)!;
    return out;
  }

  /**
   * One HSCAN step from `cursor`, visiting about `count` slots: returns the
   * next cursor (0 at the end). A compact hash is visited whole in one call,
   * as Redis does with a listpack.
   */
  scan(cursor: number, count: number, visit: (field: string, value: string) => void): number {
    if (this.flat !== null) {
      this.forEach(visit);
      return 0;
    }
    const t = this.table!;
    let slot = cursorSlot(cursor, t.epoch);
    const end = Math.min(t.slotCount, slot + Math.max(1, count));
    for (; slot < end; slot++) {
      const f = t.keyAt(slot);
      if (f !== undefined) visit(f, t.valueAt(slot)!);
    }
    return slot >= t.slotCount ? 0 : slotCursor(slot, t.epoch);
  }

  encode(): Buffer {
    return runWhole(this.encodeSliced());
  }

  /** The serialized form, yielding every SLICE_ITEMS slots (a large hash writes back without stalling). */
  *encodeSliced(): Sliced<Buffer> {
    const w = new StringWriter(this.chars, this.size, this.size * 2);
    const flat = this.flat;
    if (flat !== null) {
      // Compact hashes are small by default, but hash-max-listpack-entries may be raised.
      for (let i = 0; i < flat.length; i++) {
        w.put(flat[i]!);
        if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
      }
    } else yield* putSlots(w, this.table!, this.table);
    return w.finish();
  }

  private toTable(): void {
    const flat = this.flat;
    if (flat === null) return;
    const t = new SlotMap<string>();
    for (let i = 0; i < flat.length; i += 2) t.set(flat[i]!, flat[i + 1]!);
    this.table = t;
    this.flat = null;
  }
}

registerSlicedCodec(RecordType.HASH, HashValue.decodeSliced);
