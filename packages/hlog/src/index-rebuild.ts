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
 * The batches are inserted here (`IndexRebuilder`) or handed to a worker
 * thread that inserts them with the same `BatchInserter`
 * (parallel-rebuild.ts): either way the same batches, in the same order,
 * into an index sized the same way.
 */
export class BatchInserter {
  private reserved = false;

  /**
   * `bytes`: the length of the log about to be read; the first batch tells
   * how many records that is, and the index is grown for them at once.
   */
  constructor(
    readonly index: HashIndex,
    private readonly bytes: number,
  ) {}

  insert(hashes: Float64Array, addresses: Float64Array, n: number): void {
    if (n === 0) return;
    const index = this.index;
    if (!this.reserved) {
      this.reserved = true;
      const span = addresses[n - 1]! - addresses[0]! + 1;
      if (this.bytes > span) index.reserve(Math.ceil((n * this.bytes) / span));
      else index.reserve(index.size + n);
    }
    index.insertBatch(hashes, addresses, n);
  }
}

/** Records a batch holds (the batch the first reserve is estimated from). */
export const REBUILD_BATCH = 1 << 14;

/** Batches (hash, address) of the records read, in log order, and inserts each full batch. */
export class IndexRebuilder {
  protected hashes: Float64Array;
  protected addresses: Float64Array;
  private n = 0;
  private readonly inserter: BatchInserter | null;

  /** `index` null: a subclass takes the batches (`handOff`). */
  constructor(
    index: HashIndex | null,
    bytes = 0,
    protected readonly capacity = REBUILD_BATCH,
  ) {
    this.inserter = index === null ? null : new BatchInserter(index, bytes);
    this.hashes = new Float64Array(capacity);
    this.addresses = new Float64Array(capacity);
  }

  add(hash: number, address: number): void {
    this.hashes[this.n] = hash;
    this.addresses[this.n] = address;
    if (++this.n === this.capacity) this.flush();
  }

  /** Inserts (or hands off) everything batched so far. */
  flush(): void {
    const n = this.n;
    if (n === 0) return;
    this.n = 0;
    this.handOff(n);
  }

  /** The batch `hashes/addresses[0, n)` is full or final. */
  protected handOff(n: number): void {
    this.inserter!.insert(this.hashes, this.addresses, n);
  }
}
