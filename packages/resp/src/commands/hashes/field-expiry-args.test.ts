import { describe, expect, it } from 'vitest';
import {
  MAX_FIELD_EXPIRE_MS,
  NUMFIELDS_EXPIRE,
  NUMFIELDS_POSITIVE,
  parseExpireTime,
  parseFieldsBlock,
} from './field-expiry-args.js';

const argv = (...a: string[]) => a.map((s) => Buffer.from(s));

describe('parseExpireTime (Redis 8 parseExpireTime)', () => {
  it('turns seconds and relative times into absolute ms', () => {
    expect(parseExpireTime(Buffer.from('10'), 'seconds', 1000, 'hexpire')).toBe(11_000);
    expect(parseExpireTime(Buffer.from('10'), 'ms', 1000, 'hpexpire')).toBe(1010);
    expect(parseExpireTime(Buffer.from('0'), 'ms', 0, 'hpexpireat')).toBe(0);
  });

  it('refuses negative times, then times past 2^46 - 1 ms (after adding the base)', () => {
    expect(() => parseExpireTime(Buffer.from('-1'), 'ms', 0, 'x')).toThrow(
      'ERR invalid expire time, must be >= 0',
    );
    expect(() => parseExpireTime(Buffer.from('1.5'), 'ms', 0, 'x')).toThrow(
      'ERR value is not an integer or out of range',
    );
    expect(parseExpireTime(Buffer.from(String(MAX_FIELD_EXPIRE_MS)), 'ms', 0, 'x')).toBe(
      MAX_FIELD_EXPIRE_MS,
    );
    expect(() =>
      parseExpireTime(Buffer.from(String(MAX_FIELD_EXPIRE_MS)), 'ms', 1, 'hpexpire'),
    ).toThrow("ERR invalid expire time in 'hpexpire' command");
    expect(() => parseExpireTime(Buffer.from('70368744178'), 'seconds', 0, 'hexpire')).toThrow(
      "ERR invalid expire time in 'hexpire' command",
    );
    expect(parseExpireTime(Buffer.from('70368744177'), 'seconds', 0, 'hexpire')).toBe(
      70368744177000,
    );
  });
});

describe('parseFieldsBlock', () => {
  it('finds the first field after FIELDS n when n counts the rest exactly', () => {
    expect(
      parseFieldsBlock(argv('httl', 'k', 'fields', '2', 'a', 'b'), 2, NUMFIELDS_POSITIVE),
    ).toBe(4);
  });

  it("refuses a missing FIELDS, a count under 1, a count that does not fit, in Redis's words", () => {
    expect(() =>
      parseFieldsBlock(argv('httl', 'k', 'FIELD', '1', 'a'), 2, NUMFIELDS_POSITIVE),
    ).toThrow('ERR Mandatory argument FIELDS is missing or not at the right position');
    expect(() => parseFieldsBlock(argv('x', 'k', 'FIELDS', '0', 'a'), 2, NUMFIELDS_EXPIRE)).toThrow(
      'ERR Parameter `numFields` should be greater than 0',
    );
    expect(() =>
      parseFieldsBlock(argv('x', 'k', 'FIELDS', 'z', 'a'), 2, NUMFIELDS_POSITIVE),
    ).toThrow('ERR Number of fields must be a positive integer');
    expect(() =>
      parseFieldsBlock(argv('x', 'k', 'FIELDS', '2', 'a'), 2, NUMFIELDS_POSITIVE),
    ).toThrow('ERR The `numfields` parameter must match the number of arguments');
  });
});
