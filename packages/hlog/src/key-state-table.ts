/**
 * A state (a number) per distinct key, keyed by the key's bytes: the
 * live-key count's keys with an expiry (the whole-log recount, which needs
 * only a kind per key, uses the smaller `KeyKindTable`). A Map with a
 * string per key took ~120 bytes a key and a string conversion per write;
 * here the keys are copied into arena chunks (4 KiB doubling to 1 MiB)
 * as 4-byte length + bytes, and an open-addressing table holds hash, arena
 * position and state side by side in one Float64Array (one cache line per
 * probe, not three): ~34 bytes a key plus the key bytes, no object per key.
 * Exact: keys are compared byte for byte. Deletes shift the probe run back
 * (no tombstones); the arena is compacted once most of it is garbage.
 */

/** Arena positions are chunk * CHUNK + offset; no chunk holds more than CHUNK bytes unless one key does. */
const CHUNK = 1 << 20;
const FIRST_CHUNK = 4096;
const MAX_LOAD = 0.7;
/** Words per slot: hash + 1 (0: empty), arena position, state. */
const STRIDE = 3;

export class KeyStateTable {
  private slots: Float64Array;
  private mask: number;
  private chunks: Buffer[] = [];
  private used = 0;
  /** Arena bytes of deleted keys, and of all chunks. */
  private garbage = 0;
  private arenaBytes = 0;
  size = 0;

  constructor(expectedKeys = 0) {
    const capacity = capacityFor(expectedKeys);
    this.mask = capacity - 1;
    this.slots = new Float64Array(capacity * STRIDE);
  }

  /** Grows the table for `keys` keys at once (cheap while it is empty). */
  reserve(keys: number): void {
    if ((this.mask + 1) * MAX_LOAD < keys) this.rehash(capacityFor(keys));
  }

  /**
   * Sets the state of the key `bytes[offset, offset + length)` (48-bit
   * `hash`); returns its previous state, or NaN when the key is new.
   */
  set(bytes: Uint8Array, offset: number, length: number, hash: number, state: number): number {
    const slots = this.slots;
    const i = this.find(bytes, offset, length, hash);
    if (i >= 0) {
      const previous = slots[i * STRIDE + 2]!;
      slots[i * STRIDE + 2] = state;
      return previous;
    }
    const at = ~i * STRIDE;
    slots[at] = hash + 1;
    slots[at + 1] = this.store(bytes, offset, length);
    slots[at + 2] = state;
    if (++this.size > (this.mask + 1) * MAX_LOAD) this.rehash((this.mask + 1) * 2);
    return Number.NaN;
  }

  /** The state of the key, or NaN when it is not in the table. */
  get(bytes: Uint8Array, offset: number, length: number, hash: number): number {
    const i = this.find(bytes, offset, length, hash);
    return i < 0 ? Number.NaN : this.slots[i * STRIDE + 2]!;
  }

  /** Removes the key; returns its state, or NaN when it was not there. */
  delete(bytes: Uint8Array, offset: number, length: number, hash: number): number {
    const i = this.find(bytes, offset, length, hash);
    if (i < 0) return Number.NaN;
    const state = this.slots[i * STRIDE + 2]!;
    this.removeAt(i);
    return state;
  }

  /**
   * Loads the slot `hash` starts probing at and returns the word, only so
   * that a caller can touch a batch of keys' slots first (independent
   * loads: their cache misses overlap) and then set them while cached.
   */
  touch(hash: number): number {
    return this.slots[(hash & this.mask) * STRIDE]!;
  }

  /**
   * A copy of the table as it is now, to read only (`sweepSome` with a
   * function that keeps every key): the slots are copied, the key arena is
   * shared (its bytes are never written over: keys are appended, and a
   * compaction moves them to new chunks). O(slots), no key copied.
   */
  frozenCopy(): KeyStateTable {
    const copy = new KeyStateTable();
    copy.slots = this.slots.slice();
    copy.mask = this.mask;
    copy.chunks = this.chunks.slice();
    copy.size = this.size;
    return copy;
  }

  /** Calls `fn` with the state of every key. */
  forEachState(fn: (state: number) => void): void {
    const slots = this.slots;
    for (let at = 0; at < slots.length; at += STRIDE) if (slots[at] !== 0) fn(slots[at + 2]!);
  }

  /**
   * `sweep` over at most `slots` slots from `cursor`, for work done a slice
   * at a time; returns where the next slice starts (0 once past the end).
   * Entries that removals shift behind the cursor wait for the next round.
   */
  sweepSome(cursor: number, slots: number, fn: (key: Buffer, state: number) => boolean): number {
    const table = this.slots;
    let i = cursor > this.mask ? 0 : cursor;
    const end = Math.min(this.mask + 1, i + slots);
    while (i < end) {
      const at = i * STRIDE;
      if (table[at] !== 0 && !fn(this.keyView(table[at + 1]!), table[at + 2]!)) {
        this.removeAt(i);
        continue;
      }
      i++;
    }
    return i > this.mask ? 0 : i;
  }

  /**
   * Calls `fn` with every key (a view into the arena, valid during the
   * call only) and its state; removes the keys for which it returns false.
   * A removal shifts the probe run behind it back, so a key of a run that
   * wraps past the table's end may be seen twice (never skipped): `fn`
   * should decide the same way each time.
   */
  sweep(fn: (key: Buffer, state: number) => boolean): void {
    const slots = this.slots;
    let i = 0;
    while (i <= this.mask) {
      const at = i * STRIDE;
      if (slots[at] !== 0 && !fn(this.keyView(slots[at + 1]!), slots[at + 2]!)) {
        // The run behind shifts into slot i: look at it again.
        this.removeAt(i);
        continue;
      }
      i++;
    }
  }

  /** The key's slot, or `~slot` of the empty slot where its probe run ends (where it would go). */
  private find(bytes: Uint8Array, offset: number, length: number, hash: number): number {
    const slots = this.slots;
    const tag = hash + 1;
    let i = hash & this.mask;
    for (;;) {
      const at = i * STRIDE;
      const h = slots[at]!;
      if (h === 0) return ~i;
      if (h === tag && this.keyAt(slots[at + 1]!, bytes, offset, length)) return i;
      i = (i + 1) & this.mask;
    }
  }

  /** Empties slot `i` and shifts the entries behind it that may move closer to home. */
  private removeAt(i: number): void {
    const slots = this.slots;
    const mask = this.mask;
    const ref = slots[i * STRIDE + 1]!;
    const chunk = this.chunks[Math.floor(ref / CHUNK)]!;
    this.garbage += (4 + chunk.readUInt32LE(ref % CHUNK) + 3) & ~3;
    let hole = i;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const at = j * STRIDE;
      const tag = slots[at]!;
      if (tag === 0) break;
      const home = (tag - 1) & mask;
      // Entry j may fill the hole unless its home lies cyclically in (hole, j].
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        const h = hole * STRIDE;
        slots[h] = tag;
        slots[h + 1] = slots[at + 1]!;
        slots[h + 2] = slots[at + 2]!;
        hole = j;
      }
    }
    const h = hole * STRIDE;
    slots[h] = 0;
    slots[h + 1] = 0;
    slots[h + 2] = 0;
    this.size--;
    if (this.garbage > FIRST_CHUNK && this.garbage * 2 > this.arenaBytes) this.compactArena();
  }

  private keyAt(ref: number, bytes: Uint8Array, offset: number, length: number): boolean {
    const chunk = this.chunks[Math.floor(ref / CHUNK)]!;
    let at = ref % CHUNK;
    if (chunk.readUInt32LE(at) !== length) return false;
    at += 4;
    for (let j = 0; j < length; j++) if (chunk[at + j] !== bytes[offset + j]) return false;
    return true;
  }

  private keyView(ref: number): Buffer {
    const chunk = this.chunks[Math.floor(ref / CHUNK)]!;
    const at = ref % CHUNK;
    return chunk.subarray(at + 4, at + 4 + chunk.readUInt32LE(at));
  }

  private store(bytes: Uint8Array, offset: number, length: number): number {
    let chunk = this.chunks[this.chunks.length - 1];
    if (chunk === undefined || this.used + 4 + length > chunk.length) {
      // Chunks start small (a table of a few keys stays small) and double to
      // CHUNK; a key longer than that gets a chunk of its own.
      const size = Math.min(CHUNK, FIRST_CHUNK << this.chunks.length);
      chunk = Buffer.allocUnsafe(Math.max(size, 4 + length));
      this.chunks.push(chunk);
      this.arenaBytes += chunk.length;
      this.used = 0;
    }
    const at = this.used;
    chunk.writeUInt32LE(length, at);
    // A byte loop: no subarray object per key (keys are short).
    for (let j = 0; j < length; j++) chunk[at + 4 + j] = bytes[offset + j]!;
    // 4-aligned entries: the length word stays aligned.
    this.used = (at + 4 + length + 3) & ~3;
    return (this.chunks.length - 1) * CHUNK + at;
  }

  /** Copies the live keys into fresh chunks (deletes left most of the arena unused). */
  private compactArena(): void {
    const old = this.chunks;
    this.chunks = [];
    this.used = 0;
    this.garbage = 0;
    this.arenaBytes = 0;
    const slots = this.slots;
    for (let at = 0; at < slots.length; at += STRIDE) {
      if (slots[at] === 0) continue;
      const ref = slots[at + 1]!;
      const chunk = old[Math.floor(ref / CHUNK)]!;
      const o = ref % CHUNK;
      slots[at + 1] = this.store(chunk, o + 4, chunk.readUInt32LE(o));
    }
  }

  private rehash(capacity: number): void {
    const old = this.slots;
    this.mask = capacity - 1;
    const slots = new Float64Array(capacity * STRIDE);
    this.slots = slots;
    for (let j = 0; j < old.length; j += STRIDE) {
      const tag = old[j]!;
      if (tag === 0) continue;
      let i = (tag - 1) & this.mask;
      while (slots[i * STRIDE] !== 0) i = (i + 1) & this.mask;
      const at = i * STRIDE;
      slots[at] = tag;
      slots[at + 1] = old[j + 1]!;
      slots[at + 2] = old[j + 2]!;
    }
  }
}

function capacityFor(keys: number): number {
  let capacity = 1024;
  while (capacity * MAX_LOAD < keys) capacity *= 2;
  return capacity;
}
