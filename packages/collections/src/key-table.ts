import { hashKey } from '@strata/hlog';
import type { CacheEntry } from './cache-entry.js';

/**
 * An open-addressing table of cache entries keyed by key bytes: linear
 * probing over a power-of-two array, hashes kept beside the slots so a probe
 * compares bytes only when the 48-bit hash matches, deletion by backward
 * shift (no tombstones). No key is turned into a string.
 */
export class KeyTable {
  private slots: (CacheEntry | undefined)[];
  private hashes: Float64Array;
  private mask: number;
  private count = 0;
  /** The entry `find` answered last, while it is in the table. */
  private last: CacheEntry | undefined = undefined;

  constructor(initialCapacity = 64) {
    let cap = 16;
    while (cap < initialCapacity * 2) cap *= 2;
    this.slots = new Array<CacheEntry | undefined>(cap).fill(undefined);
    this.hashes = new Float64Array(cap);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The store's own hash of the key (so an entry's hash serves the store's index too: touchHash). */
  static hash(key: Uint8Array): number {
    return hashKey(key);
  }

  /**
   * The entry of `key`. The one found last is kept (still in the table:
   * remove and clear forget it): a command looks its key up, then tells the
   * cache it changed it, and the second find compares the bytes once
   * instead of hashing the key again.
   */
  find(key: Uint8Array, hash?: number): CacheEntry | undefined {
    const last = this.last;
    if (last !== undefined && sameBytes(last.key, key)) return last;
    const e = this.probe(key, hash ?? KeyTable.hash(key));
    if (e !== undefined) this.last = e;
    return e;
  }

  private probe(key: Uint8Array, hash: number): CacheEntry | undefined {
    const { slots, hashes, mask } = this;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const e = slots[i];
      if (e === undefined) return undefined;
      if (hashes[i] === hash && sameBytes(e.key, key)) return e;
    }
  }

  /** Adds `entry`, whose key must not be in the table. */
  insert(entry: CacheEntry): void {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    this.place(entry);
    this.count++;
  }

  /** Removes `entry` (by identity); false when it is not in the table. */
  remove(entry: CacheEntry): boolean {
    if (this.last === entry) this.last = undefined;
    const { slots, mask } = this;
    let i = entry.hash & mask;
    for (;;) {
      const e = slots[i];
      if (e === undefined) return false;
      if (e === entry) break;
      i = (i + 1) & mask;
    }
    // Backward shift: move later members of the probe run into the hole when
    // their home slot does not lie (cyclically) between the hole and them.
    let hole = i;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const e = slots[j];
      if (e === undefined) break;
      const home = this.hashes[j]! & mask;
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (between) continue;
      slots[hole] = e;
      this.hashes[hole] = this.hashes[j]!;
      hole = j;
    }
    slots[hole] = undefined;
    this.hashes[hole] = 0;
    this.count--;
    return true;
  }

  forEach(visit: (entry: CacheEntry) => void): void {
    for (const e of this.slots) if (e !== undefined) visit(e);
  }

  clear(): void {
    this.last = undefined;
    this.slots.fill(undefined);
    this.hashes.fill(0);
    this.count = 0;
  }

  private place(entry: CacheEntry): void {
    const { slots, mask } = this;
    let i = entry.hash & mask;
    while (slots[i] !== undefined) i = (i + 1) & mask;
    slots[i] = entry;
    this.hashes[i] = entry.hash;
  }

  private grow(): void {
    const old = this.slots;
    const cap = old.length * 2;
    this.slots = new Array<CacheEntry | undefined>(cap).fill(undefined);
    this.hashes = new Float64Array(cap);
    this.mask = cap - 1;
    for (const e of old) if (e !== undefined) this.place(e);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
