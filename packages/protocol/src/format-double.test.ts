import { describe, expect, it } from 'vitest';
import { formatDouble } from './format-double.js';

// Expected strings as redis-server 7.0.15 answers ZSCORE (C's %.17g).
const cases: ReadonlyArray<readonly [number, string]> = [
  [0, '0'],
  [-0, '-0'],
  [1, '1'],
  [-1, '-1'],
  [3.14, '3.1400000000000001'],
  [-2.5, '-2.5'],
  [0.1, '0.10000000000000001'],
  [0.30000000000000004, '0.30000000000000004'],
  [1e15, '1000000000000000'],
  [4503599627370497, '4503599627370497'],
  [2 ** 62, '4.6116860184273879e+18'],
  [-(2 ** 62), '-4.6116860184273879e+18'],
  [1e16, '10000000000000000'],
  [1e17, '1e+17'],
  [1e20, '1e+20'],
  [1.5e300, '1.5000000000000001e+300'],
  [1.7976931348623157e308, '1.7976931348623157e+308'],
  [12345678.9, '12345678.9'],
  [0.001, '0.001'],
  [0.000123, '0.00012300000000000001'],
  [1e-4, '0.0001'],
  [1e-5, '1.0000000000000001e-05'],
  [1e-7, '9.9999999999999995e-08'],
  [1.5e-7, '1.4999999999999999e-07'],
  [5e-324, '4.9406564584124654e-324'],
  [56.4412578701582, '56.441257870158204'],
  [188.4903860223765, '188.4903860223765'],
  [Number.POSITIVE_INFINITY, 'inf'],
  [Number.NEGATIVE_INFINITY, '-inf'],
  [Number.NaN, 'nan'],
];

describe('formatDouble (Redis 7.0 addReplyDouble, %.17g)', () => {
  it('formats as Redis 7.0 does', () => {
    for (const [value, text] of cases) expect(formatDouble(value), String(value)).toBe(text);
  });

  it('reads back to the same double', () => {
    for (const value of [Math.PI, -Math.E, 1 / 3, 2 / 3e-200, 123.456e100, 9.5e-5, 0.3]) {
      expect(Number(formatDouble(value))).toBe(value);
    }
  });
});
