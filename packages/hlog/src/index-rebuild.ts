import type { HashIndex } from './hash-index.js';

/**
 * Rebuilding the index from the log inserts one entry per record at a
 * random bucket: with an index of hundreds of MiB nearly every insert is a
 * cache miss. Records are batched (hash, address) and handed to
 * `HashIndex.insertBatch`, which overlaps the misses of a block of records
 * before inserting them, in log order, so the newest record of a
 * (bucket, tag) wins. (Grouping a batch by bucket range with a counting
 * sort was tried and measured slower: 65536 records spread over a large
 * index share almost no lines, and the sort costs three more passes.)
 *
 * The batches are inserted here (`IndexRebuilder`) or, by its subclass
 * `ParallelIndexRebuilder` (parallel-rebuild.ts), split between this thread
 * and a worker: either way the same batches, in the same order, into an
 * index sized the same way (`entriesToReserve`).
 */

/**
 * The entries to grow the index for at the first batch (`n` records at
 * `addresses`, `size` entries in it already) of `bytes` of log: as many
 * as the log holds records at the batch's density.
 */
export function entriesToReserve(
  size: number,
  bytes: number,
  addresses: Float64Array,
  n: number,
): number {
  const span = addresses[n - 1]! - addresses[0]! + 1;
  return bytes > span ? Math.ceil((n * bytes) / span) : size + n;
}

/** Records a batch holds (the batch the first reserve is estimated from). */
export const REBUILD_BATCH = 1 << 14;

/** Batches (hash, address) of the records read, in log order, and inserts each full batch. */
export class IndexRebuilder {
  protected hashes: Float64Array;
  protected addresses: Float64Array;
  private n = 0;
  private reserved = false;
  /** The index was empty: every entry's access word is the fresh one, filled at `finish`. */
  private fillAccess = false;

  /**
   * `bytes`: the length of the log about to be read; the first batch tells
   * how many records that is, and the index is grown for them at once.
   * `index` null: a subclass takes the batches (`handOff`).
   */
  constructor(
    private readonly index: HashIndex | null,
    protected readonly bytes = 0,
    protected readonly capacity = REBUILD_BATCH,
  ) {
    this.hashes = new Float64Array(capacity);
    this.addresses = new Float64Array(capacity);
  }

  add(hash: number, address: number): void {
    this.hashes[this.n] = hash;
    this.addresses[this.n] = address;
    if (++this.n === this.capacity) this.flush();
  }

  /** Inserts (or hands off) everything batched so far; `finish` once the log is read. */
  flush(): void {
    const n = this.n;
    if (n === 0) return;
    this.n = 0;
    this.handOff(n);
  }

  /**
   * After the last record: the last batch in; a build of an empty index
   * gives every word the fresh one (as each insert would have; empty
   * slots' words are never read).
   */
  finish(): void {
    this.flush();
    if (this.fillAccess) this.index!.fillAccess(this.index!.clock.fresh);
  }

  /** The batch `hashes/addresses[0, n)` is full or final. */
  protected handOff(n: number): void {
    const index = this.index!;
    if (!this.reserved) {
      this.reserved = true;
      this.fillAccess = index.size === 0;
      index.reserve(entriesToReserve(index.size, this.bytes, this.addresses, n));
    }
    index.insertBatch(this.hashes, this.addresses, n, this.fillAccess);
  }
}
