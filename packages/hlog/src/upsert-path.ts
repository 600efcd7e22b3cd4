// The upsert path (SET with its conditions) and delete (tombstones).

import type { CoreState } from './core-state.js';
import { copyBytes } from './core-state.js';
import {
  clearFlag,
  expiresAtOf,
  flagsOf,
  RecordFlag,
  RecordType,
  resizeValueInPlace,
  setExpiresAt,
  setFlag,
  setTypeOf,
  slotSize,
  typeOf,
  valueCapacity,
  valueOffsetOf,
} from './record-layout.js';
import {
  type Hint,
  L_DISK,
  L_FOUND,
  L_NONE,
  R_NEED_BLOB_READ,
  R_NEED_BLOB_WRITE,
  R_NEED_DISK,
  R_NOT_FOUND,
  R_NOT_SET,
  R_OK,
  R_WRONG_TYPE,
} from './step-codes.js';
import { SetFlag } from './store-types.js';

export function upsertStep(
  c: CoreState,
  key: Uint8Array,
  h: number,
  value: Uint8Array,
  expiresAt: number,
  flags: number,
  type: RecordType,
  hint: Hint | null,
): number {
  const st = c.locate(key, h, hint);
  // A blind upsert needs no old value: it never waits for the device.
  if (st === L_DISK && flags !== 0) return R_NEED_DISK;
  const found = st === L_FOUND;
  const live = found && c.locLive();
  const prev = c.keyState(key, st);
  // Unknown for a blind write over a record on the device: counted as there.
  const created = st !== L_DISK && !live;
  let exp = expiresAt;
  if (flags !== 0) {
    c.written.old = null;
    c.notSet.old = null;
    if ((flags & SetFlag.GET) !== 0 && live) {
      const old = typeOf(c.locSpace, c.locOff);
      if (old !== type) {
        c.wrongType.type = old;
        return R_WRONG_TYPE;
      }
      if (!c.locValue(hint)) return R_NEED_BLOB_READ;
      c.written.old = c.notSet.old = c.copyOld();
    }
    if ((flags & SetFlag.NX) !== 0 && live) return R_NOT_SET;
    if ((flags & SetFlag.XX) !== 0 && !live) return R_NOT_SET;
    if ((flags & SetFlag.KEEP_TTL) !== 0 && live) exp = expiresAtOf(c.locSpace, c.locOff);
  }
  if (value.length > c.largeValueThreshold) {
    if (hint === null || hint.newBlobFor !== value) {
      c.pendingBlob = Buffer.from(value.buffer, value.byteOffset, value.length);
      c.pendingBlobFor = value;
      c.pendingBlobOld = -1;
      return R_NEED_BLOB_WRITE;
    }
    const code = c.appendRecord(
      key,
      h,
      RecordFlag.OVERFLOW,
      null,
      0,
      value.length,
      hint.newBlobAddress,
      exp,
      type,
    );
    if (code === R_OK) c.keyChanged(key, prev, exp, created);
    return code;
  }
  if (found && c.locMutable && fitsInPlace(c, value.length, exp)) {
    const s = c.ring;
    const off = c.locOff;
    const vo = valueOffsetOf(s, off);
    const slot = slotSize(s, off);
    copyBytes(value, 0, value.length, s.bytes, vo);
    resizeValueInPlace(s, off, value.length, slot);
    if (exp !== 0 || (flagsOf(s, off) & RecordFlag.HAS_EXPIRY) !== 0) setExpiresAt(s, off, exp);
    clearFlag(s, off, RecordFlag.TOMBSTONE);
    setTypeOf(s, off, type);
    c.counters.inPlace++;
    c.keyChanged(key, prev, exp, created);
    return R_OK;
  }
  const code = c.appendRecord(key, h, 0, value, 0, value.length, 0, exp, type);
  if (code === R_OK) c.keyChanged(key, prev, exp, created);
  return code;
}

export function fitsInPlace(c: CoreState, length: number, exp: number): boolean {
  const s = c.ring;
  const off = c.locOff;
  const flags = flagsOf(s, off);
  if ((flags & RecordFlag.OVERFLOW) !== 0) return false;
  if (exp !== 0 && (flags & RecordFlag.HAS_EXPIRY) === 0) return false;
  return length <= valueCapacity(s, off);
}

/**
 * A delete (a tombstone). `keep`: a record type not to delete: a live
 * record of it ends in R_WRONG_TYPE (its type in `c.wrongType`), untouched,
 * so a caller that must read such a value before it goes (a stream head,
 * for its blocks) learns so from the delete's own lookup. -1: none.
 */
export function deleteStep(
  c: CoreState,
  key: Uint8Array,
  h: number,
  hint: Hint | null,
  keep = -1,
): number {
  const st = c.locate(key, h, hint);
  if (st === L_DISK) return R_NEED_DISK;
  if (st === L_NONE && hint !== null && hint.damaged) {
    // The newest version is damaged (unreadable): a tombstone replaces it
    // all the same, so a damaged key can always be deleted. It counts as a
    // key that was there (the count's own read of it decides as for a
    // blind write).
    const prev = c.keyState(key, L_DISK);
    const code = c.appendRecord(key, h, RecordFlag.TOMBSTONE, null, 0, 0, 0, 0, RecordType.STRING);
    if (code === R_OK) c.keyChanged(key, prev, -1);
    return code;
  }
  if (st === L_NONE || !c.locLive()) return R_NOT_FOUND;
  if (keep >= 0 && typeOf(c.locSpace, c.locOff) === keep) {
    c.wrongType.type = keep;
    return R_WRONG_TYPE;
  }
  const prev = c.keyState(key, st);
  if (c.locMutable) {
    setFlag(c.ring, c.locOff, RecordFlag.TOMBSTONE);
    c.counters.inPlace++;
    c.keyChanged(key, prev, -1);
    return R_OK;
  }
  const code = c.appendRecord(key, h, RecordFlag.TOMBSTONE, null, 0, 0, 0, 0, RecordType.STRING);
  if (code === R_OK) c.keyChanged(key, prev, -1);
  return code;
}
