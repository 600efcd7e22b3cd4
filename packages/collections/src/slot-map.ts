/**
 * A string-keyed map whose entries sit in numbered slots that never move
 * while the map is not compacted: a deleted entry leaves a hole (reused by a
 * later insert), so a cursor that is a slot number resumes exactly where it
 * stopped. That is what HSCAN/SSCAN need to return every member present for
 * a whole iteration; a compaction (once holes outnumber members) bumps
 * `epoch`, and a cursor from an older epoch restarts (duplicates, never
 * misses). It also gives O(1) uniform random picks (HRANDFIELD, SPOP).
 */
export class SlotMap<V> {
  private readonly index = new Map<string, number>();
  private keys: (string | undefined)[] = [];
  private values: (V | undefined)[] = [];
  private free: number[] = [];
  private epochValue = 0;

  get size(): number {
    return this.index.size;
  }

  /** Slots in use or holes: cursors run over [0, slotCount). */
  get slotCount(): number {
    return this.keys.length;
  }

  /** Changes when slots move (compaction). */
  get epoch(): number {
    return this.epochValue;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): V | undefined {
    const slot = this.index.get(key);
    return slot === undefined ? undefined : this.values[slot];
  }

  /** Sets `key`; true when it was new. */
  set(key: string, value: V): boolean {
    const slot = this.index.get(key);
    if (slot !== undefined) {
      this.values[slot] = value;
      return false;
    }
    this.insert(key, value);
    return true;
  }

  /**
   * Sets `key` and gives back the value it had (undefined when it is new):
   * `get` then `set` in one lookup.
   */
  swap(key: string, value: V): V | undefined {
    const slot = this.index.get(key);
    if (slot !== undefined) {
      const old = this.values[slot];
      this.values[slot] = value;
      return old;
    }
    this.insert(key, value);
    return undefined;
  }

  /** A key that is not in the map, into a free slot or a new one. */
  private insert(key: string, value: V): void {
    const s = this.free.length > 0 ? this.free.pop()! : this.keys.length;
    this.keys[s] = key;
    this.values[s] = value;
    this.index.set(key, s);
  }

  /**
   * Adds a key known to be new (bulk decode: one hash probe instead of two);
   * false, and nothing added, when it was there after all.
   */
  appendNew(key: string, value: V): boolean {
    const n = this.index.size;
    this.index.set(key, this.keys.length);
    if (this.index.size === n) return false;
    this.keys.push(key);
    this.values.push(value);
    return true;
  }

  /** Removes `key`; true when it was there. */
  delete(key: string): boolean {
    const slot = this.index.get(key);
    if (slot === undefined) return false;
    this.index.delete(key);
    this.keys[slot] = undefined;
    this.values[slot] = undefined;
    if (this.index.size === 0) {
      this.keys = [];
      this.values = [];
      this.free = [];
      this.epochValue++;
    } else {
      this.free.push(slot);
      if (this.free.length > 64 && this.free.length > this.index.size) this.compact();
    }
    return true;
  }

  /** The key in `slot`, or undefined for a hole. */
  keyAt(slot: number): string | undefined {
    return this.keys[slot];
  }

  valueAt(slot: number): V | undefined {
    return this.values[slot];
  }

  /** A uniformly random occupied slot (the map must not be empty); holes are at most half. */
  randomSlot(random: () => number): number {
    const n = this.keys.length;
    for (;;) {
      const s = Math.floor(random() * n);
      if (this.keys[s] !== undefined) return s;
    }
  }

  forEach(visit: (key: string, value: V) => void): void {
    const { keys, values } = this;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k !== undefined) visit(k, values[i] as V);
    }
  }

  private compact(): void {
    const keys: string[] = [];
    const values: V[] = [];
    for (let i = 0; i < this.keys.length; i++) {
      const k = this.keys[i];
      if (k === undefined) continue;
      this.index.set(k, keys.length);
      keys.push(k);
      values.push(this.values[i] as V);
    }
    this.keys = keys;
    this.values = values;
    this.free = [];
    this.epochValue++;
  }
}

const EPOCH_BITS = 64;

/** A SCAN cursor for slot `slot` of a map at `epoch`: 0 only for the start. */
export function slotCursor(slot: number, epoch: number): number {
  return slot * EPOCH_BITS + (epoch % EPOCH_BITS);
}

/** The slot a cursor resumes at: 0 when it came from another epoch (restart). */
export function cursorSlot(cursor: number, epoch: number): number {
  if (cursor % EPOCH_BITS !== epoch % EPOCH_BITS) return 0;
  return Math.floor(cursor / EPOCH_BITS);
}
