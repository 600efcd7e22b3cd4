import { INT64_MAX, INT64_MIN } from '@strata/io';
import { HlogError } from './errors.js';
import type { RecordType } from './record-layout.js';

/** Redis's limit on a string value. */
export const MAX_VALUE_LENGTH = 512 * 1024 * 1024;

/**
 * The value codec seam of read-modify-write (FASTER's IFunctions): the store
 * asks for lengths first, then has the value written straight into the log
 * (in place when it fits the record's slot, else into a new record at the
 * tail). Nothing is allocated by the store; functions keep their inputs and
 * outputs in `ctx`. A function may throw (e.g. ERR_NOT_INTEGER) from the
 * length calls: nothing has been changed then.
 */
/** `RmwFunctions.recordType`: the functions take a record of any type. */
export const ANY_RECORD_TYPE = -1;

/** From `updatedLength`: refuse the existing record (its type); nothing changes. */
export const RMW_WRONG_TYPE = -2;

export interface RmwFunctions<C> {
  /**
   * The type of record these functions read and create. Default
   * RecordType.STRING. When the key holds a live record of another type, the
   * operation ends with `{ status: 'wrongType' }` before any function runs.
   * With ANY_RECORD_TYPE every type reaches `updatedLength` (which may
   * return RMW_WRONG_TYPE) and a missing key is created as a STRING.
   */
  readonly recordType?: RecordType | typeof ANY_RECORD_TYPE;
  /** Length of the value to create for a missing key; -1 leaves it missing. */
  initialLength(ctx: C): number;
  initialValue(ctx: C, dst: Uint8Array, dstOffset: number, length: number): void;
  /**
   * Length of the updated value; -1 leaves the value as it is, RMW_WRONG_TYPE
   * refuses it. `type` is the existing record's (it keeps it).
   */
  updatedLength(
    ctx: C,
    old: Uint8Array,
    oldOffset: number,
    oldLength: number,
    type: RecordType,
  ): number;
  /**
   * Writes the updated value. For an in-place update `dst === old` and
   * `dstOffset === oldOffset`: read what you need of the old value before
   * writing over it.
   */
  update(
    ctx: C,
    old: Uint8Array,
    oldOffset: number,
    oldLength: number,
    dst: Uint8Array,
    dstOffset: number,
    newLength: number,
  ): void;
}

// ---- INCR / INCRBY / DECR ---------------------------------------------------

export interface IncrContext {
  delta: number;
  /** The value after the operation (a bigint beyond 2^53). */
  result: number | bigint;
}

function notInteger(): HlogError {
  return new HlogError('ERR_NOT_INTEGER', 'value is not an integer or out of range');
}

/** Parses a Redis integer string (no sign '+', no leading zeros, int64). */
export function parseInteger(b: Uint8Array, off: number, len: number): number | bigint {
  if (len === 0 || len > 20) throw notInteger();
  let i = off;
  const end = off + len;
  const negative = b[i] === 0x2d;
  if (negative) i++;
  if (i === end) throw notInteger();
  if (b[i] === 0x30 && (end - i > 1 || negative)) throw notInteger();
  if (end - i <= 15) {
    let v = 0;
    for (; i < end; i++) {
      const d = b[i]! - 0x30;
      if (d < 0 || d > 9) throw notInteger();
      v = v * 10 + d;
    }
    return negative ? -v : v;
  }
  let v = 0n;
  for (; i < end; i++) {
    const d = b[i]! - 0x30;
    if (d < 0 || d > 9) throw notInteger();
    v = v * 10n + BigInt(d);
  }
  if (negative) v = -v;
  if (v > INT64_MAX || v < INT64_MIN) throw notInteger();
  return Number.isSafeInteger(Number(v)) ? Number(v) : v;
}

function add(a: number | bigint, delta: number): number | bigint {
  if (typeof a === 'number') {
    const r = a + delta;
    if (Number.isSafeInteger(r)) return r;
  }
  const r = BigInt(a) + BigInt(delta);
  if (r > INT64_MAX || r < INT64_MIN) {
    throw new HlogError('ERR_INCR_OVERFLOW', 'increment or decrement would overflow');
  }
  return Number.isSafeInteger(Number(r)) ? Number(r) : r;
}

export function integerLength(v: number | bigint): number {
  if (typeof v === 'bigint') return v.toString().length;
  let n = v < 0 ? 2 : 1;
  let a = Math.abs(v);
  while (a >= 10) {
    a = Math.floor(a / 10);
    n++;
  }
  return n;
}

export function writeInteger(v: number | bigint, dst: Uint8Array, off: number, len: number): void {
  if (typeof v === 'bigint') {
    Buffer.from(v.toString(), 'latin1').copy(dst, off);
    return;
  }
  let a = Math.abs(v);
  let i = off + len - 1;
  do {
    dst[i--] = 0x30 + (a % 10);
    a = Math.floor(a / 10);
  } while (a > 0);
  if (v < 0) dst[i] = 0x2d;
}

export const incrFunctions: RmwFunctions<IncrContext> = {
  initialLength(ctx) {
    ctx.result = ctx.delta;
    return integerLength(ctx.result);
  },
  initialValue(ctx, dst, off, len) {
    writeInteger(ctx.result, dst, off, len);
  },
  updatedLength(ctx, old, off, len) {
    ctx.result = add(parseInteger(old, off, len), ctx.delta);
    return integerLength(ctx.result);
  },
  update(ctx, _old, _oo, _ol, dst, off, len) {
    writeInteger(ctx.result, dst, off, len);
  },
};

// ---- APPEND ----------------------------------------------------------------

export interface AppendContext {
  suffix: Uint8Array;
}

export const appendFunctions: RmwFunctions<AppendContext> = {
  initialLength: (ctx) => ctx.suffix.length,
  initialValue(ctx, dst, off) {
    dst.set(ctx.suffix, off);
  },
  updatedLength(ctx, _old, _off, len) {
    if (len + ctx.suffix.length > MAX_VALUE_LENGTH) {
      throw new HlogError('ERR_VALUE_TOO_LARGE', 'string exceeds maximum allowed size (512MB)');
    }
    return len + ctx.suffix.length;
  },
  update(ctx, old, oo, ol, dst, off) {
    if (dst !== old || off !== oo) dst.set(old.subarray(oo, oo + ol), off);
    dst.set(ctx.suffix, off + ol);
  },
};

// ---- SETRANGE --------------------------------------------------------------

export interface SetRangeContext {
  offset: number;
  patch: Uint8Array;
}

function checkRange(ctx: SetRangeContext): void {
  if (ctx.offset + ctx.patch.length > MAX_VALUE_LENGTH) {
    throw new HlogError('ERR_VALUE_TOO_LARGE', 'string exceeds maximum allowed size (512MB)');
  }
}

export const setRangeFunctions: RmwFunctions<SetRangeContext> = {
  initialLength(ctx) {
    checkRange(ctx);
    return ctx.patch.length === 0 ? -1 : ctx.offset + ctx.patch.length;
  },
  initialValue(ctx, dst, off, len) {
    dst.fill(0, off, off + len);
    dst.set(ctx.patch, off + ctx.offset);
  },
  updatedLength(ctx, _old, _off, len) {
    checkRange(ctx);
    return ctx.patch.length === 0 ? -1 : Math.max(len, ctx.offset + ctx.patch.length);
  },
  update(ctx, old, oo, ol, dst, off) {
    if (dst !== old || off !== oo) dst.set(old.subarray(oo, oo + ol), off);
    if (ctx.offset > ol) dst.fill(0, off + ol, off + ctx.offset);
    dst.set(ctx.patch, off + ctx.offset);
  },
};

// ---- A plain function ------------------------------------------------------

/** `fn(old)` returns the new value, or null to leave the key as it is. */
export type UpdateFunction = (old: Buffer | null) => Uint8Array | null;

export interface FunctionContext {
  fn: UpdateFunction;
  next: Uint8Array | null;
}

export const functionFunctions: RmwFunctions<FunctionContext> = {
  initialLength(ctx) {
    ctx.next = ctx.fn(null);
    return ctx.next === null ? -1 : ctx.next.length;
  },
  initialValue(ctx, dst, off) {
    dst.set(ctx.next!, off);
  },
  updatedLength(ctx, old, off, len) {
    ctx.next = ctx.fn(Buffer.from(old.subarray(off, off + len)));
    return ctx.next === null ? -1 : ctx.next.length;
  },
  update(ctx, _old, _oo, _ol, dst, off) {
    dst.set(ctx.next!, off);
  },
};
