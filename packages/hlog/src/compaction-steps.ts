import type { CoreState } from './core-state.js';
import { hashKey } from './key-hash.js';
import { drive } from './pending-driver.js';
import {
  expiresAtOf,
  flagsOf,
  keyLengthOf,
  keyOffsetOf,
  RecordFlag,
  type RecordSpace,
  typeOf,
  valueLengthOf,
  valueOffsetOf,
} from './record-layout.js';
import {
  Hint,
  L_DISK,
  L_NONE,
  R_NEED_BLOB_READ,
  R_NEED_BLOB_WRITE,
  R_NEED_DISK,
  R_NOT_FOUND,
  R_OK,
} from './step-codes.js';

/**
 * Compaction: copies the record at `address` (held in `known`) to the tail
 * if it is still the newest version of its key and live; R_OK = copied.
 */
export function compactStep(
  c: CoreState,
  key: Uint8Array,
  h: number,
  address: number,
  hint: Hint,
): number {
  const st = c.locate(key, h, hint);
  if (st === L_DISK) return R_NEED_DISK;
  if (st === L_NONE || c.locAddress !== address || !c.locLive()) return R_NOT_FOUND;
  const s = c.locSpace;
  const off = c.locOff;
  const flags = flagsOf(s, off);
  const exp = expiresAtOf(s, off);
  const len = valueLengthOf(s, off);
  const type = typeOf(s, off);
  if ((flags & RecordFlag.OVERFLOW) !== 0) {
    // The blob sits in the range being dropped: copy it too.
    if (
      hint.newBlobValue !== null &&
      hint.newBlobEntry === c.entry &&
      hint.newBlobOld === address
    ) {
      return c.appendRecord(
        key,
        h,
        RecordFlag.OVERFLOW,
        null,
        0,
        len,
        hint.newBlobAddress,
        exp,
        type,
      );
    }
    if (!c.locValue(hint)) return R_NEED_BLOB_READ;
    c.pendingBlob = c.vBytes;
    c.pendingBlobOld = address;
    return R_NEED_BLOB_WRITE;
  }
  return c.appendRecord(key, h, 0, s.bytes, valueOffsetOf(s, off), len, 0, exp, type);
}

/**
 * Copies the record (a copy of it in `space` at offset 0, from `address`)
 * to the tail if it is live; resolves true when copied.
 */
export function copyIfLive(
  c: CoreState,
  space: RecordSpace,
  address: number,
): Promise<boolean> | boolean {
  const flags = flagsOf(space, 0);
  if ((flags & (RecordFlag.INVALID | RecordFlag.TOMBSTONE)) !== 0) return false;
  const exp = expiresAtOf(space, 0);
  if (exp !== 0 && exp <= c.clock()) return false;
  const ko = keyOffsetOf(space, 0);
  const key = space.bytes.subarray(ko, ko + keyLengthOf(space, 0));
  const h = hashKey(key);
  const hint = new Hint();
  hint.knownAddress = address;
  hint.knownSpace = space;
  const code = compactStep(c, key, h, address, hint);
  if (code === R_OK) return true;
  if (code === R_NOT_FOUND) return false;
  return drive(
    c,
    key,
    code,
    (hn) => compactStep(c, key, h, address, hn),
    (code) => code === R_OK,
    hint,
  );
}

/**
 * Compaction of a blob: if the newest record of `key` is live and points
 * at the blob at `blobAddress`, the blob is rewritten at the tail and a
 * copy of the record points at it. Resolves true when relocated.
 */
export function relocateBlobIfLive(
  c: CoreState,
  key: Uint8Array,
  blobAddress: number,
): Promise<boolean> | boolean {
  const h = hashKey(key);
  const code = relocateStep(c, key, h, blobAddress, null);
  if (code === R_OK) return true;
  if (code === R_NOT_FOUND) return false;
  return drive(
    c,
    key,
    code,
    (hn) => relocateStep(c, key, h, blobAddress, hn),
    (code) => code === R_OK,
  );
}

export function relocateStep(
  c: CoreState,
  key: Uint8Array,
  h: number,
  blobAddress: number,
  hint: Hint | null,
): number {
  const st = c.locate(key, h, hint);
  if (st === L_DISK) return R_NEED_DISK;
  if (st === L_NONE || !c.locLive()) return R_NOT_FOUND;
  const s = c.locSpace;
  const off = c.locOff;
  if ((flagsOf(s, off) & RecordFlag.OVERFLOW) === 0) return R_NOT_FOUND;
  if (s.bytes.readDoubleLE(valueOffsetOf(s, off)) !== blobAddress) return R_NOT_FOUND;
  const exp = expiresAtOf(s, off);
  const len = valueLengthOf(s, off);
  const type = typeOf(s, off);
  if (hint?.newBlobValue && hint.newBlobEntry === c.entry && hint.newBlobOld === blobAddress) {
    return c.appendRecord(
      key,
      h,
      RecordFlag.OVERFLOW,
      null,
      0,
      len,
      hint.newBlobAddress,
      exp,
      type,
    );
  }
  if (!c.locValue(hint)) return R_NEED_BLOB_READ;
  c.pendingBlob = c.vBytes;
  c.pendingBlobOld = blobAddress;
  return R_NEED_BLOB_WRITE;
}
