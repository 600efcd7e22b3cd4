import { hashBytes, RecordFlag, type StoreCore } from '@strata/hlog';
import type { PageContext } from './log-iterator.js';
import { bytesEqual, EXPIRY_SIZE, RECORD_HEADER_SIZE, type RecordBytes } from './record-bytes.js';

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

const TWO_32 = 2 ** 32;
const INVALID = RecordFlag.INVALID;
const TOMBSTONE = RecordFlag.TOMBSTONE;
const HAS_EXPIRY = RecordFlag.HAS_EXPIRY;
/** Enough for the header, expiry and a typical key in one device read. */
const FIRST_READ = 512;

export class LivenessChecker {
  /** After NEEDS_DISK: the first chain address on another device page. */
  diskFrom = 0;
  /** Device reads issued by `resolveOnDisk`. */
  diskReads = 0;

  constructor(private readonly store: StoreCore) {}

  /** Verdict for the record at `rec[off]` (address `address`); `page`: the device page in hand. */
  check(
    rec: RecordBytes,
    off: number,
    address: number,
    page: PageContext | null,
    now: number,
  ): Verdict {
    const w = off >>> 2;
    const u32 = rec.u32;
    const flags = (u32[w + 1]! >>> 16) & 0xff;
    if ((flags & (TOMBSTONE | INVALID)) !== 0) return Liveness.DEAD;
    let ko = off + RECORD_HEADER_SIZE;
    if ((flags & HAS_EXPIRY) !== 0) {
      const exp = rec.f64[ko >>> 3]!;
      if (exp !== 0 && exp <= now) return Liveness.DEAD;
      ko += EXPIRY_SIZE;
    }
    const kl = u32[w + 2]!;
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
    rec: RecordBytes,
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
      let s: RecordBytes;
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
      const ww = o >>> 2;
      const w1 = s.u32[ww + 1]!;
      const f = (w1 >>> 16) & 0xff;
      if ((f & INVALID) === 0 && s.u32[ww + 2] === kl) {
        const ko2 = o + RECORD_HEADER_SIZE + ((f & HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0);
        if (bytesEqual(s.bytes, ko2, rec.bytes, ko, kl)) return Liveness.DEAD;
      }
      const high = w1 & 0xffff;
      a = high === 0 ? s.u32[ww]! : s.u32[ww]! + high * TWO_32;
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
    rec: RecordBytes,
    keyOff: number,
    keyLength: number,
    address: number,
    from: number,
  ): Promise<boolean> {
    const log = this.store.log;
    const P = log.pageSize;
    let a = from;
    while (a > address) {
      if (a < log.begin) return false;
      const pageEnd = (Math.floor(a / P) + 1) * P;
      const want = Math.min(
        pageEnd - a,
        Math.max(FIRST_READ, RECORD_HEADER_SIZE + EXPIRY_SIZE + keyLength),
      );
      const buf = Buffer.allocUnsafe(want);
      this.diskReads++;
      let n: number;
      try {
        n = await log.device.read(a, buf);
      } catch (e) {
        if (log.begin > a) return false;
        throw e;
      }
      if (n < RECORD_HEADER_SIZE) return false;
      const word1 = buf.readUInt32LE(4);
      const flags = (word1 >>> 16) & 0xff;
      const kl = buf.readUInt32LE(8);
      const ko = RECORD_HEADER_SIZE + ((flags & HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0);
      if ((flags & INVALID) === 0 && kl === keyLength && ko + kl <= n) {
        if (bytesEqual(buf, ko, rec.bytes, keyOff, kl)) return false;
      }
      const high = word1 & 0xffff;
      a = buf.readUInt32LE(0) + high * TWO_32;
    }
    return a === address;
  }
}
