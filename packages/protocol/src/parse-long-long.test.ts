import { describe, expect, it } from 'vitest';
import { parseLongLong } from './parse-long-long.js';

const parse = (s: string): number => {
  const b = Buffer.from(`#${s}#`, 'latin1');
  return parseLongLong(b, 1, b.length - 1);
};

describe('parseLongLong (Redis string2ll)', () => {
  it('reads plain decimal integers', () => {
    expect(parse('0')).toBe(0);
    expect(parse('1')).toBe(1);
    expect(parse('99')).toBe(99);
    expect(parse('-1')).toBe(-1);
    expect(parse('-99')).toBe(-99);
    expect(parse('2147483647')).toBe(2147483647);
    expect(parse('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  // The cases of Redis's test_string2ll (src/util.c, REDIS_TEST).
  it('rejects what Redis rejects', () => {
    for (const s of ['', '+1', ' 1', '1 ', '01', '-0', '-', '1a', 'a', '0x10', '1.0', '00']) {
      expect(parse(s), JSON.stringify(s)).toBeNaN();
    }
  });

  it('checks the 64-bit range exactly', () => {
    expect(parse('9223372036854775807')).toBe(2 ** 63);
    expect(parse('9223372036854775808')).toBeNaN();
    expect(parse('-9223372036854775808')).toBe(-(2 ** 63));
    expect(parse('-9223372036854775809')).toBeNaN();
    expect(parse('18446744073709551615')).toBeNaN();
    // LONG_STR_SIZE: 21 characters or more are never a number.
    expect(parse('-0000000000000000001')).toBeNaN();
    expect(parse('100000000000000000000')).toBeNaN();
  });
});
