import { MAX_STREAM_ID, MIN_STREAM_ID, streamId, streamIdBig } from '@strata/collections';
import { describe, expect, test } from 'vitest';
import {
  finishTrim,
  idOrNull,
  parseTrimOption,
  RANGE_START,
  STRICT,
  trimParse,
} from './stream-args.js';

const id = (text: string, rules = STRICT) => idOrNull(Buffer.from(text, 'latin1'), rules);

describe('stream ID arguments', () => {
  test('plain <ms>-<seq>, read from the bytes', () => {
    expect(id('123-45')).toBe(streamId(123, 45));
    expect(id('0-0')).toBe(MIN_STREAM_ID);
    expect(id('999999999999999-999999999999999')).toBe(
      streamId(999_999_999_999_999, 999_999_999_999_999),
    );
  });

  test('what the byte path leaves to the text path reads as Redis reads it', () => {
    // Leading zeros: strtoull takes them.
    expect(id('007-1')).toBe(streamId(7, 1));
    expect(id('1-007')).toBe(streamId(1, 7));
    // Past 15 digits, up to the 64-bit limits.
    expect(id('1234567890123456-1')).toBe(streamId(1_234_567_890_123_456, 1));
    expect(id('18446744073709551615-18446744073709551615')).toBe(MAX_STREAM_ID);
    expect(id('18446744073709551615-0')).toBe(streamIdBig(2n ** 64n - 1n, 0n));
    // A NUL ends the ID, as C's string functions see it.
    expect(id('1-2\0x')).toBe(streamId(1, 2));
    // strtoull skips leading blanks.
    expect(id(' 1-2')).toBe(streamId(1, 2));
    // Only <ms>: its seq by the rules.
    expect(id('12', RANGE_START)).toBe(streamId(12, 0));
  });

  test('not IDs', () => {
    for (const bad of ['18446744073709551616-0', '1-2-3', '1-', '-1', '1-+', 'a-1', '1-a', '']) {
      expect(id(bad), bad).toBeNull();
    }
  });
});

describe('trim options', () => {
  const args = (...a: string[]) => a.map((s) => Buffer.from(s));

  test("each parse starts cleared: one command's options never reach the next", () => {
    const t = trimParse();
    const argv = args('XADD', 'k', 'MAXLEN', '~', '10', 'LIMIT', '5', '*', 'f', 'v');
    expect(parseTrimOption(argv, 2, t)).toBe(5);
    expect(parseTrimOption(argv, 5, t)).toBe(7);
    expect(finishTrim(t)).toEqual({ strategy: 'maxlen', maxLen: 10, approx: true, limit: 5 });
    const next = trimParse();
    expect(next).toEqual({
      strategy: 'none',
      approx: false,
      threshold: null,
      limit: -1,
      limitGiven: false,
    });
    expect(finishTrim(next)).toEqual({ strategy: 'none' });
    const exact = trimParse();
    expect(parseTrimOption(args('XTRIM', 'k', 'MINID', '5-1'), 2, exact)).toBe(4);
    expect(finishTrim(exact)).toEqual({
      strategy: 'minid',
      minId: streamId(5, 1),
      approx: false,
      limit: 0,
    });
  });
});
