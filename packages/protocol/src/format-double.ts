/** 2^62: double2ll()'s bound, LLONG_MAX / 2 as a double. */
const LL_SAFE = 2 ** 62;

/**
 * A double as Redis 7.2+ writes it in replies (d2string() in src/util.c):
 * `nan`, `inf`, `-inf`, `0`, `-0`; an integral value within 2^62 as an
 * integer; anything else as fpconv_dtoa() prints the shortest digits that
 * read back to the same double: plainly when the decimal exponent is small
 * (`0.001`, `123.5`, `1e+30` only past 7 extra zeros), otherwise as `d.ddde+X`
 * with no padding in the exponent.
 *
 * The digits are JavaScript's shortest round-trip digits; fpconv uses Grisu2,
 * which on rare values prints one digit more, so those few can differ.
 */
export function formatDouble(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Number.POSITIVE_INFINITY) return 'inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  if (Number.isInteger(value) && value >= -LL_SAFE && value <= LL_SAFE) {
    // Past 2^53 only BigInt prints every digit, as ll2string does.
    return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
  }

  const negative = value < 0;
  const [mantissa = '', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const ndigits = digits.length;
  const decimalExponent = Number(exponent);
  // fpconv's K: the value is digits x 10^K.
  const k = decimalExponent - (ndigits - 1);
  const exp = Math.abs(decimalExponent);
  const sign = negative ? '-' : '';

  if (k >= 0 && exp < ndigits + 7) return sign + digits + '0'.repeat(k);
  if (k < 0 && (k > -7 || exp < 4)) {
    const offset = ndigits + k;
    if (offset <= 0) return `${sign}0.${'0'.repeat(-offset)}${digits}`;
    return `${sign}${digits.slice(0, offset)}.${digits.slice(offset)}`;
  }
  const fraction = ndigits > 1 ? `.${digits.slice(1)}` : '';
  return `${sign}${digits[0]}${fraction}e${decimalExponent < 0 ? '-' : '+'}${exp}`;
}
