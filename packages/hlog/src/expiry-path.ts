// EXPIRE / PERSIST on one key, and the active expiry cycle over the index.

import type { CoreState } from './core-state.js';
import {
  expiresAtOf,
  flagsOf,
  keyLengthOf,
  keyOffsetOf,
  previousAddress,
  RecordFlag,
  type RecordSpace,
  setExpiresAt,
  setFlag,
  typeOf,
  valueLengthOf,
  valueOffsetOf,
} from './record-layout.js';
import {
  EXPIRY_PERSIST,
  type Hint,
  L_DISK,
  L_NONE,
  R_NEED_DISK,
  R_NOT_FOUND,
  R_NOT_SET,
  R_OK,
} from './step-codes.js';

export function expiryStep(
  c: CoreState,
  key: Uint8Array,
  h: number,
  expiresAt: number,
  mode: number,
  hint: Hint | null,
): number {
  const st = c.locate(key, h, hint);
  if (st === L_DISK) return R_NEED_DISK;
  if (st === L_NONE || !c.locLive()) return R_NOT_FOUND;
  const s = c.locSpace;
  const off = c.locOff;
  const current = expiresAtOf(s, off);
  if (mode === EXPIRY_PERSIST && current === 0) return R_NOT_SET;
  const prev = c.keyState(key, st);
  const flags = flagsOf(s, off);
  if (c.locMutable && (flags & RecordFlag.HAS_EXPIRY) !== 0) {
    setExpiresAt(s, off, expiresAt);
    c.keyChanged(key, prev, expiresAt);
    return R_OK;
  }
  const code = expiryCopy(c, key, h, s, off, flags, expiresAt);
  if (code === R_OK) c.keyChanged(key, prev, expiresAt);
  return code;
}

export function expiryCopy(
  c: CoreState,
  key: Uint8Array,
  h: number,
  s: RecordSpace,
  off: number,
  flags: number,
  expiresAt: number,
): number {
  // Copy to the tail with the new expiry; a blob is shared, not copied.
  const overflow = (flags & RecordFlag.OVERFLOW) !== 0;
  const vo = valueOffsetOf(s, off);
  const type = typeOf(s, off);
  if (overflow) {
    return c.appendRecord(
      key,
      h,
      RecordFlag.OVERFLOW,
      null,
      0,
      valueLengthOf(s, off),
      s.bytes.readDoubleLE(vo),
      expiresAt,
      type,
    );
  }
  return c.appendRecord(key, h, 0, s.bytes, vo, valueLengthOf(s, off), 0, expiresAt, type);
}

/**
 * One slice of the active expiry cycle over `buckets` index buckets: an
 * entry whose record is in memory, expired and alone on its chain is
 * removed (and the record tombstoned when still mutable); entries left
 * pointing below `begin` by compaction go too. Expired records elsewhere
 * already read as missing; compaction drops them from the disk.
 */
export function expireSlice(c: CoreState, buckets = 256): number {
  const log = c.log;
  const s = c.ring;
  const now = c.clock();
  let removed = 0;
  c.expiryCursor = c.index.sweepBuckets(c.expiryCursor, buckets, (a) => {
    if (a < log.begin) return true;
    if (a < log.head) return false;
    const off = log.offsetOf(a);
    const flags = flagsOf(s, off);
    if ((flags & RecordFlag.HAS_EXPIRY) === 0 || (flags & RecordFlag.TOMBSTONE) !== 0) return false;
    const exp = s.f64[(off + 16) >>> 3]!;
    if (exp === 0 || exp > now) return false;
    const prev = previousAddress(s, off);
    if (prev !== 0 && prev >= log.begin) return false;
    if (a >= log.readOnly) setFlag(s, off, RecordFlag.TOMBSTONE);
    c.count.expired(s.bytes, keyOffsetOf(s, off), keyLengthOf(s, off));
    removed++;
    return true;
  });
  c.counters.expired += removed;
  return removed;
}
