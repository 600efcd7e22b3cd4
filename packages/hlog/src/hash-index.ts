import { AccessClock } from './access-clock.js';
import { HlogError } from './errors.js';
import { IndexSnapshot } from './index-snapshot.js';

/**
 * The hash index: buckets in typed arrays, each entry a 16-bit tag plus a
 * 48-bit log address (8 bytes). A bucket is 64 bytes: 7 entries and the id
 * of an overflow bucket. The entry points at the newest record whose key has
 * that (bucket, tag) (overflow buckets are 32 bytes: 3 entries and a link); older versions and keys that share the tag chain
 * through the records' previous-address field, so lookups compare keys.
 *
 * Growth is linear hashing: once entries exceed `maxLoad` per primary bucket,
 * one bucket is split per insert (bucket s into s and s + 2^level). That is
 * O(1) work per insert, so growing past millions of keys never pauses.
 * Splitting needs one more hash bit per entry without reading any record:
 * the tag holds the hash bits right above the initial bucket bits, so the bit
 * that decides a split is in the tag. Tags therefore discriminate a little
 * less as the table grows (16 - doublings bits), which only lengthens chains.
 *
 * Entry words: lo = address bits 0..31; hi = address bits 32..47 | tag << 16.
 * Address 0 is never a record (page headers sit there), so 0 = empty.
 *
 * Beside the buckets, in parallel chunks, each entry has a 32-bit access
 * word (Redis's 24-bit `lru` field, access-clock.ts): 7 words per primary
 * bucket, 3 per overflow bucket, moved with the entry on every split and
 * cleared with it. Keys that share an entry share its word (an
 * approximation, as Redis's sampled LRU is). Being in memory with the index,
 * it outlives a record's move to disk, and the snapshot keeps it.
 */

const SLOTS = 7;
const BUCKET_WORDS = 16;
const OVERFLOW_WORD = 14;
/** Overflow buckets are half size: most hold only one or two spilled entries. */
const OSLOTS = 3;
const OBUCKET_WORDS = 8;
const OOVERFLOW_WORD = 6;
const CHUNK_BITS = 12;
const CHUNK_BUCKETS = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_BUCKETS - 1;
const CHUNK_WORDS = CHUNK_BUCKETS * BUCKET_WORDS;
const OCHUNK_WORDS = CHUNK_BUCKETS * OBUCKET_WORDS;
const TWO_32 = 2 ** 32;
const MAX_LEVEL = 29;
/** The first snapshot format, without access words. */
const SNAPSHOT_MAGIC_V1 = 0x58444948; // 'HIDX'
/** The snapshot format with the access words after the buckets. */
const SNAPSHOT_MAGIC = 0x32444948; // 'HID2'
const ACHUNK_WORDS = CHUNK_BUCKETS * SLOTS;
/** Words of the snapshot header before the free overflow ids. */
const HEADER_WORDS = 10;
const OACHUNK_WORDS = CHUNK_BUCKETS * OSLOTS;
/** `lastSlot` of an overflow bucket's entry: OVERFLOW_SLOT + j. */
const OVERFLOW_SLOT = 8;
/** Records touched ahead of their inserts (256 measured better than 1024: fewer lines evicted before use). */
const TOUCH_BLOCK = 256;

export interface HashIndexOptions {
  /** Initial primary buckets, a power of two (>= 16). Default 65536 (4 MiB). */
  initialBuckets?: number;
  /** Entries per primary bucket before one is split. Default 5.5. */
  maxLoad?: number;
  /**
   * A part of a parallel build (`join`): only buckets [from, to) ever get
   * entries, so only their chunks are allocated (the others are one shared
   * empty chunk, never written), and no bucket is split, however full:
   * the parts' buckets must stay where each other's are; the joined index
   * grows afterwards (`reserve`).
   */
  part?: { from: number; to: number };
}

/**
 * An index's arrays and geometry (`parts()`): the snapshot header, then
 * the chunks of buckets and of access words.
 */
export interface HashIndexParts {
  header: Uint32Array;
  primary: Uint32Array[];
  overflow: Uint32Array[];
  primaryAccess: Uint32Array[];
  overflowAccess: Uint32Array[];
}

export interface HashIndexStats {
  /** Index entries (distinct bucket+tag pairs, about the number of keys). */
  entries: number;
  /** Primary buckets. */
  buckets: number;
  overflowBuckets: number;
  /** Overflow buckets per primary bucket. */
  overflowRate: number;
  /** Bytes held by the index's typed arrays. */
  bytes: number;
  level: number;
}

export class HashIndex {
  // Set again by `join` (an index made of two parts), else fixed.
  private baseBits: number;
  private tagDivisor: number;
  private readonly maxLoad: number;
  private maxLevel: number;
  private level: number;
  private split = 0;
  private bucketCount: number;
  private readonly primary: Uint32Array[] = [];
  private readonly overflow: Uint32Array[] = [];
  /** Overflow ids handed out so far; id 0 means "none". */
  private overflowHigh = 0;
  private readonly freeOverflow: number[] = [];
  private entryCount = 0;
  /** Access words, chunk for chunk beside `primary` and `overflow`. */
  private readonly primaryAccess: Uint32Array[] = [];
  private readonly overflowAccess: Uint32Array[] = [];
  /** Where the last `find` or `compareAndSet` left its entry: bucket (or overflow id) and slot, -1 none. */
  private lastBucket = 0;
  private lastSlot = -1;
  /** The entry the last LFU touch counted, and in which of the clock's commands. */
  private countedBucket = 0;
  private countedSlot = -1;
  private countedCommand = -1;
  /** The clock new entries take their word from and touches use. */
  clock: AccessClock;
  /** False for an index read from a snapshot without access words (its owner fills them). */
  accessLoaded = true;
  /** No bucket is split: a part of a build that is joined with another (`options.part`). */
  private fixed = false;
  /** Chunks [partFrom, partTo) are this part's own (`options.part`); all of them otherwise. */
  private readonly partFrom: number;
  private readonly partTo: number;
  /** The chunk every chunk outside the part shares (and its access words). */
  private empty: [Uint32Array, Uint32Array] | null = null;
  /** A snapshot being copied (beginSnapshot): a chunk it still needs is copied before a write into it. */
  private copying: IndexSnapshot | null = null;

  constructor(options: HashIndexOptions = {}) {
    const initial = options.initialBuckets ?? 1 << 16;
    if (!Number.isInteger(initial) || initial < 16 || (initial & (initial - 1)) !== 0) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'initialBuckets must be a power of two >= 16');
    }
    if (initial > 1 << MAX_LEVEL) {
      throw new HlogError('ERR_INVALID_ARGUMENT', `initialBuckets must be <= 2^${MAX_LEVEL}`);
    }
    this.baseBits = Math.log2(initial);
    this.tagDivisor = 2 ** this.baseBits;
    this.maxLoad = options.maxLoad ?? 5.5;
    this.maxLevel = Math.min(this.baseBits + 16, MAX_LEVEL);
    this.level = this.baseBits;
    this.bucketCount = initial;
    const part = options.part;
    this.partFrom = part === undefined ? 0 : Math.floor(part.from / CHUNK_BUCKETS);
    this.partTo =
      part === undefined ? Number.POSITIVE_INFINITY : Math.ceil(part.to / CHUNK_BUCKETS);
    this.fixed = part !== undefined;
    for (let b = 0; b < initial; b += CHUNK_BUCKETS) this.addPrimaryChunk();
    this.clock = new AccessClock(Date.now);
  }

  private addPrimaryChunk(): void {
    const c = this.primary.length;
    if (c < this.partFrom || c >= this.partTo) {
      this.empty ??= [new Uint32Array(CHUNK_WORDS), new Uint32Array(ACHUNK_WORDS)];
      this.primary.push(this.empty[0]);
      this.primaryAccess.push(this.empty[1]);
      return;
    }
    this.primary.push(new Uint32Array(CHUNK_WORDS));
    this.primaryAccess.push(new Uint32Array(ACHUNK_WORDS));
  }

  /** The 16-bit tag of a 48-bit hash. */
  tagOf(hash: number): number {
    return Math.floor(hash / this.tagDivisor) & 0xffff;
  }

  bucketOf(hash: number): number {
    const lo = hash >>> 0;
    let b = lo & ((1 << this.level) - 1);
    if (b < this.split) b = lo & ((1 << (this.level + 1)) - 1);
    return b;
  }

  /** Address of the entry for `hash`, or 0 when there is none. */
  find(hash: number): number {
    const tag = this.tagOf(hash);
    const b = this.bucketOf(hash);
    let arr = this.primary[b >>> CHUNK_BITS]!;
    let w = (b & CHUNK_MASK) * BUCKET_WORDS;
    let slots = SLOTS;
    let link = OVERFLOW_WORD;
    let at = b;
    let base = 0;
    for (;;) {
      for (let j = 0; j < slots; j++) {
        const hi = arr[w + 2 * j + 1]!;
        if (hi >>> 16 === tag) {
          const lo = arr[w + 2 * j]!;
          const high = hi & 0xffff;
          // Below 4 GiB the address is `lo`: no float math on the hot path.
          if (high === 0) {
            if (lo !== 0) {
              this.lastBucket = at;
              this.lastSlot = base + j;
              return lo;
            }
          } else {
            this.lastBucket = at;
            this.lastSlot = base + j;
            return lo + high * TWO_32;
          }
        }
      }
      const next = arr[w + link]!;
      if (next === 0) {
        this.lastSlot = -1;
        return 0;
      }
      at = next;
      base = OVERFLOW_SLOT;
      arr = this.overflow[next >>> CHUNK_BITS]!;
      w = (next & CHUNK_MASK) * OBUCKET_WORDS;
      slots = OSLOTS;
      link = OOVERFLOW_WORD;
    }
  }

  /** Points the entry for `hash` at `address`, creating it if needed. */
  upsert(hash: number, address: number): void {
    this.compareAndSet(hash, -1, address);
  }

  /**
   * Sets the entry for `hash` to `address` if it currently holds `expected`
   * (0 = no entry; -1 = anything). Returns whether it did.
   */
  compareAndSet(hash: number, expected: number, address: number): boolean {
    const tag = this.tagOf(hash);
    const b = this.bucketOf(hash);
    let arr = this.primary[b >>> CHUNK_BITS]!;
    let w = (b & CHUNK_MASK) * BUCKET_WORDS;
    let freeArr: Uint32Array | undefined;
    let freeW = 0;
    let freeBucket = 0;
    let freeSlot = 0;
    let slots = SLOTS;
    let link = OVERFLOW_WORD;
    let bucket = b;
    let base = 0;
    for (;;) {
      for (let j = 0; j < slots; j++) {
        const at = w + 2 * j;
        const hi = arr[at + 1]!;
        // An empty slot is all zeros (tag 0 too): test the tag first.
        if (hi >>> 16 === tag) {
          const lo = arr[at]!;
          const high = hi & 0xffff;
          if ((lo | high) !== 0) {
            if (expected !== -1 && lo + high * TWO_32 !== expected) return false;
            if (this.copying !== null) this.preserve(bucket, base);
            if (address === 0) {
              arr[at] = 0;
              arr[at + 1] = 0;
              this.setAccess(bucket, base + j, 0);
              this.lastSlot = -1;
              this.entryCount--;
            } else {
              arr[at] = address >>> 0;
              arr[at + 1] = ((tag << 16) | ((address / TWO_32) & 0xffff)) >>> 0;
              this.lastBucket = bucket;
              this.lastSlot = base + j;
            }
            return true;
          }
        }
        if (hi === 0 && freeArr === undefined && arr[at] === 0) {
          freeArr = arr;
          freeW = at;
          freeBucket = bucket;
          freeSlot = base + j;
        }
      }
      const next = arr[w + link]!;
      if (next === 0) break;
      bucket = next;
      base = OVERFLOW_SLOT;
      arr = this.overflow[next >>> CHUNK_BITS]!;
      w = (next & CHUNK_MASK) * OBUCKET_WORDS;
      slots = OSLOTS;
      link = OOVERFLOW_WORD;
    }
    if (expected > 0) return false;
    if (address === 0) return expected === 0 || expected === -1;
    const hi = ((tag << 16) | ((address / TWO_32) & 0xffff)) >>> 0;
    if (freeArr !== undefined) {
      if (this.copying !== null) this.preserve(freeBucket, freeSlot);
      freeArr[freeW] = address >>> 0;
      freeArr[freeW + 1] = hi;
    } else {
      const id = this.allocOverflow();
      if (this.copying !== null) {
        this.preserve(bucket, base);
        this.preserve(id, OVERFLOW_SLOT);
      }
      arr[w + link] = id;
      const oa = this.overflow[id >>> CHUNK_BITS]!;
      const ow = (id & CHUNK_MASK) * OBUCKET_WORDS;
      oa[ow] = address >>> 0;
      oa[ow + 1] = hi;
      freeBucket = id;
      freeSlot = OVERFLOW_SLOT;
    }
    this.setAccess(freeBucket, freeSlot, this.clock.fresh);
    this.entryCount++;
    if (
      this.entryCount > this.maxLoad * this.bucketCount &&
      this.level < this.maxLevel &&
      !this.fixed
    ) {
      this.splitOne();
    }
    return true;
  }

  /**
   * Grows (splits buckets) until `entries` fit at the maximum load, so that
   * a bulk load does not split as it goes. Cheap on an empty index.
   */
  reserve(entries: number): void {
    if (this.entryCount === 0 && this.maxLoad * this.bucketCount < entries) {
      // Empty: no entry to move, so set the geometry directly (linear
      // hashing's state for that many buckets) instead of splitting.
      const max = 2 ** (this.maxLevel + 1);
      const buckets = Math.min(max, Math.ceil(entries / this.maxLoad));
      this.level = Math.min(this.maxLevel, Math.floor(Math.log2(buckets)));
      this.split = buckets - 2 ** this.level;
      if (this.split >= 2 ** this.level) this.split = 2 ** this.level - 1;
      this.bucketCount = 2 ** this.level + this.split;
      while (this.primary.length * CHUNK_BUCKETS < this.bucketCount) this.addPrimaryChunk();
      return;
    }
    while (this.maxLoad * this.bucketCount < entries && this.level < this.maxLevel) {
      this.splitOne();
    }
  }

  /**
   * Bulk `upsert` of `hashes[i]` -> `addresses[i]` for i in [0, n), in that
   * order (the whole-log rebuild: later records win, so feed them in log
   * order). With a large index nearly every insert misses the cache; one
   * insert's miss stalls on the compare that follows it, so misses would
   * come one at a time. Each block of records is therefore first only
   * touched (one load per bucket, nothing depending on it, so the CPU keeps
   * many misses in flight), then inserted while the lines are cached: about
   * 2x fewer ns per insert than inserting straight away, and than sorting a
   * batch by bucket (measured). The insert is a tight loop: the entry of a
   * (bucket, tag) is overwritten, or the first free slot of the primary
   * bucket taken; only chains with overflow buckets, and growth, take the
   * general path.
   *
   * `noAccess`: new entries' access words are left for the caller to fill
   * (`fillAccess`) once the batches are in: a build of an empty index whose
   * entries all get the same fresh word. A word beside each entry is one
   * more cache miss per insert (about 15% of the insert time, measured).
   */
  insertBatch(hashes: Float64Array, addresses: Float64Array, n: number, noAccess = false): void {
    for (let from = 0; from < n; from += TOUCH_BLOCK) {
      const to = Math.min(n, from + TOUCH_BLOCK);
      this.touch(hashes, from, to);
      this.insertRange(hashes, addresses, from, to, noAccess);
    }
  }

  /**
   * Loads the first word of the bucket of each `hashes[i]`, i in [from, to):
   * independent loads, so their cache misses overlap. Returns a sum only so
   * that the loads are not optimised away.
   */
  touch(hashes: Float64Array, from: number, to: number): number {
    const primary = this.primary;
    const level = this.level;
    const split = this.split;
    let sum = 0;
    for (let i = from; i < to; i++) {
      const lo = hashes[i]! >>> 0;
      let b = lo & ((1 << level) - 1);
      if (b < split) b = lo & ((1 << (level + 1)) - 1);
      sum ^= primary[b >>> CHUNK_BITS]![(b & CHUNK_MASK) * BUCKET_WORDS + 1]!;
    }
    this.touchSink ^= sum;
    return sum;
  }

  /** Loads feed this, so the JIT cannot drop them. */
  private touchSink = 0;

  private insertRange(
    hashes: Float64Array,
    addresses: Float64Array,
    from: number,
    to: number,
    noAccess: boolean,
  ): void {
    const primary = this.primary;
    const div = this.tagDivisor;
    let level = this.level;
    let split = this.split;
    let limit = this.fixed ? Number.POSITIVE_INFINITY : this.maxLoad * this.bucketCount;
    for (let i = from; i < to; i++) {
      const hash = hashes[i]!;
      const address = addresses[i]!;
      const lo = hash >>> 0;
      let b = lo & ((1 << level) - 1);
      if (b < split) b = lo & ((1 << (level + 1)) - 1);
      const tag = Math.floor(hash / div) & 0xffff;
      if (this.copying !== null) this.preserve(b, 0);
      const arr = primary[b >>> CHUNK_BITS]!;
      const w = (b & CHUNK_MASK) * BUCKET_WORDS;
      let free = -1;
      let freeJ = 0;
      let done = false;
      for (let j = w; j < w + 2 * SLOTS; j += 2) {
        const hi = arr[j + 1]!;
        if (hi >>> 16 === tag && (arr[j]! | (hi & 0xffff)) !== 0) {
          arr[j] = address >>> 0;
          arr[j + 1] = ((tag << 16) | ((address / TWO_32) & 0xffff)) >>> 0;
          done = true;
          break;
        }
        if (free < 0 && hi === 0 && arr[j] === 0) {
          free = j;
          freeJ = (j - w) >>> 1;
        }
      }
      if (done) continue;
      if (free >= 0 && arr[w + OVERFLOW_WORD] === 0 && this.entryCount + 1 <= limit) {
        arr[free] = address >>> 0;
        arr[free + 1] = ((tag << 16) | ((address / TWO_32) & 0xffff)) >>> 0;
        if (!noAccess) this.setAccess(b, freeJ, this.clock.fresh);
        this.entryCount++;
        continue;
      }
      // Overflow chains and growth: the general path (it may split).
      this.compareAndSet(hash, -1, address);
      level = this.level;
      split = this.split;
      limit = this.fixed ? Number.POSITIVE_INFINITY : this.maxLoad * this.bucketCount;
    }
  }

  /**
   * One index from two parts built apart with the same geometry (both
   * empty, reserved alike, made with `part`): the primary buckets below
   * `atBucket` (a multiple of 4096) from `low`, the rest from `high`, each
   * part having inserted only hashes of its own buckets. Nothing is copied:
   * `high`'s overflow buckets come after `low`'s (their ids moved up by
   * whole chunks, the links in `high`'s chains rewritten); ids between the
   * two are free. Both parts are taken over. Returns null when the
   * geometries differ.
   */
  static join(low: HashIndex, high: HashIndex, atBucket: number): HashIndex | null {
    if (
      low.level !== high.level ||
      low.split !== high.split ||
      low.bucketCount !== high.bucketCount ||
      low.baseBits !== high.baseBits ||
      low.primary.length !== high.primary.length ||
      (atBucket & CHUNK_MASK) !== 0
    ) {
      return null;
    }
    const cut = atBucket >>> CHUNK_BITS;
    const shift = low.overflow.length << CHUNK_BITS;
    if (shift > 0 && high.overflowHigh > 0) {
      for (let b = atBucket; b < high.bucketCount; b++) {
        let arr = high.primary[b >>> CHUNK_BITS]!;
        let at = (b & CHUNK_MASK) * BUCKET_WORDS + OVERFLOW_WORD;
        for (;;) {
          const next = arr[at]!;
          if (next === 0) break;
          arr[at] = next + shift;
          arr = high.overflow[next >>> CHUNK_BITS]!;
          at = (next & CHUNK_MASK) * OBUCKET_WORDS + OOVERFLOW_WORD;
        }
      }
    }
    const index = new HashIndex({ initialBuckets: 16, maxLoad: low.maxLoad });
    index.baseBits = low.baseBits;
    index.tagDivisor = low.tagDivisor;
    index.maxLevel = low.maxLevel;
    index.level = low.level;
    index.split = low.split;
    index.bucketCount = low.bucketCount;
    index.entryCount = low.entryCount + high.entryCount;
    index.primary.length = 0;
    index.primaryAccess.length = 0;
    index.primary.push(...low.primary.slice(0, cut), ...high.primary.slice(cut));
    index.primaryAccess.push(...low.primaryAccess.slice(0, cut), ...high.primaryAccess.slice(cut));
    index.overflow.push(...low.overflow, ...high.overflow);
    index.overflowAccess.push(...low.overflowAccess, ...high.overflowAccess);
    index.freeOverflow.push(...low.freeOverflow);
    if (high.overflowHigh > 0) {
      for (let id = low.overflowHigh + 1; id <= shift; id++) index.freeOverflow.push(id);
      for (const id of high.freeOverflow) index.freeOverflow.push(id + shift);
      index.overflowHigh = shift + high.overflowHigh;
    } else index.overflowHigh = low.overflowHigh;
    return index;
  }

  /** Removes the entry for `hash` if it holds `expected`. */
  remove(hash: number, expected: number): boolean {
    if (expected <= 0) return false;
    return this.compareAndSet(hash, expected, 0);
  }

  get size(): number {
    return this.entryCount;
  }

  /** Number of primary buckets: the range of `visitBuckets` cursors. */
  get buckets(): number {
    return this.bucketCount;
  }

  /**
   * Calls `visit` with the address of every entry in primary buckets
   * [from, from + count) and their overflow buckets; returns the next cursor
   * (0 after the last bucket). Entries must not be removed by `visit`.
   */
  visitBuckets(from: number, count: number, visit: (address: number) => void): number {
    const end = Math.min(this.bucketCount, from + count);
    for (let b = from; b < end; b++) {
      let arr = this.primary[b >>> CHUNK_BITS]!;
      let w = (b & CHUNK_MASK) * BUCKET_WORDS;
      let slots = SLOTS;
      let link = OVERFLOW_WORD;
      for (;;) {
        for (let j = 0; j < slots; j++) {
          const lo = arr[w + 2 * j]!;
          const high = arr[w + 2 * j + 1]! & 0xffff;
          if ((lo | high) !== 0) visit(lo + high * TWO_32);
        }
        const next = arr[w + link]!;
        if (next === 0) break;
        arr = this.overflow[next >>> CHUNK_BITS]!;
        w = (next & CHUNK_MASK) * OBUCKET_WORDS;
        slots = OSLOTS;
        link = OOVERFLOW_WORD;
      }
    }
    return end >= this.bucketCount ? 0 : end;
  }

  /**
   * Like `visitBuckets`, but removes every entry for which `remove(address)`
   * returns true (entries are matched by address, no hash needed).
   */
  sweepBuckets(from: number, count: number, remove: (address: number) => boolean): number {
    const end = Math.min(this.bucketCount, from + count);
    for (let b = from; b < end; b++) {
      let arr = this.primary[b >>> CHUNK_BITS]!;
      let w = (b & CHUNK_MASK) * BUCKET_WORDS;
      let slots = SLOTS;
      let link = OVERFLOW_WORD;
      let removed = false;
      let bucket = b;
      let base = 0;
      for (;;) {
        for (let j = 0; j < slots; j++) {
          const at = w + 2 * j;
          const lo = arr[at]!;
          const high = arr[at + 1]! & 0xffff;
          if ((lo | high) !== 0 && remove(lo + high * TWO_32)) {
            if (this.copying !== null) this.preserve(bucket, base);
            arr[at] = 0;
            arr[at + 1] = 0;
            this.setAccess(bucket, base + j, 0);
            this.entryCount--;
            removed = true;
          }
        }
        const next = arr[w + link]!;
        if (next === 0) break;
        bucket = next;
        base = OVERFLOW_SLOT;
        arr = this.overflow[next >>> CHUNK_BITS]!;
        w = (next & CHUNK_MASK) * OBUCKET_WORDS;
        slots = OSLOTS;
        link = OOVERFLOW_WORD;
      }
      if (removed) this.compactChain(b);
    }
    return end >= this.bucketCount ? 0 : end;
  }

  stats(): HashIndexStats {
    const overflowBuckets = this.overflowHigh - this.freeOverflow.length;
    return {
      entries: this.entryCount,
      buckets: this.bucketCount,
      overflowBuckets,
      overflowRate: overflowBuckets / this.bucketCount,
      bytes:
        (this.primary.length * (CHUNK_WORDS + ACHUNK_WORDS) +
          this.overflow.length * (OCHUNK_WORDS + OACHUNK_WORDS)) *
        4,
      level: this.level,
    };
  }

  private allocOverflow(): number {
    const reused = this.freeOverflow.pop();
    if (reused !== undefined) return reused;
    const id = ++this.overflowHigh;
    while (this.overflow.length <= id >>> CHUNK_BITS) {
      this.overflow.push(new Uint32Array(OCHUNK_WORDS));
      this.overflowAccess.push(new Uint32Array(OACHUNK_WORDS));
    }
    return id;
  }

  private freeOverflowBucket(id: number): void {
    this.overflow[id >>> CHUNK_BITS]!.fill(
      0,
      (id & CHUNK_MASK) * OBUCKET_WORDS,
      (id & CHUNK_MASK) * OBUCKET_WORDS + OBUCKET_WORDS,
    );
    const aw = (id & CHUNK_MASK) * OSLOTS;
    this.overflowAccess[id >>> CHUNK_BITS]!.fill(0, aw, aw + OSLOTS);
    this.freeOverflow.push(id);
  }

  /** Splits bucket `split` into itself and `split + 2^level`. */
  private splitOne(): void {
    const s = this.split;
    const target = s + (1 << this.level);
    while (this.primary.length <= target >>> CHUNK_BITS) this.addPrimaryChunk();
    const bit = this.level - this.baseBits;
    let arr = this.primary[s >>> CHUNK_BITS]!;
    let w = (s & CHUNK_MASK) * BUCKET_WORDS;
    let slots = SLOTS;
    let link = OVERFLOW_WORD;
    let bucket = s;
    let base = 0;
    for (;;) {
      for (let j = 0; j < slots; j++) {
        const at = w + 2 * j;
        const lo = arr[at]!;
        const hi = arr[at + 1]!;
        if ((lo | (hi & 0xffff)) === 0) continue;
        if (((hi >>> 16) >>> bit) & 1) {
          if (this.copying !== null) this.preserve(bucket, base);
          this.appendRaw(target, lo, hi, this.getAccess(bucket, base + j));
          this.setAccess(bucket, base + j, 0);
          arr[at] = 0;
          arr[at + 1] = 0;
        }
      }
      const next = arr[w + link]!;
      if (next === 0) break;
      bucket = next;
      base = OVERFLOW_SLOT;
      arr = this.overflow[next >>> CHUNK_BITS]!;
      w = (next & CHUNK_MASK) * OBUCKET_WORDS;
      slots = OSLOTS;
      link = OOVERFLOW_WORD;
    }
    this.compactChain(s);
    // The entry `find` last left may have moved.
    this.lastSlot = -1;
    this.bucketCount++;
    this.split++;
    if (this.split === 1 << this.level) {
      this.level++;
      this.split = 0;
    }
  }

  /** Adds an entry to a bucket's chain (no tag check: used while splitting). */
  private appendRaw(b: number, lo: number, hi: number, access: number): void {
    let arr = this.primary[b >>> CHUNK_BITS]!;
    let w = (b & CHUNK_MASK) * BUCKET_WORDS;
    let slots = SLOTS;
    let link = OVERFLOW_WORD;
    let bucket = b;
    let base = 0;
    for (;;) {
      for (let j = 0; j < slots; j++) {
        const at = w + 2 * j;
        if ((arr[at]! | (arr[at + 1]! & 0xffff)) === 0) {
          if (this.copying !== null) this.preserve(bucket, base);
          arr[at] = lo;
          arr[at + 1] = hi;
          this.setAccess(bucket, base + j, access);
          return;
        }
      }
      const next = arr[w + link]!;
      if (next === 0) {
        const id = this.allocOverflow();
        if (this.copying !== null) {
          this.preserve(bucket, base);
          this.preserve(id, OVERFLOW_SLOT);
        }
        arr[w + link] = id;
        const oa = this.overflow[id >>> CHUNK_BITS]!;
        const ow = (id & CHUNK_MASK) * OBUCKET_WORDS;
        oa[ow] = lo;
        oa[ow + 1] = hi;
        this.setAccess(id, OVERFLOW_SLOT, access);
        return;
      }
      bucket = next;
      base = OVERFLOW_SLOT;
      arr = this.overflow[next >>> CHUNK_BITS]!;
      w = (next & CHUNK_MASK) * OBUCKET_WORDS;
      slots = OSLOTS;
      link = OOVERFLOW_WORD;
    }
  }

  /** Unlinks overflow buckets of `b`'s chain that became empty. */
  private compactChain(b: number): void {
    let arr = this.primary[b >>> CHUNK_BITS]!;
    let w = (b & CHUNK_MASK) * BUCKET_WORDS;
    let link = OVERFLOW_WORD;
    let bucket = b;
    let base = 0;
    for (;;) {
      const next = arr[w + link]!;
      if (next === 0) return;
      const na = this.overflow[next >>> CHUNK_BITS]!;
      const nw = (next & CHUNK_MASK) * OBUCKET_WORDS;
      let empty = true;
      for (let j = 0; j < OSLOTS && empty; j++) {
        if ((na[nw + 2 * j]! | (na[nw + 2 * j + 1]! & 0xffff)) !== 0) empty = false;
      }
      if (empty) {
        if (this.copying !== null) {
          this.preserve(bucket, base);
          this.preserve(next, OVERFLOW_SLOT);
        }
        arr[w + link] = na[nw + OOVERFLOW_WORD]!;
        this.freeOverflowBucket(next);
      } else {
        arr = na;
        w = nw;
        link = OOVERFLOW_WORD;
        bucket = next;
        base = OVERFLOW_SLOT;
      }
    }
  }

  /** The access word of slot `slot` (OVERFLOW_SLOT + j in an overflow bucket) of `bucket`. */
  private getAccess(bucket: number, slot: number): number {
    return slot < OVERFLOW_SLOT
      ? this.primaryAccess[bucket >>> CHUNK_BITS]![(bucket & CHUNK_MASK) * SLOTS + slot]!
      : this.overflowAccess[bucket >>> CHUNK_BITS]![
          (bucket & CHUNK_MASK) * OSLOTS + slot - OVERFLOW_SLOT
        ]!;
  }

  private setAccess(bucket: number, slot: number, word: number): void {
    if (slot < OVERFLOW_SLOT) {
      this.primaryAccess[bucket >>> CHUNK_BITS]![(bucket & CHUNK_MASK) * SLOTS + slot] = word;
    } else {
      this.overflowAccess[bucket >>> CHUNK_BITS]![
        (bucket & CHUNK_MASK) * OSLOTS + slot - OVERFLOW_SLOT
      ] = word;
    }
  }

  /**
   * Records an access to the entry the last `find` or `compareAndSet` left
   * (nothing if it found none): under LRU one typed-array store of the
   * cached clock, under LFU Redis's decay and logarithmic increment.
   */
  touchLast(): void {
    const slot = this.lastSlot;
    if (slot < 0) return;
    const clock = this.clock;
    const b = this.lastBucket;
    if (!clock.lfu) {
      if (slot < OVERFLOW_SLOT) {
        this.primaryAccess[b >>> CHUNK_BITS]![(b & CHUNK_MASK) * SLOTS + slot] = clock.lru;
      } else this.setAccess(b, slot, clock.lru);
      return;
    }
    // Counted once per command (LRU's store is the same however many times).
    if (
      clock.command === this.countedCommand &&
      b === this.countedBucket &&
      slot === this.countedSlot
    ) {
      return;
    }
    this.countedCommand = clock.command;
    this.countedBucket = b;
    this.countedSlot = slot;
    this.setAccess(b, slot, clock.touched(this.getAccess(b, slot)));
  }

  /** The access word of the entry the last `find` or `compareAndSet` left, -1 when none. */
  lastAccess(): number {
    return this.lastSlot < 0 ? -1 : this.getAccess(this.lastBucket, this.lastSlot);
  }

  /** Sets the word of the entry the last `find` or `compareAndSet` left (RESTORE's IDLETIME/FREQ). */
  setLastAccess(word: number): void {
    if (this.lastSlot >= 0) this.setAccess(this.lastBucket, this.lastSlot, word >>> 0);
  }

  /** The access word of `hash`'s entry, -1 when there is none. */
  accessOf(hash: number): number {
    return this.find(hash) === 0 ? -1 : this.lastAccess();
  }

  /** Gives every entry the word `word` (an index loaded without access words). */
  fillAccess(word: number): void {
    for (const c of this.primaryAccess) c.fill(word);
    for (const c of this.overflowAccess) c.fill(word);
  }

  /** The snapshot header: magic, geometry, counts, then the free overflow ids. */
  private header(): Uint32Array {
    const header = new Uint32Array(HEADER_WORDS + this.freeOverflow.length);
    header[0] = SNAPSHOT_MAGIC;
    header[1] = this.baseBits;
    header[2] = this.level;
    header[3] = this.split;
    header[4] = this.bucketCount;
    header[5] = this.overflowHigh;
    header[6] = this.entryCount;
    header[7] = this.freeOverflow.length;
    header[8] = Math.round(this.maxLoad * 1000);
    header[9] = this.primary.length;
    header.set(this.freeOverflow, HEADER_WORDS);
    return header;
  }

  /**
   * Copies the chunk of `bucket` (a primary bucket when `slot` is below
   * OVERFLOW_SLOT, else an overflow bucket's id) into the snapshot being
   * taken, if it still needs it: called right before a write into it.
   */
  private preserve(bucket: number, slot: number): void {
    const s = this.copying!;
    if (slot < OVERFLOW_SLOT) s.preservePrimary(bucket >>> CHUNK_BITS);
    else s.preserveOverflow(bucket >>> CHUNK_BITS);
  }

  /**
   * Starts a copy-on-write snapshot of the index as it is now: O(chunks),
   * no entry copied. The caller copies it in slices (`copySome`) across
   * event-loop turns while the index keeps changing; a chunk is copied
   * before its first write. One snapshot at a time.
   */
  beginSnapshot(): IndexSnapshot {
    if (this.copying !== null) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'an index snapshot is already being taken');
    }
    const snap: IndexSnapshot = new IndexSnapshot(
      new Uint8Array(this.header().buffer),
      this.primary.slice(),
      this.overflow.slice(),
      this.primaryAccess.slice(),
      this.overflowAccess.slice(),
      () => {
        if (this.copying === snap) this.copying = null;
      },
    );
    if (!snap.complete) this.copying = snap;
    return snap;
  }

  /** A copy of the index as bytes, taken synchronously (write it at leisure). */
  snapshot(): Uint8Array[] {
    const snap = this.beginSnapshot();
    snap.copyAll();
    return snap.parts();
  }

  /**
   * The index's own arrays, not copied (each chunk owns its buffer), to be
   * transferred to another thread and made an index again there with
   * `fromParts` (the parallel rebuild builds it in a worker). The index
   * must not be used afterwards.
   */
  parts(): HashIndexParts {
    return {
      header: this.header(),
      primary: this.primary,
      overflow: this.overflow,
      primaryAccess: this.primaryAccess,
      overflowAccess: this.overflowAccess,
    };
  }

  /** The buffers of `parts()`, for a transfer list (each once: a part's chunks outside it share one). */
  static buffersOf(parts: HashIndexParts): ArrayBuffer[] {
    const out = new Set<ArrayBuffer>([parts.header.buffer as ArrayBuffer]);
    for (const list of [parts.primary, parts.overflow, parts.primaryAccess, parts.overflowAccess]) {
      for (const c of list) out.add(c.buffer as ArrayBuffer);
    }
    return [...out];
  }

  /**
   * The primary buckets an empty index of `initialBuckets` has after
   * `reserve(entries)` (a parallel build splits them between its parts
   * before making the parts).
   */
  static bucketsReserved(initialBuckets: number, entries: number): number {
    const probe = new HashIndex({ initialBuckets, part: { from: 0, to: 0 } });
    probe.reserve(entries);
    return probe.bucketCount;
  }

  /**
   * An index over `parts` (from `parts()`, or read from a snapshot): takes
   * the arrays over. Throws ERR_CORRUPT when they do not fit the header.
   */
  static fromParts(parts: HashIndexParts): HashIndex {
    const words = parts.header;
    const version = words[0] === SNAPSHOT_MAGIC ? 2 : words[0] === SNAPSHOT_MAGIC_V1 ? 1 : 0;
    if (version === 0) throw corrupt('bad magic');
    const baseBits = words[1]!;
    const freeCount = words[7]!;
    if (baseBits < 4 || baseBits > MAX_LEVEL) throw corrupt('bad base bits');
    if (words.length < HEADER_WORDS + freeCount) throw corrupt('truncated');
    const index = new HashIndex({ initialBuckets: 1 << baseBits, maxLoad: words[8]! / 1000 });
    index.level = words[2]!;
    index.split = words[3]!;
    index.bucketCount = words[4]!;
    index.overflowHigh = words[5]!;
    index.entryCount = words[6]!;
    for (let i = 0; i < freeCount; i++) index.freeOverflow.push(words[HEADER_WORDS + i]!);
    index.primary.length = 0;
    index.primaryAccess.length = 0;
    index.primary.push(...parts.primary);
    index.overflow.push(...parts.overflow);
    if (index.primary.length * CHUNK_BUCKETS < index.bucketCount) throw corrupt('bucket count');
    if (version === 2) {
      index.primaryAccess.push(...parts.primaryAccess);
      index.overflowAccess.push(...parts.overflowAccess);
    } else {
      // Format 1 kept no access words: every entry counts as accessed at load.
      for (const _ of parts.primary) index.primaryAccess.push(new Uint32Array(ACHUNK_WORDS));
      for (const _ of parts.overflow) index.overflowAccess.push(new Uint32Array(OACHUNK_WORDS));
      index.accessLoaded = false;
    }
    return index;
  }

  /**
   * Rebuilds an index from `snapshot()` bytes; throws ERR_CORRUPT on garbage.
   * The index takes the bytes over: its chunks are views into them (no copy:
   * recovery holds the index once, not the file plus a copy), so the caller
   * must not use them afterwards. Bytes not 4-aligned are copied.
   */
  static fromSnapshot(bytes: Uint8Array): HashIndex {
    if (bytes.byteLength < HEADER_WORDS * 4) throw corrupt('too short');
    let own = bytes;
    if (bytes.byteOffset % 4 !== 0) {
      own = new Uint8Array(bytes.byteLength);
      own.set(bytes);
    }
    const words = new Uint32Array(own.buffer, own.byteOffset, own.byteLength >>> 2);
    const version = words[0] === SNAPSHOT_MAGIC ? 2 : words[0] === SNAPSHOT_MAGIC_V1 ? 1 : 0;
    if (version === 0) throw corrupt('bad magic');
    const primaryChunks = words[9]!;
    let at = HEADER_WORDS + words[7]!;
    const need = (n: number): void => {
      if (at + n > words.length) throw corrupt('truncated');
    };
    need(0);
    const parts: HashIndexParts = {
      header: words.subarray(0, at),
      primary: [],
      overflow: [],
      primaryAccess: [],
      overflowAccess: [],
    };
    const take = (into: Uint32Array[], chunks: number, size: number): void => {
      for (let i = 0; i < chunks; i++) {
        need(size);
        into.push(words.subarray(at, at + size));
        at += size;
      }
    };
    take(parts.primary, primaryChunks, CHUNK_WORDS);
    need(1);
    const overflowChunks = words[at++]!;
    take(parts.overflow, overflowChunks, OCHUNK_WORDS);
    if (version === 2) {
      take(parts.primaryAccess, primaryChunks, ACHUNK_WORDS);
      take(parts.overflowAccess, overflowChunks, OACHUNK_WORDS);
    }
    return HashIndex.fromParts(parts);
  }
}

function corrupt(why: string): HlogError {
  return new HlogError('ERR_CORRUPT', `index snapshot is corrupt: ${why}`);
}
