import { describe, expect, test } from 'vitest';
import { describeSize, formatSize, parseSize } from './memory-size.js';

describe('parseSize', () => {
  test.each([
    ['0', 0],
    ['4096', 4096],
    ['100b', 100],
    ['1k', 1000],
    ['1kb', 1024],
    ['512kb', 512 * 1024],
    ['2m', 2_000_000],
    ['64mb', 64 * 1024 * 1024],
    ['1g', 1e9],
    ['1gb', 1024 ** 3],
    ['64MB', 64 * 1024 * 1024],
    ['1Gb', 1024 ** 3],
    ['3KB', 3072],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  test.each([
    '',
    'mb',
    '-1',
    '-1mb',
    '1.5gb',
    '1 mb',
    ' 1mb',
    '1tb',
    '1mib',
    '0x10',
    '1e6',
    '99999999999gb',
  ])('%j is not a size', (text) => {
    expect(parseSize(text)).toBeNull();
  });
});

test('formatSize picks the largest exact unit', () => {
  expect(formatSize(64 * 1024 * 1024)).toBe('64mb');
  expect(formatSize(1024 ** 3)).toBe('1gb');
  expect(formatSize(1536 * 1024 * 1024)).toBe('1536mb');
  expect(formatSize(16 * 1024)).toBe('16kb');
  expect(formatSize(64_000_000)).toBe('64m');
  expect(formatSize(2_000_000_000)).toBe('2g');
  expect(formatSize(1000)).toBe('1k');
  expect(formatSize(1001)).toBe('1001');
  expect(formatSize(0)).toBe('0');
  for (const s of ['64mb', '16kb', '1gb', '3k', '5m', '1001'])
    expect(formatSize(parseSize(s)!)).toBe(s);
});

test('describeSize rounds for logs', () => {
  expect(describeSize(100)).toBe('100b');
  expect(describeSize(1536)).toBe('1.5kb');
  expect(describeSize(1024 ** 2 * 1.234)).toBe('1.23mb');
  expect(describeSize(5 * 1024 ** 3)).toBe('5gb');
});
