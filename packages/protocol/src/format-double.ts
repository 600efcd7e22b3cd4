/**
 * A double as Redis 7.0 writes it in replies and in listpack scores
 * (addReplyDouble() and d2string() in src/networking.c / src/util.c):
 * `inf`, `-inf`, `nan`, `0`, `-0`, and anything else as C's `%.17g` —
 * 17 significant digits, trailing zeros dropped, plain notation for decimal
 * exponents from -4 to 16 and `d.ddde+XX` (at least two exponent digits)
 * outside them. So 0.1 is `0.10000000000000001`, as redis-server 7.0
 * answers ZSCORE; Redis 7.2 switched to the shortest round-trip digits.
 */
export function formatDouble(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Number.POSITIVE_INFINITY) return 'inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  // Every safe integer has at most 16 digits: %.17g prints them all, as String does.
  if (Number.isSafeInteger(value)) return String(value);
  const exponential = value.toExponential(16);
  const e = exponential.indexOf('e');
  const exp = Number(exponential.slice(e + 1));
  if (exp < -4 || exp >= 17) {
    const mantissa = trimZeros(exponential.slice(0, e));
    const digits = String(Math.abs(exp));
    return `${mantissa}e${exp < 0 ? '-' : '+'}${digits.length < 2 ? `0${digits}` : digits}`;
  }
  // toFixed and toExponential both round the exact binary value, as printf does.
  return trimZeros(value.toFixed(16 - exp));
}

/** %g's trailing zeros (and a bare decimal point) dropped. */
function trimZeros(s: string): string {
  if (s.indexOf('.') < 0) return s;
  let end = s.length;
  while (s.charCodeAt(end - 1) === 0x30) end--;
  if (s.charCodeAt(end - 1) === 0x2e) end--;
  return s.slice(0, end);
}
