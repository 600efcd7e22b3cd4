import type { Overflow } from './bitfield-args.js';

/**
 * A write's outcome: the value to store, or null when it overflows under
 * FAIL (nothing written). Redis's checkSignedBitfieldOverflow and
 * checkUnsignedBitfieldOverflow, with their 64-bit wrapping arithmetic
 * kept (so SET i8 -9223372036854775808 SAT saturates high, as there).
 */
export type FieldWrite = bigint | null;

const i64 = (x: bigint) => BigInt.asIntN(64, x);
const u64 = (x: bigint) => BigInt.asUintN(64, x);
const INT64_MAX = (1n << 63n) - 1n;

/** `value + incr` into a signed field of `bits` (value and incr signed 64-bit). */
export function signedResult(
  value: bigint,
  incr: bigint,
  bits: number,
  overflow: Overflow,
): FieldWrite {
  const max = bits === 64 ? INT64_MAX : (1n << BigInt(bits - 1)) - 1n;
  const min = -max - 1n;
  const maxIncr = i64(max - value);
  const minIncr = i64(min - value);
  const narrow = bits !== 64;
  let limit: bigint;
  if (value > max || (narrow && incr > maxIncr) || (value >= 0n && incr > 0n && incr > maxIncr)) {
    limit = max;
  } else if (
    value < min ||
    (narrow && incr < minIncr) ||
    (value < 0n && incr < 0n && incr < minIncr)
  ) {
    limit = min;
  } else return value + incr;
  if (overflow === 'fail') return null;
  if (overflow === 'sat') return limit;
  return BigInt.asIntN(bits, value + incr);
}

/** `value + incr` into an unsigned field of `bits` (value unsigned 64-bit, incr signed). */
export function unsignedResult(
  value: bigint,
  incr: bigint,
  bits: number,
  overflow: Overflow,
): FieldWrite {
  const max = (1n << BigInt(bits)) - 1n;
  const maxIncr = i64(max - value);
  const minIncr = i64(-value);
  let limit: bigint;
  if (value > max || (incr > 0n && incr > maxIncr)) limit = max;
  else if (incr < 0n && incr < minIncr) limit = 0n;
  else return u64(value + incr);
  if (overflow === 'fail') return null;
  if (overflow === 'sat') return limit;
  return BigInt.asUintN(bits, value + incr);
}
