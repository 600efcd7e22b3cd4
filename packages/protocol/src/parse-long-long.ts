import { INT64_MAX, INT64_MIN } from '@strata/io';

/** Redis's LONG_STR_SIZE: a string this long or longer is never a number. */
const LONG_STR_SIZE = 21;

/** Past this many digits a double can no longer tell an overflow: check exactly. */
const SAFE_DIGITS = 15;

/**
 * Redis's `string2ll()` (src/util.c) over `buf[start, end)`: no sign but a
 * leading `-`, no leading zeros, no spaces, within the range of a signed 64-bit
 * integer. Returns the value, or NaN where Redis rejects the string.
 *
 * Values past 2^53 come back rounded; every caller compares them with limits
 * far below that, and the exact 64-bit range check still decides validity
 * (the parser must tell `*-9223372036854775808`, an empty command, from
 * `*-9223372036854775809`, an invalid one).
 */
export function parseLongLong(buf: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length <= 0 || length >= LONG_STR_SIZE) return Number.NaN;
  if (length === 1 && buf[start] === 0x30) return 0;

  let p = start;
  const negative = buf[p] === 0x2d;
  if (negative) {
    p++;
    if (p === end) return Number.NaN;
  }
  const first = buf[p]!;
  if (first < 0x31 || first > 0x39) return Number.NaN;
  const digitsStart = p;
  let value = 0;
  for (; p < end; p++) {
    const digit = buf[p]! - 0x30;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  if (end - digitsStart > SAFE_DIGITS) {
    let exact = 0n;
    for (let i = digitsStart; i < end; i++) exact = exact * 10n + BigInt(buf[i]! - 0x30);
    if (exact > (negative ? -INT64_MIN : INT64_MAX)) return Number.NaN;
    // The nearest double, which digit-by-digit accumulation can miss.
    value = Number(exact);
  }
  return negative ? -value : value;
}
