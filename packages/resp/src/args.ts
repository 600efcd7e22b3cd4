import { parseLongLong } from '@strata/protocol';
import { notIntegerError } from './errors.js';

/** `arg` equals the lower-case ASCII `word`, ignoring case (option names: EX, NX...). */
export function eqi(arg: Uint8Array, word: string): boolean {
  const n = word.length;
  if (arg.length !== n) return false;
  for (let i = 0; i < n; i++) {
    let b = arg[i]!;
    if (b >= 0x41 && b <= 0x5a) b |= 0x20;
    if (b !== word.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * A Redis integer argument (string2ll: no spaces, no `+`, no leading
 * zeros, 64-bit), else `ERR value is not an integer or out of range`.
 * Beyond 2^53 the number is rounded; `parseInt64` keeps every digit.
 */
export function parseInteger(arg: Uint8Array): number {
  const v = integerOrNaN(arg);
  if (Number.isNaN(v)) throw notIntegerError();
  return v;
}

/** A Redis integer argument as parseInteger reads it, or NaN where it would refuse it. */
export function integerOrNaN(arg: Uint8Array): number {
  return parseLongLong(arg, 0, arg.length);
}

/** Like parseInteger, exact: a bigint when the value is not a safe integer. */
export function parseInt64(arg: Uint8Array): number | bigint {
  const v = parseInteger(arg);
  if (Number.isSafeInteger(v)) return v;
  return BigInt(Buffer.from(arg.buffer, arg.byteOffset, arg.length).toString('latin1'));
}

/** Redis's client name / lib-name rule: printable ASCII, no spaces. */
export function isPrintableNoSpace(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b < 0x21 || b > 0x7e) return false;
  return true;
}

/** Appends to a list made on first use: the all-in-memory path allocates none. */
export function pushTo<T>(list: T[] | null, item: T): T[] {
  if (list === null) return [item];
  list.push(item);
  return list;
}
