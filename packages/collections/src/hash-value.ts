import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import type { CollectionValue } from './collection-value.js';
import { DEFAULT_ENCODING_LIMITS, encodingLimits } from './encoding-limits.js';
import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';
import { cursorSlot, SlotMap, slotCursor } from './slot-map.js';
import {
  duplicateMember,
  FORMAT_HASH_TTL,
  putSlots,
  StringReader,
  StringWriter,
} from './value-format.js';

/** Redis's defaults of hash-max-listpack-entries / hash-max-listpack-value (see encodingLimits). */
export const HASH_MAX_LISTPACK_ENTRIES = DEFAULT_ENCODING_LIMITS.hashMaxListpackEntries;
export const HASH_MAX_LISTPACK_VALUE = DEFAULT_ENCODING_LIMITS.hashMaxListpackValue;

// Rough per-entry costs of the two shapes (V8 strings, array slots, Map entry).
const COMPACT_ENTRY_BYTES = 48;
const TABLE_ENTRY_BYTES = 112;
/** A field's expiry time: its Map entry. */
const TTL_ENTRY_BYTES = 40;

/**
 * A hash. Fields and values are latin1 strings (one char per byte, so any
 * bytes round-trip). Small hashes are a flat [field, value, ...] array
 * searched linearly ('listpack', as Redis's); one that grows past
 * hash-max-listpack-entries fields (512) or gets a field or value over
 * hash-max-listpack-value bytes (64) becomes a SlotMap ('hashtable')
 * and stays one. A one-field write is O(1) (O(entries) while compact, as
 * Redis's listpack).
 *
 * Field expiry (Redis 7.4/8's HEXPIRE family): `ttls` maps a field to its
 * expiry time (unix ms). Once a hash has had one (or a field-expiry command
 * ran on it) `ttls` stays non-null, as Redis's listpack stays `listpackex`:
 * the flat array is then kept in Redis's listpackex order (fields with an
 * expiry first, soonest first, a field inserted before the first one
 * expiring at or after it; fields without one after them, in insertion
 * order), so HGETALL lists fields as Redis does. The expiry times are part
 * of the record (FORMAT_HASH_TTL), so they survive eviction, checkpoints
 * and restarts with the value.
 */
export class HashValue implements CollectionValue {
  readonly type = RecordType.HASH;
  private flat: string[] | null = [];
  private table: SlotMap<string> | null = null;
  /** Sum of field and value lengths. */
  private chars = 0;
  /** Field -> expiry time (unix ms); null while no field-expiry command touched the hash. */
  private ttls: Map<string, number> | null = null;
  /** The smallest expiry time in `ttls` (0: none), NaN when it must be recomputed. */
  private minTtl = 0;
  /**
   * The key (latin1) this structure is known to be registered under for
   * active field expiry (resp's registry), null when not known: in memory
   * only, so a hash read back, renamed or copied is registered again.
   */
  registeredAs: string | null = null;

  static empty(): HashValue {
    return new HashValue();
  }

  static decode(bytes: Uint8Array): HashValue {
    return runWhole(HashValue.decodeSliced(bytes));
  }

  /** The decoder, yielding every SLICE_ITEMS fields (a large hash loads without stalling). */
  static *decodeSliced(bytes: Uint8Array): Sliced<HashValue> {
    const r = new StringReader(bytes, true);
    const h = new HashValue();
    const n = r.count;
    if (n <= encodingLimits.hashMaxListpackEntries) {
      // The flat order is stored as it was (listpackex order included).
      for (let i = 0; i < n; i++) {
        const f = r.next();
        const v = r.next();
        if (!h.set(f, v)) throw duplicateMember();
      }
    } else {
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
      h.chars = chars;
    }
    if (r.format === FORMAT_HASH_TTL) {
      const ttls = new Map<string, number>();
      const m = r.u32();
      for (let i = 0; i < m; i++) {
        const f = r.next();
        const at = r.f64();
        if (!h.has(f) || !(at > 0)) throw duplicateMember();
        ttls.set(f, at);
        if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
      }
      h.ttls = ttls;
      h.minTtl = Number.NaN;
      // A record written from the table shape may come back flat: put it in listpackex order.
      if (h.flat !== null) h.sortFlat();
    }
    r.end();
    return h;
  }

  get size(): number {
    return this.flat !== null ? this.flat.length >>> 1 : this.table!.size;
  }

  encoding(): string {
    if (this.flat === null) return 'hashtable';
    return this.ttls === null ? 'listpack' : 'listpackex';
  }

  memoryBytes(): number {
    return (
      64 +
      this.chars +
      this.size * (this.flat !== null ? COMPACT_ENTRY_BYTES : TABLE_ENTRY_BYTES) +
      (this.ttls === null ? 0 : this.ttls.size * TTL_ENTRY_BYTES)
    );
  }

  // ---- field expiry ------------------------------------------------------------

  /** Whether any field has an expiry time. */
  get hasFieldTtls(): boolean {
    return this.ttls !== null && this.ttls.size > 0;
  }

  /**
   * Makes the hash one that keeps field expiry times (Redis converts a
   * listpack to listpackex as soon as a field-expiry command runs on it,
   * whether or not it sets one).
   */
  withTtls(): void {
    this.ttls ??= new Map();
  }

  /** The field's expiry time (unix ms), 0 when it has none (or is missing). */
  ttlOf(field: string): number {
    return this.ttls?.get(field) ?? 0;
  }

  /** Whether `field` is there but its expiry time is before `now` (Redis's hashTypeIsExpired). */
  isExpired(field: string, now: number): boolean {
    const at = this.ttls?.get(field);
    return at !== undefined && at < now;
  }

  /**
   * Sets the expiry time of an existing `field` (0: none, HPERSIST). In the
   * flat shape the field moves where Redis's listpackex puts it.
   */
  setTtl(field: string, at: number): void {
    const ttls = this.ttls ?? new Map<string, number>();
    this.ttls = ttls;
    const old = ttls.get(field);
    if (at > 0) {
      ttls.set(field, at);
      if (!Number.isNaN(this.minTtl)) {
        if (old !== undefined && old === this.minTtl) this.minTtl = Number.NaN;
        else if (this.minTtl === 0 || at < this.minTtl) this.minTtl = at;
      }
    } else {
      if (old === undefined) return;
      ttls.delete(field);
      if (old === this.minTtl) this.minTtl = Number.NaN;
    }
    const flat = this.flat;
    if (flat !== null) this.placeFlat(flat, field, at);
  }

  /** The soonest field expiry time, 0 when no field has one. */
  minFieldTtl(): number {
    if (Number.isNaN(this.minTtl)) {
      let min = 0;
      this.ttls?.forEach((at) => {
        if (min === 0 || at < min) min = at;
      });
      this.minTtl = min;
    }
    return this.minTtl;
  }

  /**
   * Deletes up to `max` fields whose expiry time is at or before `now` (the
   * active cycle's test, Redis's listpackExExpire), pushing their names on
   * `out`; returns how many went.
   */
  expireFields(now: number, max: number, out: string[]): number {
    const ttls = this.ttls;
    if (ttls === null || ttls.size === 0 || this.minFieldTtl() > now) return 0;
    const due: string[] = [];
    if (this.flat !== null) {
      // listpackex order: the expiring fields lead, soonest first.
      const flat = this.flat;
      for (let i = 0; i < flat.length && due.length < max; i += 2) {
        const at = ttls.get(flat[i]!);
        if (at === undefined || at > now) break;
        due.push(flat[i]!);
      }
    } else {
      for (const [f, at] of ttls) {
        if (due.length >= max) break;
        if (at <= now) due.push(f);
      }
    }
    for (const f of due) {
      this.delete(f);
      out.push(f);
    }
    return due.length;
  }

  /** The fields not expired at `now` (Redis's hashTypeLength with subtractExpiredFields). */
  liveSize(now: number): number {
    const ttls = this.ttls;
    if (ttls === null || ttls.size === 0 || this.minFieldTtl() >= now) return this.size;
    let expired = 0;
    ttls.forEach((at) => {
      if (at < now) expired++;
    });
    return this.size - expired;
  }

  /** Orders the flat shape as listpackex does: expiring fields first, soonest first (stable). */
  private sortFlat(): void {
    const flat = this.flat!;
    const ttls = this.ttls!;
    const pairs: [string, string, number][] = [];
    for (let i = 0; i < flat.length; i += 2) {
      pairs.push([flat[i]!, flat[i + 1]!, ttls.get(flat[i]!) ?? Number.POSITIVE_INFINITY]);
    }
    pairs.sort((a, b) => a[2] - b[2]);
    let j = 0;
    for (const [f, v] of pairs) {
      flat[j++] = f;
      flat[j++] = v;
    }
  }

  /** Moves `field` of the flat shape to where listpackex keeps a field expiring at `at` (0: none). */
  private placeFlat(flat: string[], field: string, at: number): void {
    let i = 0;
    while (i < flat.length && flat[i] !== field) i += 2;
    if (i >= flat.length) return;
    const value = flat[i + 1]!;
    flat.splice(i, 2);
    const ttls = this.ttls!;
    let j = flat.length;
    if (at > 0) {
      // Before the first field without an expiry or expiring at or after `at`.
      for (j = 0; j < flat.length; j += 2) {
        const t = ttls.get(flat[j]!);
        if (t === undefined || t >= at) break;
      }
    }
    flat.splice(j, 0, field, value);
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

  /**
   * Sets `field`; true when it is a new field. An expiry time the field had
   * is dropped (HSET persists it) unless `keepTtl` (HSETEX KEEPTTL, HINCRBY).
   */
  set(field: string, value: string, keepTtl = false): boolean {
    const flat = this.flat;
    if (flat !== null) {
      for (let i = 0; i < flat.length; i += 2) {
        if (flat[i] === field) {
          this.chars += value.length - flat[i + 1]!.length;
          flat[i + 1] = value;
          if (!keepTtl && this.ttls?.has(field) === true) this.setTtl(field, 0);
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
    if (!keepTtl && this.ttls?.has(field) === true) this.setTtl(field, 0);
    return false;
  }

  /** Removes `field` (and its expiry time); true when it was there. */
  delete(field: string): boolean {
    const ttls = this.ttls;
    if (ttls !== null) {
      const at = ttls.get(field);
      if (at !== undefined) {
        ttls.delete(field);
        if (at === this.minTtl) this.minTtl = Number.NaN;
      }
    }
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
    const body = w.finish();
    const ttls = this.ttls;
    if (ttls === null) return body;
    // FORMAT_HASH_TTL: the body, then (field, expiry) pairs.
    let bytes = 4;
    for (const f of ttls.keys()) bytes += 12 + f.length;
    const tail = Buffer.allocUnsafe(bytes);
    tail.writeUInt32LE(ttls.size, 0);
    let pos = 4;
    let i = 0;
    for (const [f, at] of ttls) {
      const n = tail.write(f, pos + 4, 'latin1');
      tail.writeUInt32LE(n, pos);
      tail.writeDoubleLE(at, pos + 4 + n);
      pos += 12 + n;
      if (++i % SLICE_ITEMS === 0) yield;
    }
    const out = Buffer.concat([body, tail]);
    out[0] = FORMAT_HASH_TTL;
    return out;
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
