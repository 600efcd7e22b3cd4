/**
 * Just enough of C's `long double` (x87 80-bit extended: a 64-bit mantissa)
 * for INCRBYFLOAT to give Redis's digits: Redis adds in long double and
 * prints with `%.17Lf`, so `5.6 + 4500` is `4505.60000000000000009`, not the
 * `4505.6` a double gives. Values are exact binary fractions held in
 * bigints; every operation rounds to 64 bits, to nearest, ties to even, as
 * the FPU does. Slow next to a double, and only INCRBYFLOAT uses it.
 */
export type LongDouble =
  | {
      readonly kind: 'finite';
      readonly negative: boolean;
      readonly mantissa: bigint;
      readonly exponent: number;
    }
  | { readonly kind: 'infinite'; readonly negative: boolean }
  | { readonly kind: 'nan' };

const MANTISSA_BITS = 64;
const TWO_63 = 1n << 63n;
const TWO_64 = 1n << 64n;
/** Largest finite value is just under 2^16384; smallest normal 2^-16382. */
const MAX_EXPONENT = 16384;
const MIN_EXPONENT = -16382;

function zero(negative: boolean): LongDouble {
  return { kind: 'finite', negative, mantissa: 0n, exponent: 0 };
}

const ZERO = zero(false);

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** p/q (p, q > 0) rounded to a 64-bit mantissa times a power of two. */
function fromRatio(negative: boolean, p: bigint, q: bigint): LongDouble {
  if (p === 0n) return zero(negative);
  let e = bitLength(p) - bitLength(q) - MANTISSA_BITS;
  for (;;) {
    const num = e >= 0 ? p : p << BigInt(-e);
    const den = e >= 0 ? q << BigInt(e) : q;
    let m = num / den;
    if (m >= TWO_64) {
      e++;
      continue;
    }
    if (m < TWO_63) {
      e--;
      continue;
    }
    const twice = (num - m * den) * 2n;
    if (twice > den || (twice === den && (m & 1n) === 1n)) m++;
    if (m === TWO_64) {
      m = TWO_63;
      e++;
    }
    if (e + MANTISSA_BITS > MAX_EXPONENT) return { kind: 'infinite', negative };
    if (e + MANTISSA_BITS - 1 < MIN_EXPONENT) return zero(negative);
    return { kind: 'finite', negative, mantissa: m, exponent: e };
  }
}

/** A double, exactly (every double is a long double). */
export function fromNumber(v: number): LongDouble {
  if (Number.isNaN(v)) return { kind: 'nan' };
  if (!Number.isFinite(v)) return { kind: 'infinite', negative: v < 0 };
  if (v === 0) return zero(Object.is(v, -0));
  const negative = v < 0;
  let a = Math.abs(v);
  let e = 0;
  // Scale to an integer below 2^53 exactly (powers of two are exact).
  while (!Number.isInteger(a)) {
    a *= 2;
    e--;
  }
  while (a >= 2 ** 53) {
    a /= 2;
    e++;
  }
  return fromRatio(negative, BigInt(a) << BigInt(Math.max(e, 0)), 1n << BigInt(Math.max(-e, 0)));
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * strtold over a whole string, as Redis's string2ld uses it: null when the
 * string is not a number, has spaces around it, is NaN, or overflows.
 */
export function parseLongDouble(text: string): LongDouble | null {
  if (text.length === 0 || /^\s|\s$/.test(text)) return null;
  const m = DECIMAL.exec(text);
  let v: LongDouble;
  if (m === null || (m[2] === '' && (m[3] ?? '') === '')) {
    // Hex floats, inf, infinity: their double is exact enough (hex floats
    // with more than 53 bits are rare in INCRBYFLOAT).
    const lower = text.toLowerCase().replace(/^[+-]/, '');
    if (lower === 'inf' || lower === 'infinity') {
      return { kind: 'infinite', negative: text.startsWith('-') };
    }
    if (!/^[+-]?0x[0-9a-f]*\.?[0-9a-f]*(p[+-]?\d+)?$/i.test(text)) return null;
    const n = Number(text);
    if (Number.isNaN(n)) return null;
    v = fromNumber(n);
  } else {
    const digits = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '') || '0';
    const exp = Number(m[4] ?? '0') - (m[3] ?? '').length;
    if (Math.abs(exp) > 100_000) {
      if (digits === '0') return ZERO;
      return null;
    }
    const d = BigInt(digits);
    const negative = m[1] === '-';
    v =
      exp >= 0
        ? fromRatio(negative, d * 10n ** BigInt(exp), 1n)
        : fromRatio(negative, d, 10n ** BigInt(-exp));
    // Redis rejects a range error: overflow, or a non-zero number that underflowed.
    if (v.kind === 'finite' && v.mantissa === 0n && d !== 0n) return null;
  }
  if (v.kind === 'infinite') return null;
  return v;
}

export function add(a: LongDouble, b: LongDouble): LongDouble {
  if (a.kind === 'nan' || b.kind === 'nan') return { kind: 'nan' };
  if (a.kind === 'infinite' || b.kind === 'infinite') {
    if (a.kind === 'infinite' && b.kind === 'infinite' && a.negative !== b.negative) {
      return { kind: 'nan' };
    }
    return a.kind === 'infinite' ? a : b;
  }
  if (a.mantissa === 0n) return b.mantissa === 0n ? zero(a.negative && b.negative) : b;
  if (b.mantissa === 0n) return a;
  const e = Math.min(a.exponent, b.exponent);
  const sa = (a.negative ? -a.mantissa : a.mantissa) << BigInt(a.exponent - e);
  const sb = (b.negative ? -b.mantissa : b.mantissa) << BigInt(b.exponent - e);
  const sum = sa + sb;
  if (sum === 0n) return ZERO;
  const r = fromRatio(sum < 0n, sum < 0n ? -sum : sum, 1n);
  if (r.kind !== 'finite') return r;
  const exponent = r.exponent + e;
  if (exponent + MANTISSA_BITS > MAX_EXPONENT) return { kind: 'infinite', negative: r.negative };
  return { ...r, exponent };
}

export function isFiniteLongDouble(v: LongDouble): boolean {
  return v.kind === 'finite';
}

/**
 * Redis's ld2string(LD_STR_HUMAN): `%.17Lf` (the exact binary value rounded
 * to 17 decimals, ties to even), trailing zeros and a trailing point
 * removed, `-0` as `0`.
 */
export function formatHuman(v: LongDouble): string {
  if (v.kind !== 'finite') throw new RangeError('not finite');
  const scale = 10n ** 17n;
  let n: bigint;
  if (v.exponent >= 0) n = (v.mantissa << BigInt(v.exponent)) * scale;
  else {
    const num = v.mantissa * scale;
    const den = 1n << BigInt(-v.exponent);
    n = num / den;
    const twice = (num - n * den) * 2n;
    if (twice > den || (twice === den && (n & 1n) === 1n)) n++;
  }
  let s = n.toString().padStart(18, '0');
  s = `${s.slice(0, -17)}.${s.slice(-17)}`.replace(/0+$/, '').replace(/\.$/, '');
  if (v.negative && s !== '0') s = `-${s}`;
  return s;
}
