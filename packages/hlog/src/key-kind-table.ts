import { HlogError } from './errors.js';

/**
 * What the whole-log recount needs of each distinct key: the kind of its
 * newest record (a value without expiry, a deletion, a value with an
 * expiry; the expiry itself is kept apart, for the few keys that have one).
 * A slot is two u32 words, 8 bytes (`KeyStateTable` takes 24, with an f64
 * state): 30 hash bits + the kind, and the key's arena position / 4. At 15.8M
 * keys that is a 256 MB table instead of 768 MB: fewer pages for the random
 * slot of every record to miss in (TLB and page-walk misses as much as data
 * misses). Keys are copied into 1 MiB arena chunks (4-byte length + bytes)
 * (a longer key gets a chunk of its own) and compared byte for byte: exact.
 * Append-only (no delete).
 */

export const KeyKind = {
  PLAIN: 1,
  DELETED: 2,
  EXPIRING: 3,
} as const;

/** One of KeyKind's values. */
export type KeyKind = (typeof KeyKind)[keyof typeof KeyKind];

const CHUNK = 1 << 20;
/** Arena positions are stored / 4 in a u32: at most 2^32 * 4 bytes of keys. */
const MAX_CHUNKS = 2 ** 34 / CHUNK;
const MAX_LOAD = 0.7;
const HASH_MASK = 0x3fffffff;
/** Slot indexes come from the 30 stored hash bits. */
const MAX_CAPACITY = 2 ** 30;

export class KeyKindTable {
  private slots: Uint32Array;
  private mask: number;
  private readonly chunks: Buffer[] = [];
  private used = 0;
  size = 0;

  constructor(expectedKeys = 0) {
    const capacity = capacityFor(expectedKeys);
    this.mask = capacity - 1;
    this.slots = new Uint32Array(capacity * 2);
  }

  /** Grows the table for `keys` keys at once (cheap while it is empty). */
  reserve(keys: number): void {
    if ((this.mask + 1) * MAX_LOAD < keys) this.rehash(capacityFor(keys));
  }

  /**
   * Loads the slot `hash` starts probing at and returns the word, so that a
   * caller can touch a batch of keys' slots first (independent loads: their
   * misses overlap) and then set them while cached.
   */
  touch(hash: number): number {
    return this.slots[(hash & this.mask) * 2]! | 0;
  }

  /**
   * Sets the kind of the key `bytes[offset, offset + length)` (48-bit
   * `hash`); returns its previous kind, or 0 when the key is new.
   */
  set(bytes: Uint8Array, offset: number, length: number, hash: number, kind: KeyKind): number {
    const slots = this.slots;
    const h = hash & HASH_MASK;
    let i = h & this.mask;
    for (;;) {
      const w = slots[2 * i]!;
      if (w === 0) break;
      if (w >>> 2 === h && this.keyAt(slots[2 * i + 1]!, bytes, offset, length)) {
        slots[2 * i] = (h << 2) | kind;
        return w & 3;
      }
      i = (i + 1) & this.mask;
    }
    slots[2 * i] = (h << 2) | kind;
    slots[2 * i + 1] = this.store(bytes, offset, length);
    if (++this.size > (this.mask + 1) * MAX_LOAD) this.rehash((this.mask + 1) * 2);
    return 0;
  }

  /** Keys whose newest record is of `kind`. */
  count(kind: KeyKind): number {
    const slots = this.slots;
    let n = 0;
    for (let j = 0; j < slots.length; j += 2) if ((slots[j]! & 3) === kind) n++;
    return n;
  }

  private keyAt(ref: number, bytes: Uint8Array, offset: number, length: number): boolean {
    const chunk = this.chunks[ref >>> 18]!;
    let at = (ref & 0x3ffff) << 2;
    if (chunk.readUInt32LE(at) !== length) return false;
    at += 4;
    for (let j = 0; j < length; j++) if (chunk[at + j] !== bytes[offset + j]) return false;
    return true;
  }

  private store(bytes: Uint8Array, offset: number, length: number): number {
    const last = this.chunks[this.chunks.length - 1];
    if (last === undefined || this.used + 4 + length > last.length) {
      if (this.chunks.length >= MAX_CHUNKS) {
        throw new HlogError('ERR_INVALID_ARGUMENT', 'too many key bytes to recount');
      }
      // A key longer than a chunk gets a chunk of its own.
      this.chunks.push(Buffer.allocUnsafe(Math.max(CHUNK, 4 + length)));
      this.used = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1]!;
    const at = this.used;
    chunk.writeUInt32LE(length, at);
    for (let j = 0; j < length; j++) chunk[at + 4 + j] = bytes[offset + j]!;
    // 4-aligned entries: the length word stays aligned, positions fit / 4.
    this.used = (at + 4 + length + 3) & ~3;
    return (this.chunks.length - 1) * (CHUNK >>> 2) + (at >>> 2);
  }

  private rehash(capacity: number): void {
    if (capacity > MAX_CAPACITY) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'too many keys to recount');
    }
    const old = this.slots;
    this.mask = capacity - 1;
    const slots = new Uint32Array(capacity * 2);
    this.slots = slots;
    for (let j = 0; j < old.length; j += 2) {
      const w = old[j]!;
      if (w === 0) continue;
      let i = (w >>> 2) & this.mask;
      while (slots[2 * i] !== 0) i = (i + 1) & this.mask;
      slots[2 * i] = w;
      slots[2 * i + 1] = old[j + 1]!;
    }
  }
}

function capacityFor(keys: number): number {
  let capacity = 1024;
  while (capacity * MAX_LOAD < keys) capacity *= 2;
  return capacity;
}
