import { describe, expect, it } from 'vitest';
import { formatDouble } from './format-double.js';

// Expected strings worked out from Redis 7.2's d2string() and
// deps/fpconv/fpconv_dtoa.c (emit_digits): integers within 2^62 as integers,
// plain notation for small exponents, `e+X` / `e-X` otherwise.
const cases: ReadonlyArray<readonly [number, string]> = [
  [0, '0'],
  [-0, '-0'],
  [1, '1'],
  [-1, '-1'],
  [3.14, '3.14'],
  [-2.5, '-2.5'],
  [0.1, '0.1'],
  [1e15, '1000000000000000'],
  [2 ** 62, '4611686018427387904'],
  [-(2 ** 62), '-4611686018427387904'],
  [2 ** 63, '9223372036854776000'],
  [1e20, '1e+20'],
  [1.5e300, '1.5e+300'],
  [1.7976931348623157e308, '1.7976931348623157e+308'],
  [123456789012345680000, '123456789012345680000'],
  [12345678.9, '12345678.9'],
  [0.001, '0.001'],
  [0.000123, '0.000123'],
  [1e-6, '0.000001'],
  [1e-7, '1e-7'],
  [1.23e-5, '1.23e-5'],
  [1.5e-7, '1.5e-7'],
  [5e-324, '5e-324'],
  [Number.POSITIVE_INFINITY, 'inf'],
  [Number.NEGATIVE_INFINITY, '-inf'],
  [Number.NaN, 'nan'],
];

describe('formatDouble (Redis d2string)', () => {
  it('formats as Redis 7.2+ does', () => {
    for (const [value, text] of cases) expect(formatDouble(value), String(value)).toBe(text);
  });

  it('reads back to the same double', () => {
    for (const value of [Math.PI, -Math.E, 1 / 3, 2 / 3e-200, 123.456e100, 9.5e-5, 0.3]) {
      expect(Number(formatDouble(value))).toBe(value);
    }
  });
});
