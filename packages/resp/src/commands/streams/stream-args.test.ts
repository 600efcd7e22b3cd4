import { MAX_STREAM_ID, MIN_STREAM_ID, streamId, streamIdBig } from '@strata/collections';
import { describe, expect, test } from 'vitest';
import { idOrNull, RANGE_START, STRICT } from './stream-args.js';

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
