import type { HashIndex } from './hash-index.js';

const PART_BITS = 12;
const PARTS = 1 << PART_BITS;

/**
 * Rebuilding the index from the log inserts one entry per record at a
 * random bucket: with an index of hundreds of MiB nearly every insert is a
 * cache and TLB miss. Records are therefore batched and inserted grouped by
 * bucket range (a stable counting sort on the bucket's high bits), so
 * consecutive inserts touch neighbouring buckets. Within a bucket the log
 * order is kept, so the newest record of a (bucket, tag) still wins.
 */
export class IndexRebuilder {
  private readonly hashes: Float64Array;
  private readonly addresses: Float64Array;
  private readonly parts: Uint16Array;
  private readonly order: Uint32Array;
  private readonly counts = new Uint32Array(PARTS + 1);
  private n = 0;

  private reserved = false;

  /**
   * `bytes`: the length of the log about to be read; the first batch tells
   * how many records that is, and the index is grown for them at once.
   */
  constructor(
    private readonly index: HashIndex,
    private readonly bytes = 0,
    private readonly capacity = 1 << 16,
  ) {
    this.hashes = new Float64Array(capacity);
    this.addresses = new Float64Array(capacity);
    this.parts = new Uint16Array(capacity);
    this.order = new Uint32Array(capacity);
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
    const bits = Math.ceil(Math.log2(index.buckets + 1));
    const shift = Math.max(0, bits - PART_BITS);
    const counts = this.counts;
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const p = index.bucketOf(this.hashes[i]!) >>> shift;
      this.parts[i] = p;
      counts[p + 1]!++;
    }
    for (let p = 0; p < PARTS; p++) counts[p + 1]! += counts[p]!;
    for (let i = 0; i < n; i++) this.order[counts[this.parts[i]!]!++] = i;
    index.insertBatch(this.hashes, this.addresses, this.order, n);
    this.n = 0;
  }
}
