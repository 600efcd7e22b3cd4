import {
  EXPIRY_SIZE,
  hashBytes,
  INTERNAL_KEY_PREFIX,
  isInternalKey,
  keyLengthOf,
  keyOffsetOf,
  PAGE_HEADER_SIZE,
  RECORD_EXPIRY_OFFSET,
  RECORD_FLAGS_OFFSET,
  RECORD_HEADER_SIZE,
  RECORD_KEY_LENGTH_OFFSET,
  RECORD_TYPE_OFFSET,
  RECORD_VALUE_LENGTH_OFFSET,
  RecordFlag,
  type RecordSpace,
  type StoreCore,
  slotSizeFrom,
} from '@strata/hlog';
import { Liveness, type LivenessChecker, type LiveVisitor } from './liveness.js';
import { BAD_SLOT, type IterateResult, type PageWalker } from './log-iterator.js';
import type { PageContext } from './page-context.js';
import type { PendingChecks } from './pending-checks.js';
import type { RecordFilter } from './record-filter.js';

const INTERNAL_FIRST = INTERNAL_KEY_PREFIX[0]!;

const VALID = RecordFlag.VALID;
const INVALID = RecordFlag.INVALID;
const TOMBSTONE = RecordFlag.TOMBSTONE;
const HAS_EXPIRY = RecordFlag.HAS_EXPIRY;

/**
 * Index probes per batch. The index is far bigger than the caches: a probe
 * is a miss. A batch's buckets are first only touched (`HashIndex.touch`:
 * a few instructions and one load per key, nothing depending on the load,
 * so the CPU keeps many misses in flight; a full probe's compares would
 * fill its reorder window after two or three), then probed from cache.
 * 256 keeps the arrays small (7 KiB) and the touched lines in L2.
 */
export const LIVE_BATCH = 256;

/**
 * The whole-log pass's page walk (DBSIZE, KEYS, INFO keyspace): one loop of
 * typed-array loads per page (each header field loaded once, at hlog's
 * field offsets), no call per record, nothing allocated. Each
 * record passing the filter that is neither a tombstone nor expired has its
 * key hashed into a batch; a full batch (or the page's end) probes the index
 * for all of them in a row, then decides each: the entry is the record
 * itself (live: by far the most common case), below it (dead), or above it
 * (a newer version or a colliding key: the chain walk of `LivenessChecker`,
 * which may queue the check for the device in `pending`). Verdicts are those
 * of `LivenessChecker.check`, and live records reach `onLive` in page order.
 *
 * All of a page happens synchronously, so nothing can change the index
 * between a record's probe and its verdict.
 */
export class LiveWalker implements PageWalker {
  /** Live records found without the device (`onLive` calls, or the count without one). */
  live = 0;
  private readonly offsets = new Int32Array(LIVE_BATCH);
  private readonly addresses = new Float64Array(LIVE_BATCH);
  private readonly hashes = new Float64Array(LIVE_BATCH);
  private readonly found = new Float64Array(LIVE_BATCH);
  private readonly typeCode: number;

  constructor(
    private readonly store: StoreCore,
    private readonly filter: RecordFilter,
    private readonly liveness: LivenessChecker,
    private readonly pending: PendingChecks,
    /** The iterator's page in hand (for chains that stay inside it). */
    private readonly page: PageContext,
    private readonly now: number,
    /** null: only count. */
    private readonly onLive: LiveVisitor | null,
  ) {
    this.typeCode = filter.typeCode;
  }

  walkPage(
    rec: RecordSpace,
    base: number,
    page: number,
    used: number,
    from: number,
    to: number,
    result: IterateResult,
  ): number {
    const bytes = rec.bytes;
    const u32 = rec.u32;
    const f64 = rec.f64;
    const typeCode = this.typeCode;
    const glob = this.filter.glob;
    const now = this.now;
    const offsets = this.offsets;
    const addresses = this.addresses;
    const hashes = this.hashes;
    let n = 0;
    let records = 0;
    let next = page + this.store.log.pageSize;
    let off = base + PAGE_HEADER_SIZE;
    const end = base + used;
    while (off < end) {
      const flags = bytes[off + RECORD_FLAGS_OFFSET]!;
      if ((flags & VALID) === 0) return BAD_SLOT;
      const kl = u32[(off + RECORD_KEY_LENGTH_OFFSET) >>> 2]!;
      const size = slotSizeFrom(
        rec,
        off,
        flags,
        kl,
        u32[(off + RECORD_VALUE_LENGTH_OFFSET) >>> 2]!,
      );
      if (size < 16 || off + size > end) return BAD_SLOT;
      const address = page + (off - base);
      if (address >= to) {
        next = address;
        break;
      }
      // A `from` inside a record snaps back to it, as the iterator's walk does.
      if (address + size > from && (flags & INVALID) === 0) {
        records++;
        const hasExpiry = (flags & HAS_EXPIRY) !== 0;
        const ko = off + RECORD_HEADER_SIZE + (hasExpiry ? EXPIRY_SIZE : 0);
        if (
          (flags & TOMBSTONE) === 0 &&
          (typeCode < 0 || bytes[off + RECORD_TYPE_OFFSET] === typeCode) &&
          // Strata's own records (a stream's blocks) are no user's keys.
          (bytes[ko] !== INTERNAL_FIRST || !isInternalKey(bytes, ko, kl)) &&
          !(
            hasExpiry &&
            f64[(off + RECORD_EXPIRY_OFFSET) >>> 3]! !== 0 &&
            f64[(off + RECORD_EXPIRY_OFFSET) >>> 3]! <= now
          ) &&
          (glob === null || glob.match(bytes, ko, ko + kl))
        ) {
          offsets[n] = off;
          addresses[n] = address;
          hashes[n] = hashBytes(bytes, ko, kl);
          if (++n === LIVE_BATCH) {
            this.decide(rec, n);
            n = 0;
          }
        }
      }
      off += size;
    }
    if (n > 0) this.decide(rec, n);
    result.records += records;
    return next;
  }

  /** Probes the index for the batch, then gives each record its verdict. */
  private decide(rec: RecordSpace, n: number): void {
    const index = this.store.index;
    const hashes = this.hashes;
    const found = this.found;
    index.touch(hashes, 0, n);
    for (let i = 0; i < n; i++) found[i] = index.find(hashes[i]!);
    const offsets = this.offsets;
    const addresses = this.addresses;
    const onLive = this.onLive;
    for (let i = 0; i < n; i++) {
      const entry = found[i]!;
      const address = addresses[i]!;
      if (entry < address) continue;
      const off = offsets[i]!;
      if (entry > address) {
        const v = this.chain(rec, off, address, entry);
        if (v === Liveness.DEAD) continue;
        if (v === Liveness.NEEDS_DISK) {
          this.pending.add(off, address, this.liveness.diskFrom);
          continue;
        }
      }
      this.live++;
      if (onLive !== null) onLive(rec, off, address);
    }
  }

  private chain(rec: RecordSpace, off: number, address: number, entry: number): number {
    const page = this.page;
    return this.liveness.chainFrom(
      rec,
      keyOffsetOf(rec, off),
      keyLengthOf(rec, off),
      address,
      entry,
      page.onDisk ? page : null,
    );
  }
}
