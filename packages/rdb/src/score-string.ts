/**
 * A zset score as Redis 7.0 writes it into a listpack (util.c d2string):
 * integral values below 2^52 as integers, "inf"/"-inf", "-0", else printf's
 * "%.17g".
 */
export function scoreString(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Number.POSITIVE_INFINITY) return 'inf';
  if (v === Number.NEGATIVE_INFINITY) return '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (v > -4503599627370495 && v < 4503599627370496 && Number.isInteger(v)) return String(v);
  return formatG17(v);
}

/** printf("%.17g"). */
function formatG17(v: number): string {
  const [mant, expText] = v.toExponential(16).split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 17) {
    const m = mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant;
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${m}e${sign}${digits}`;
  }
  const fixed = v.toFixed(16 - exp);
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}
