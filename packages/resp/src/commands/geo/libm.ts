/**
 * sin, cos and asin rounded as glibc rounds them (to the nearest double):
 * V8's fdlibm ports are off by one unit in the last place on some inputs,
 * and a GEOSEARCH ... STOREDIST score shows every bit of a distance. The
 * value is evaluated in double-double arithmetic (about 32 digits) and
 * rounded once; the arguments geo passes are within [-4, 4] (half angle
 * differences and latitudes in radians), which is all this handles well.
 *
 * Redis's 17th digit is not always this one. glibc stopped rounding sin
 * and cos correctly in 2.28 and asin in 2.34 (slow paths removed; errors
 * up to ~0.55 ulp), and picks an FMA or a plain build of each at run time
 * by CPU: on glibc 2.36 (Debian 12, x86-64), 300,000 random geo-range
 * arguments give this module and glibc different last bits on 0.04-0.14%
 * of calls (cos least, asin most), and glibc's FMA and non-FMA variants differ on
 * 0.07% (GLIBC_TUNABLES=glibc.cpu.hwcaps=-FMA,-AVX2). A stored distance
 * (five such calls) then differs by 1-4 ulps on ~1% of far points
 * (test/commands/geo-storedist-live.test.ts); the meters and kilometres
 * of nearby points agree. The formula and its order are Redis's: the same
 * C code (geohashGetDistance, then the division by the unit) on glibc
 * gave redis-server 7.0.15's STOREDIST scores for 3389 of 3389 points,
 * and for 3382 with glibc's non-FMA variant forced. Matching bit for bit would mean porting one
 * variant of glibc's dbl-64 s_sin.c and e_asin.c (LGPL, with tables of
 * ~6000 doubles) and would still match only redis-servers on that libm and
 * CPU class, so this stays the correctly rounded value.
 */

/** A double-double: the unevaluated sum hi + lo, |lo| <= ulp(hi) / 2. */
interface DD {
  hi: number;
  lo: number;
}

const SPLITTER = 134217729; // 2^27 + 1: Dekker's split of a double into two 26-bit halves.

/** a * b as a double-double (Dekker's two-product). */
function mulDouble(a: number, b: number, out: DD): DD {
  const p = a * b;
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  out.hi = p;
  out.lo = ah * bh - p + ah * bl + al * bh + al * bl;
  return out;
}

/** x := x * y + c, all double-doubles (one Horner step). */
function mulAdd(x: DD, y: DD, c: DD): void {
  mulDouble(x.hi, y.hi, T);
  const lo = T.lo + (x.hi * y.lo + x.lo * y.hi);
  // (T.hi + lo) + c, renormalised.
  const s = T.hi + c.hi;
  const bb = s - T.hi;
  const e = T.hi - (s - bb) + (c.hi - bb) + lo + c.lo;
  x.hi = s + e;
  x.lo = e - (x.hi - s);
}

const T: DD = { hi: 0, lo: 0 };

/** 1/n! as double-doubles, n = 0..31. */
const INV_FACTORIAL: DD[] = (() => {
  const out: DD[] = [{ hi: 1, lo: 0 }];
  for (let n = 1; n < 32; n++) {
    const prev = out[n - 1]!;
    // prev / n: a first quotient, then the remainder's.
    const q1 = prev.hi / n;
    mulDouble(q1, n, T);
    const r = prev.hi - T.hi - T.lo + prev.lo;
    const q2 = r / n;
    const hi = q1 + q2;
    out.push({ hi, lo: q2 - (hi - q1) });
  }
  return out;
})();

/** The series' coefficients, signs alternating: sin's odd terms, cos's even ones. */
const SIN_COEFFS: DD[] = [];
const COS_COEFFS: DD[] = [];
for (let n = 0; n < 32; n++) {
  const f = INV_FACTORIAL[n]!;
  const sign = (n >> 1) % 2 === 0 ? 1 : -1;
  (n % 2 === 1 ? SIN_COEFFS : COS_COEFFS).push({ hi: sign * f.hi, lo: sign * f.lo });
}
/**
 * The series' length for |r| (at most pi/4 after reduction): enough that
 * the first term left out, r^2n / (2n+1)!, is below 1e-31 of the value.
 * Distances between near places take sines of tiny angles: 5 terms.
 */
function termsFor(r: number): number {
  const a = Math.abs(r);
  return a <= 1e-3 ? 5 : a <= 0.05 ? 8 : a <= 0.3 ? 11 : 14;
}

/** pi/2 in three parts: reduction by up to 3 quadrants stays exact to ~1e-40. */
const PIO2_1 = 1.5707963267948966;
const PIO2_2 = 6.123233995736766e-17;
const PIO2_3 = -1.4973849048591698e-33;

const R: DD = { hi: 0, lo: 0 };
const R2: DD = { hi: 0, lo: 0 };
const ACC: DD = { hi: 0, lo: 0 };

/** r := x - k * pi/2 as a double-double; returns k mod 4. */
function reduce(x: number): number {
  const k = Math.round(x / PIO2_1);
  // k * PIO2_1 is exact for |k| <= 3 but 3: its error goes to the low part.
  mulDouble(k, PIO2_1, T);
  const s = x - T.hi;
  const bb = s - x;
  const e = x - (s - bb) + (-T.hi - bb) - T.lo - k * PIO2_2 - k * PIO2_3;
  R.hi = s + e;
  R.lo = e - (R.hi - s);
  return ((k % 4) + 4) % 4;
}

/** sin (odd) or cos (even) of R by its series, into ACC. */
function series(coeffs: readonly DD[], odd: boolean): void {
  mulDouble(R.hi, R.hi, R2);
  R2.lo += 2 * R.hi * R.lo;
  const terms = termsFor(R.hi);
  const last = coeffs[terms - 1]!;
  ACC.hi = last.hi;
  ACC.lo = last.lo;
  for (let i = terms - 2; i >= 0; i--) mulAdd(ACC, R2, coeffs[i]!);
  if (odd) mulAdd(ACC, R, ZERO);
}

const ZERO: DD = { hi: 0, lo: 0 };

/** sin(x) into ACC as a double-double. */
function sinDD(x: number): void {
  const q = reduce(x);
  series(q % 2 === 0 ? SIN_COEFFS : COS_COEFFS, q % 2 === 0);
  if (q >= 2) {
    ACC.hi = -ACC.hi;
    ACC.lo = -ACC.lo;
  }
}

/** sin(x), rounded to the nearest double. */
export function sin(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return Math.sin(x);
  sinDD(x);
  return ACC.hi + ACC.lo;
}

let lastCosArg = 0;
let lastCos = 1;

/** cos(x), rounded to the nearest double (the last one kept: a search's centre repeats). */
export function cos(x: number): number {
  if (x === lastCosArg) return lastCos;
  lastCos = cosOf(x);
  lastCosArg = x;
  return lastCos;
}

function cosOf(x: number): number {
  if (!Number.isFinite(x)) return Math.cos(x);
  const q = reduce(x);
  series(q % 2 === 0 ? COS_COEFFS : SIN_COEFFS, q % 2 === 1);
  return q === 1 || q === 2 ? -(ACC.hi + ACC.lo) : ACC.hi + ACC.lo;
}

/**
 * asin(y), rounded to the nearest double: one Newton step from V8's value,
 * t + (y - sin t) / cos t, whose error is far below the rounding.
 */
export function asin(y: number): number {
  const t = Math.asin(y);
  if (y === 0 || !Number.isFinite(t) || Math.abs(y) === 1) return t;
  sinDD(t);
  // y - sin t: exact enough as a double (the two agree to ~1 ulp).
  const diff = y - ACC.hi - ACC.lo;
  return t + diff / Math.cos(t);
}
