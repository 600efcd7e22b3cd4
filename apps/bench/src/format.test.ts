import { describe, expect, it } from 'vitest';
import { formatBytes, formatNumber, formatTable } from './format.js';

describe('formatTable', () => {
  it('aligns columns and underlines the header', () => {
    const text = formatTable(
      [
        ['variant', 'median'],
        ['a', '1.5'],
        ['longer-name', '1234'],
      ],
      ['left', 'right'],
    );
    expect(text.split('\n')).toEqual([
      'variant      median',
      '-----------  ------',
      'a               1.5',
      'longer-name    1234',
    ]);
  });

  it('returns an empty string for no rows', () => {
    expect(formatTable([], [])).toBe('');
  });
});

describe('formatNumber', () => {
  it('keeps about four significant digits', () => {
    expect(formatNumber(1834.567)).toBe('1835');
    expect(formatNumber(183.4567)).toBe('183.5');
    expect(formatNumber(18.34567)).toBe('18.35');
    expect(formatNumber(1.834567)).toBe('1.835');
    expect(formatNumber(0.001234)).toBe('0.00123');
    expect(formatNumber(42)).toBe('42');
  });
});

describe('formatBytes', () => {
  it('uses binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(16 * 1024)).toBe('16 KiB');
    expect(formatBytes(8 * 1024 * 1024)).toBe('8 MiB');
    expect(formatBytes(1 << 30)).toBe('1 GiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });
});
