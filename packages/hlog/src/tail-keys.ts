import { KeyStateTable } from './key-state-table.js';

/**
 * The keys the replayed tail (the log after a checkpoint, up to a commit
 * point or the log's end) wrote: per distinct key, its newest state and
 * the previous address of its first record in the tail (its version at the
 * checkpoint), for the live-key count's adjustment after recovery. A
 * `Map<string, ...>` with a string and an object per key cost recovery
 * ~10 µs a record in strings and garbage collection (a tail of 400k new
 * keys read in 4.3 s instead of 1.1 s); here the key bytes go into a
 * `KeyStateTable` whose state is the key's entry number in two parallel
 * Float64Arrays: no object per key.
 */
export class TailKeys {
  private readonly table = new KeyStateTable();
  private states = new Float64Array(1024);
  private firstPrevious = new Float64Array(1024);

  /** Grows the table for `keys` keys at once (the first page tells how many the tail holds). */
  reserve(keys: number): void {
    this.table.reserve(keys);
  }

  get size(): number {
    return this.table.size;
  }

  /**
   * Notes a record of the key `bytes[offset, offset + length)` (48-bit
   * `hash`) in log order: `state` (expiresAt, 0 without expiry, -1 a
   * tombstone) and the record's previous address.
   */
  note(
    bytes: Uint8Array,
    offset: number,
    length: number,
    hash: number,
    state: number,
    previous: number,
  ): void {
    const n = this.table.size;
    const seen = this.table.set(bytes, offset, length, hash, n);
    if (Number.isNaN(seen)) {
      if (n === this.states.length) this.grow();
      this.states[n] = state;
      this.firstPrevious[n] = previous;
      return;
    }
    // Seen before: `set` replaced its entry number; put it back.
    this.table.set(bytes, offset, length, hash, seen);
    this.states[seen] = state;
  }

  private grow(): void {
    const states = new Float64Array(this.states.length * 2);
    states.set(this.states);
    this.states = states;
    const previous = new Float64Array(this.firstPrevious.length * 2);
    previous.set(this.firstPrevious);
    this.firstPrevious = previous;
  }

  /**
   * Calls `fn` for at most `slots` table slots from `cursor` with each key
   * (a view, valid during the call only), its newest state and its first
   * previous address; returns where the next slice starts (0 once done).
   */
  forSome(
    cursor: number,
    slots: number,
    fn: (key: Buffer, state: number, firstPrevious: number) => void,
  ): number {
    return this.table.sweepSome(cursor, slots, (key, n) => {
      fn(key, this.states[n]!, this.firstPrevious[n]!);
      return true;
    });
  }
}
