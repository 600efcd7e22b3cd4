import type { CoreState } from './core-state.js';
import { RECORD_HEADER_SIZE, RecordFlag, typeOf, valueLengthOf } from './record-layout.js';
import {
  type Hint,
  L_DISK,
  L_NONE,
  R_NEED_BLOB_READ,
  R_NEED_DISK,
  R_NOT_FOUND,
  R_OK,
} from './step-codes.js';

export function getStep(
  c: CoreState,
  key: Uint8Array,
  h: number,
  hint: Hint | null,
  wantValue = true,
): number {
  const st = c.locate(key, h, hint);
  if (st === L_DISK) return R_NEED_DISK;
  if (st === L_NONE || !c.locLive()) {
    c.counters.misses++;
    return R_NOT_FOUND;
  }
  const f = c.found;
  if (wantValue) {
    if (!c.locValue(hint)) return R_NEED_BLOB_READ;
    f.bytes = c.vBytes;
    f.offset = c.vOff;
    f.length = c.vLen;
  } else {
    f.length = valueLengthOf(c.locSpace, c.locOff);
    f.offset = 0;
  }
  f.expiresAt =
    (c.locFlags & RecordFlag.HAS_EXPIRY) !== 0
      ? c.locSpace.f64[(c.locOff + RECORD_HEADER_SIZE) >>> 3]!
      : 0;
  f.type = typeOf(c.locSpace, c.locOff);
  c.counters.hits++;
  return R_OK;
}
