import { notFloatError, notIntegerError } from './errors.js';
import { parseLongLong } from './protocol/parse-long-long.js';

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
  const v = parseLongLong(arg, 0, arg.length);
  if (Number.isNaN(v)) throw notIntegerError();
  return v;
}

/** Like parseInteger, exact: a bigint when the value is not a safe integer. */
export function parseInt64(arg: Uint8Array): number | bigint {
  const v = parseInteger(arg);
  if (Number.isSafeInteger(v)) return v;
  return BigInt(Buffer.from(arg.buffer, arg.byteOffset, arg.length).toString('latin1'));
}

const INFINITIES = new Map([
  ['inf', Number.POSITIVE_INFINITY],
  ['+inf', Number.POSITIVE_INFINITY],
  ['-inf', Number.NEGATIVE_INFINITY],
  ['infinity', Number.POSITIVE_INFINITY],
  ['+infinity', Number.POSITIVE_INFINITY],
  ['-infinity', Number.NEGATIVE_INFINITY],
]);

/**
 * A Redis float argument (string2ld: strtold over the whole string, no
 * leading space, not NaN; `inf` allowed), else `ERR value is not a valid float`.
 */
export function parseFloatArg(arg: Uint8Array): number {
  const n = arg.length;
  if (n === 0 || n > 5000) throw notFloatError();
  const first = arg[0]!;
  const last = arg[n - 1]!;
  if (isSpace(first) || isSpace(last)) throw notFloatError();
  const text = Buffer.from(arg.buffer, arg.byteOffset, n).toString('latin1');
  const inf = INFINITIES.get(text.toLowerCase());
  if (inf !== undefined) return inf;
  const v = Number(text);
  if (Number.isNaN(v) || text.includes('_')) throw notFloatError();
  return v;
}

function isSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
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
