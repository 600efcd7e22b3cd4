/**
 * A numeric SORT weight as Redis 7.0 reads it: glibc's strtod (C locale)
 * over the value as a C string, refused when anything is left after the
 * number, when it is NaN, or when strtod reports ERANGE (an overflow, or a
 * decimal too small for a normal double). What strtod accepts and
 * Redis's float parsers do not: leading whitespace, hex floats (`0x1p3`),
 * `inf`/`infinity`, and the empty string (0: no conversion, nothing left).
 */
export function sortScore(value: string): number | null {
  const nul = value.indexOf('\0');
  const end = nul === -1 ? value.length : nul;
  if (end === 0) return 0;
  let i = 0;
  while (i < end && isSpace(value.charCodeAt(i))) i++;
  const from = i;
  let negative = false;
  const sign = value.charCodeAt(i);
  if (sign === 0x2b || sign === 0x2d) {
    negative = sign === 0x2d;
    i++;
  }
  const word = value.slice(i, Math.min(end, i + 8)).toLowerCase();
  if (word.startsWith('inf')) {
    const n = word === 'infinity' ? 8 : 3;
    if (i + n !== end) return null;
    return negative ? -Infinity : Infinity;
  }
  if (word.startsWith('nan')) return null;
  const c0 = value.charCodeAt(i);
  const x = value.charCodeAt(i + 1) | 0x20;
  if (c0 === 0x30 && x === 0x78 && i + 2 < end) {
    const hex = hexFloat(value, i + 2, end);
    // NaN: hex digits, then something strtod leaves (or an out-of-range value).
    if (hex !== null) return Number.isNaN(hex) ? null : negative ? -hex : hex;
  }
  let digits = 0;
  let nonZero = false;
  while (i < end && isDigit(value.charCodeAt(i))) {
    if (value.charCodeAt(i) !== 0x30) nonZero = true;
    i++;
    digits++;
  }
  if (i < end && value.charCodeAt(i) === 0x2e) {
    i++;
    while (i < end && isDigit(value.charCodeAt(i))) {
      if (value.charCodeAt(i) !== 0x30) nonZero = true;
      i++;
      digits++;
    }
  }
  // No digits: no conversion, strtod points back at the start (not its end).
  if (digits === 0) return null;
  if (i < end && (value.charCodeAt(i) | 0x20) === 0x65) {
    let j = i + 1;
    const s = value.charCodeAt(j);
    if (s === 0x2b || s === 0x2d) j++;
    if (j < end && isDigit(value.charCodeAt(j))) {
      while (j < end && isDigit(value.charCodeAt(j))) j++;
      i = j;
    }
  }
  if (i !== end) return null;
  const v = Number(value.slice(from, end));
  if (!Number.isFinite(v)) return null;
  if (v === 0 ? nonZero : Math.abs(v) < MIN_NORMAL) return null;
  return v;
}

const MIN_NORMAL = 2.2250738585072014e-308;

/** The digits after `0x` up to `end` (hex mantissa, optional `.`, optional `p` exponent), or null. */
function hexFloat(s: string, from: number, end: number): number | null {
  let i = from;
  let mantissa = 0;
  let digits = 0;
  let fraction = 0;
  let dot = false;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e && !dot) {
      dot = true;
      continue;
    }
    const d = hexDigit(c);
    if (d < 0) break;
    mantissa = mantissa * 16 + d;
    digits++;
    if (dot) fraction++;
  }
  if (digits === 0) return null;
  let exponent = 0;
  if (i < end && (s.charCodeAt(i) | 0x20) === 0x70) {
    let j = i + 1;
    let neg = false;
    const sign = s.charCodeAt(j);
    if (sign === 0x2b || sign === 0x2d) {
      neg = sign === 0x2d;
      j++;
    }
    if (j < end && isDigit(s.charCodeAt(j))) {
      let e = 0;
      while (j < end && isDigit(s.charCodeAt(j))) {
        e = Math.min(e * 10 + s.charCodeAt(j) - 0x30, 100000);
        j++;
      }
      exponent = neg ? -e : e;
      i = j;
    }
  }
  if (i !== end) return Number.NaN;
  const v = mantissa * 2 ** (exponent - 4 * fraction);
  if (!Number.isFinite(v) || (v === 0 && mantissa !== 0)) return Number.NaN;
  return v;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -1;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** C's isspace in the C locale. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
