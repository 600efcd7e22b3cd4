import { type CoreState, EMPTY } from './core-state.js';
import { HlogError } from './errors.js';
import {
  keyLengthOf,
  RECORD_HEADER_SIZE,
  RecordFlag,
  RecordType,
  typeOf,
  valueLengthOf,
} from './record-layout.js';
import {
  type Hint,
  L_DISK,
  L_NONE,
  R_NEED_BLOB_RANGE,
  R_NEED_BLOB_READ,
  R_NEED_DISK,
  R_NOT_FOUND,
  R_OK,
  R_WRONG_TYPE,
} from './step-codes.js';
import type { RangePicker } from './store-types.js';

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
  // locate's index lookup left this key's entry as the index's last one.
  if (c.access.touching) c.index.touchLast();
  return R_OK;
}

/**
 * A ranged read of a string: `c.range` gets the bytes `picker` chooses once
 * the value's length is known. A value inside its record is a view into it;
 * a blob's range comes from the device (R_NEED_BLOB_RANGE: only the chunks
 * covering it), or from `hint` when an earlier round read it.
 */
export function rangeStep(
  c: CoreState,
  key: Uint8Array,
  h: number,
  hint: Hint | null,
  picker: RangePicker,
): number {
  const st = c.locate(key, h, hint);
  if (st === L_DISK) return R_NEED_DISK;
  if (st === L_NONE || !c.locLive()) {
    c.counters.misses++;
    return R_NOT_FOUND;
  }
  // Touched before the type check, as Redis's lookup is (a round that
  // waits for a blob's chunks counts once: one command, one count).
  if (c.access.touching) c.index.touchLast();
  const s = c.locSpace;
  const off = c.locOff;
  const type = typeOf(s, off);
  if (type !== RecordType.STRING) {
    c.wrongType.type = type;
    return R_WRONG_TYPE;
  }
  const total = valueLengthOf(s, off);
  picker.pick(total);
  const from = picker.from;
  const to = picker.to;
  if (!(from >= 0 && from <= to && to <= total)) {
    throw new HlogError('ERR_INVALID_ARGUMENT', `range [${from}, ${to}) is outside the value`);
  }
  const r = c.range;
  if ((c.locFlags & RecordFlag.OVERFLOW) === 0) {
    r.bytes = s.bytes;
    r.offset = c.locValueOff + from;
    r.blob = -1;
  } else {
    const blob = s.bytes.readDoubleLE(c.locValueOff);
    r.blob = blob;
    if (to === from) {
      r.bytes = EMPTY;
      r.offset = 0;
    } else if (
      hint !== null &&
      hint.rangeAddress === blob &&
      hint.rangeFrom <= from &&
      to <= hint.rangeTo
    ) {
      r.bytes = hint.rangeBytes!;
      r.offset = hint.rangeOffset + (from - hint.rangeFrom);
    } else {
      c.blobAddress = blob;
      c.blobLength = total;
      c.blobKeyLength = keyLengthOf(s, off);
      c.rangeFrom = from;
      c.rangeTo = to;
      return R_NEED_BLOB_RANGE;
    }
  }
  r.from = from;
  r.length = to - from;
  r.totalLength = total;
  r.expiresAt =
    (c.locFlags & RecordFlag.HAS_EXPIRY) !== 0 ? s.f64[(off + RECORD_HEADER_SIZE) >>> 3]! : 0;
  c.counters.hits++;
  return R_OK;
}

/** A picker for a range given up front: `[offset, offset + length)`, clipped to the value. */
export class FixedRange implements RangePicker {
  from = 0;
  to = 0;
  constructor(
    public offset = 0,
    public length = 0,
  ) {}

  pick(totalLength: number): void {
    this.from = Math.min(this.offset, totalLength);
    this.to = Math.min(totalLength, this.from + this.length);
  }
}
