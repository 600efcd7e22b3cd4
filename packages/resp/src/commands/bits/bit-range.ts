import { eqi } from '../../args.js';
import { syntaxError } from '../../errors.js';

/**
 * A BITCOUNT/BITPOS range resolved against a string: the bits
 * `[firstBit, lastBit]` of the value, both inside it. A BYTE range covers
 * whole bytes (`firstBit` a multiple of 8, `lastBit` one less).
 */
export interface BitSpan {
  readonly firstBit: number;
  readonly lastBit: number;
}

/** The optional `BYTE|BIT` unit of a range: true for BIT, a syntax error for another word. */
export function isBitUnit(arg: Buffer): boolean {
  if (eqi(arg, 'bit')) return true;
  if (eqi(arg, 'byte')) return false;
  throw syntaxError();
}

/**
 * Redis 7's range arithmetic (bitcountCommand, bitposCommand): `start` and
 * `end` in bytes or bits, negative ones from the end, clamped to the value of
 * `len` bytes; null when the range is empty.
 */
export function resolveBitSpan(
  start: number,
  end: number,
  isBit: boolean,
  len: number,
): BitSpan | null {
  const total = isBit ? len * 8 : len;
  if (start < 0) start = total + start;
  if (end < 0) end = total + end;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  if (start > end) return null;
  return isBit ? { firstBit: start, lastBit: end } : { firstBit: start * 8, lastBit: end * 8 + 7 };
}
