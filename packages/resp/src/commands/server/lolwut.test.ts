import { describe, expect, test } from 'vitest';
import { lolwutText } from './lolwut.js';
import { SERVER_VERSION } from './server-info.js';

/** ESC[<colors>m, a space, ESC[0m. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escapes LOLWUT 6 prints
const GRAY_CELL = /\x1b\[0;\d+;\d+m \x1b\[0m/g;
const args = (...a: string[]) => ['lolwut', ...a].map((s) => Buffer.from(s));
/** A fixed rand() sequence, so the random parts are reproducible here. */
function seq(values: readonly number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

describe('LOLWUT', () => {
  test('no version, another version or no VERSION keyword: the version line only', () => {
    const line = `Redis ver. ${SERVER_VERSION}\n`;
    expect(lolwutText(args())).toBe(line);
    expect(lolwutText(args('version', '7'))).toBe(line);
    expect(lolwutText(args('version', '55'))).toBe(line);
    expect(lolwutText(args('5', '1', '1'))).toBe(line);
    expect(lolwutText(args('version'))).toBe(line);
  });

  test('VERSION is taken modulo 2^32 as Redis formats it (%u)', () => {
    expect(lolwutText(args('version', '4294967301', '1', '1', '1'))).toContain('schotter');
  });

  test('a refused number names no picture', () => {
    expect(() => lolwutText(args('version', 'x'))).toThrow('ERR value is not an integer');
    expect(() => lolwutText(args('version', '5', '1', 'z'))).toThrow('ERR value is not an integer');
  });

  test('VERSION 5 draws one braille row per 4 pixel rows; disorder needs a third row', () => {
    const text = lolwutText(args('version', '5', '10', '2', '2'), seq([0]));
    const rows = text.split('\n\n')[0]!.split('\n');
    // 20 pixels wide (10 columns of 2), 2 squares of 8: 20 pixels tall.
    expect(rows.every((r) => [...r].length === 10)).toBe(true);
    expect(rows.length).toBe(5);
    // Two rows of squares are never turned: any rand gives the same picture.
    expect(lolwutText(args('version', '5', '10', '2', '2'), seq([123456789]))).toBe(text);
    expect(lolwutText(args('version', '5', '10', '2', '3'), seq([1 << 30, 7]))).not.toBe(
      lolwutText(args('version', '5', '10', '2', '3'), seq([0])),
    );
  });

  test('VERSION 6 paints cols x rows cells of four grays, clamped to 1..1000', () => {
    const text = lolwutText(args('version', '6', '7', '3'), seq([5, 11, 2, 9]));
    const picture = text.split('\nDedicated')[0]!.split('\n');
    expect(picture.length).toBe(3);
    for (const row of picture) {
      expect(row.match(GRAY_CELL)?.length).toBe(7);
    }
    const tiny = lolwutText(args('version', '6', '-3', '0'), seq([1]));
    expect(tiny.split('\nDedicated')[0]!.match(GRAY_CELL)?.length).toBe(1);
  });
});
