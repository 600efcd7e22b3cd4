// Read-modify-write: RmwFunctions applied in place, copied to the tail, or into a blob.

import type { CoreState } from './core-state.js';
import {
  expiresAtOf,
  RecordFlag,
  RecordType,
  recordSize,
  resizeValueInPlace,
  slotSize,
  typeOf,
} from './record-layout.js';
import { ANY_RECORD_TYPE, RMW_WRONG_TYPE, type RmwFunctions } from './rmw-functions.js';
import {
  type Hint,
  L_DISK,
  L_FOUND,
  R_NEED_BLOB_READ,
  R_NEED_BLOB_WRITE,
  R_NEED_DISK,
  R_NEED_SPACE,
  R_NOT_FOUND,
  R_OK,
  R_WRONG_TYPE,
} from './step-codes.js';
import { fitsInPlace } from './upsert-path.js';

export function rmwStep<C>(
  c: CoreState,
  key: Uint8Array,
  h: number,
  fns: RmwFunctions<C>,
  ctx: C,
  hint: Hint | null,
): number {
  const st = c.locate(key, h, hint);
  if (st === L_DISK) return R_NEED_DISK;
  const live = st === L_FOUND && c.locLive();
  const want = fns.recordType ?? RecordType.STRING;
  // The record's type, kept by an update; a created record gets `want`.
  const type: RecordType = live
    ? typeOf(c.locSpace, c.locOff)
    : want === ANY_RECORD_TYPE
      ? RecordType.STRING
      : want;
  if (live && want !== ANY_RECORD_TYPE && type !== want) {
    c.wrongType.type = type;
    return R_WRONG_TYPE;
  }
  const oldAddress = live ? c.locAddress : 0;
  const exp = live ? expiresAtOf(c.locSpace, c.locOff) : 0;
  const prev = c.keyState(key, st);
  const u = c.updated;
  u.created = !live;
  if (hint?.newBlobValue && hint.newBlobEntry === c.entry && hint.newBlobOld === oldAddress) {
    // The new large value was computed from this very state and is written.
    const blob = hint.newBlobValue;
    const code = c.appendRecord(
      key,
      h,
      RecordFlag.OVERFLOW,
      null,
      0,
      blob.length,
      hint.newBlobAddress,
      exp,
      type,
    );
    if (code !== R_OK) return code;
    c.keyChanged(key, prev, exp, !live);
    u.bytes = blob;
    u.offset = 0;
    u.length = blob.length;
    return R_OK;
  }
  if (!live) {
    const len = fns.initialLength(ctx);
    if (len < 0) return R_NOT_FOUND;
    if (len > c.largeValueThreshold) {
      const buf = Buffer.allocUnsafe(len);
      fns.initialValue(ctx, buf, 0, len);
      c.pendingBlob = buf;
      c.pendingBlobOld = 0;
      return R_NEED_BLOB_WRITE;
    }
    const size = recordSize(key.length, len, false);
    const a = c.log.allocate(size);
    if (a === 0) return R_NEED_SPACE;
    const vo = c.writeNew(a, size, 0, key, len, 0, type);
    fns.initialValue(ctx, c.ring.bytes, vo, len);
    c.index.compareAndSet(h, c.entry, a);
    c.keyChanged(key, prev, 0, true);
    u.bytes = c.ring.bytes;
    u.offset = vo;
    u.length = len;
    return R_OK;
  }
  if (!c.locValue(hint)) return R_NEED_BLOB_READ;
  const len = fns.updatedLength(ctx, c.vBytes, c.vOff, c.vLen, type);
  if (len === RMW_WRONG_TYPE) {
    c.wrongType.type = type;
    return R_WRONG_TYPE;
  }
  if (len < 0) {
    u.bytes = c.vBytes;
    u.offset = c.vOff;
    u.length = c.vLen;
    return R_OK;
  }
  if (len > c.largeValueThreshold) {
    const buf = Buffer.allocUnsafe(len);
    fns.update(ctx, c.vBytes, c.vOff, c.vLen, buf, 0, len);
    c.pendingBlob = buf;
    c.pendingBlobOld = oldAddress;
    return R_NEED_BLOB_WRITE;
  }
  if (c.locMutable && fitsInPlace(c, len, exp)) {
    const s = c.ring;
    const slot = slotSize(s, c.locOff);
    fns.update(ctx, s.bytes, c.vOff, c.vLen, s.bytes, c.vOff, len);
    resizeValueInPlace(s, c.locOff, len, slot);
    c.counters.inPlace++;
    c.keyChanged(key, prev, exp);
    u.bytes = s.bytes;
    u.offset = c.vOff;
    u.length = len;
    return R_OK;
  }
  const size = recordSize(key.length, len, exp !== 0);
  const a = c.log.allocate(size);
  if (a === 0) return R_NEED_SPACE;
  c.protectSource();
  const vo = c.writeNew(a, size, 0, key, len, exp, type);
  fns.update(ctx, c.vBytes, c.vOff, c.vLen, c.ring.bytes, vo, len);
  c.index.compareAndSet(h, c.entry, a);
  c.counters.copies++;
  c.keyChanged(key, prev, exp);
  u.bytes = c.ring.bytes;
  u.offset = vo;
  u.length = len;
  return R_OK;
}
