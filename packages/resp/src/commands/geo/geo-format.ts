/**
 * Numbers as Redis's geo.c prints them: C's `%.Nf` of a double (the exact
 * binary value rounded half to even, as glibc does), and ld2string's
 * LD_STR_HUMAN (`%.17Lf` with trailing zeros dropped) for coordinates.
 */

/**
 * `%.{digits}f` of `x`. toFixed rounds the exact value too, but half up: it
 * differs from glibc only on an exact tie, which needs x * 2^(digits+1) to
 * be an integer; those (and values past toFixed's range) take the exact
 * path.
 */
export function formatFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x < 0 ? '-inf' : 'inf';
  const negative = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let body: string;
  if (a < 1e21 && !Number.isInteger(a * 2 ** (digits + 1))) body = a.toFixed(digits);
  else body = exactFixed(a, digits);
  return negative ? `-${body}` : body;
}

/** The exact decimal of a finite double >= 0, rounded half to even at `digits` places. */
function exactFixed(a: number, digits: number): string {
  // a = m * 2^e with m an integer.
  let e = 0;
  let m = a;
  while (!Number.isInteger(m)) {
    m *= 2;
    e--;
  }
  const scale = 10n ** BigInt(digits);
  let q: bigint;
  if (e >= 0) q = BigInt(m) * scale;
  else {
    const n = BigInt(m) * scale;
    const div = 1n << BigInt(-e);
    q = n / div;
    const twice = (n % div) * 2n;
    if (twice > div || (twice === div && (q & 1n) === 1n)) q += 1n;
  }
  const s = q.toString().padStart(digits + 1, '0');
  if (digits === 0) return s;
  return `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
}

/** ld2string(LD_STR_HUMAN) of a double: `%.17Lf`, trailing zeros (and a bare point) dropped, `-0` as `0`. */
export function formatHuman(x: number): string {
  let s = formatFixed(x, 17);
  if (s.includes('.')) {
    let end = s.length;
    while (s.charCodeAt(end - 1) === 0x30) end--;
    if (s.charCodeAt(end - 1) === 0x2e) end--;
    s = s.slice(0, end);
  }
  return s === '-0' ? '0' : s;
}
