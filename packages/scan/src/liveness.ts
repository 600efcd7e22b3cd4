import {
  bytesEqual,
  CorruptRecordError,
  EXPIRY_SIZE,
  flagsOf,
  hashBytes,
  keyLengthOf,
  keyOffsetOf,
  previousAddress,
  RECORD_EXPIRY_OFFSET,
  RECORD_FLAGS_OFFSET,
  RECORD_HEADER_SIZE,
  RECORD_KEY_LENGTH_OFFSET,
  RecordFlag,
  type RecordSpace,
  type StoreCore,
} from '@strata/hlog';
import type { PageContext } from './page-context.js';

/** Gets a record found live, valid during the call only (a whole-log pass, a resolved disk check). */
export type LiveVisitor = (rec: RecordSpace, offset: number, address: number) => void;

/**
 * Lookup-based liveness: the record at address A is live when the index
 * chain for its key leads to A (no newer version of the key on the chain
 * above it), and it is neither a tombstone nor expired.
 *
 * The chain runs from the index entry down through previous addresses, so
 * only the part above A matters. That part is checked in memory when it lies
 * at or above `head` (always true for an in-memory record) or inside the
 * device page being walked (collisions are often neighbours); only a chain
 * that crosses another on-device page needs the device: `check` then says
 * NEEDS_DISK with `diskFrom` set, and `resolveOnDisk` finishes the walk.
 */

export const Liveness = { LIVE: 0, DEAD: 1, NEEDS_DISK: 2 } as const;
export type Verdict = (typeof Liveness)[keyof typeof Liveness];

const INVALID = RecordFlag.INVALID;
const TOMBSTONE = RecordFlag.TOMBSTONE;
const HAS_EXPIRY = RecordFlag.HAS_EXPIRY;

export class LivenessChecker {
  /** After NEEDS_DISK: the first chain address on another device page. */
  diskFrom = 0;
  /** Device reads issued by `resolveOnDisk`. */
  diskReads = 0;

  constructor(private readonly store: StoreCore) {}

  /** Verdict for the record at `rec[off]` (address `address`); `page`: the device page in hand. */
  check(
    rec: RecordSpace,
    off: number,
    address: number,
    page: PageContext | null,
    now: number,
  ): Verdict {
    // Called per record visited: header fields loaded inline, at hlog's offsets.
    const flags = rec.bytes[off + RECORD_FLAGS_OFFSET]!;
    if ((flags & (TOMBSTONE | INVALID)) !== 0) return Liveness.DEAD;
    let ko = off + RECORD_HEADER_SIZE;
    if ((flags & HAS_EXPIRY) !== 0) {
      const exp = rec.f64[(off + RECORD_EXPIRY_OFFSET) >>> 3]!;
      if (exp !== 0 && exp <= now) return Liveness.DEAD;
      ko += EXPIRY_SIZE;
    }
    const kl = rec.u32[(off + RECORD_KEY_LENGTH_OFFSET) >>> 2]!;
    return this.chainFrom(
      rec,
      ko,
      kl,
      address,
      this.store.index.find(hashBytes(rec.bytes, ko, kl)),
      page,
    );
  }

  /**
   * The chain part of `check`, for a record already known to be neither a
   * tombstone nor expired, whose key is `rec[ko, ko + kl)`: walks the chain
   * down from `a` (the index entry) to `address`. Batched passes call it only
   * when the entry lies above the record (a newer version or a colliding key).
   */
  chainFrom(
    rec: RecordSpace,
    ko: number,
    kl: number,
    address: number,
    a: number,
    page: PageContext | null,
  ): Verdict {
    const log = this.store.log;
    const ring = log.ring;
    const head = log.head;
    while (a > address) {
      let s: RecordSpace;
      let o: number;
      if (a >= head) {
        s = ring;
        o = log.offsetOf(a);
      } else if (page !== null && a >= page.address && a < page.address + page.used) {
        s = page.rec;
        o = page.base + (a - page.address);
      } else {
        this.diskFrom = a;
        return Liveness.NEEDS_DISK;
      }
      const f = s.bytes[o + RECORD_FLAGS_OFFSET]!;
      if (
        (f & INVALID) === 0 &&
        s.u32[(o + RECORD_KEY_LENGTH_OFFSET) >>> 2] === kl &&
        bytesEqual(
          s.bytes,
          o + RECORD_HEADER_SIZE + ((f & HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0),
          rec.bytes,
          ko,
          kl,
        )
      ) {
        return Liveness.DEAD;
      }
      a = previousAddress(s, o);
    }
    return a === address ? Liveness.LIVE : Liveness.DEAD;
  }

  /**
   * Finishes a NEEDS_DISK check: walks the chain on the device from `from`
   * down to `address`. The key is read from `rec[keyOff]` (the page in hand,
   * which must stay valid until this settles). Pages on the device never
   * change, so the answer is the one of the moment `check` ran; a chain cut
   * by compaction means the record was dropped or copied ahead: not live here.
   */
  async resolveOnDisk(
    rec: RecordSpace,
    keyOff: number,
    keyLength: number,
    address: number,
    from: number,
  ): Promise<boolean> {
    const log = this.store.log;
    let a = from;
    let key: Buffer | null = null;
    while (a > address) {
      if (a < log.begin) return false;
      // Verified as every device read of a record is (hlog's readVerified).
      key ??= Buffer.from(rec.bytes.subarray(keyOff, keyOff + keyLength));
      this.diskReads++;
      let space: RecordSpace;
      try {
        space = await this.store.readVerified(key, a);
      } catch (e) {
        if (log.begin > a) return false;
        // A damaged record above it on the chain (reported by the read): this
        // record may be stale, so it is not served as live.
        if (e instanceof CorruptRecordError) return false;
        throw e;
      }
      const kl = keyLengthOf(space, 0);
      if ((flagsOf(space, 0) & INVALID) === 0 && kl === keyLength) {
        if (bytesEqual(space.bytes, keyOffsetOf(space, 0), rec.bytes, keyOff, kl)) return false;
      }
      a = previousAddress(space, 0);
    }
    return a === address;
  }
}
