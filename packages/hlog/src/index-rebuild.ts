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
 */
export class IndexRebuilder {
  private readonly hashes: Float64Array;
  private readonly addresses: Float64Array;
  private n = 0;

  private reserved = false;

  /**
   * `bytes`: the length of the log about to be read; the first batch tells
   * how many records that is, and the index is grown for them at once.
   */
  constructor(
    private readonly index: HashIndex,
    private readonly bytes = 0,
    private readonly capacity = 1 << 14,
  ) {
    this.hashes = new Float64Array(capacity);
    this.addresses = new Float64Array(capacity);
  }

  add(hash: number, address: number): void {
    this.hashes[this.n] = hash;
    this.addresses[this.n] = address;
    if (++this.n === this.capacity) this.flush();
  }

  /** Inserts everything batched so far. */
  flush(): void {
    const n = this.n;
    if (n === 0) return;
    const index = this.index;
    if (!this.reserved) {
      this.reserved = true;
      const span = this.addresses[n - 1]! - this.addresses[0]! + 1;
      if (this.bytes > span) index.reserve(Math.ceil((n * this.bytes) / span));
      else index.reserve(index.size + n);
    }
    index.insertBatch(this.hashes, this.addresses, n);
    this.n = 0;
  }
}
