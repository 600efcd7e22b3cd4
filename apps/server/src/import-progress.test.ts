import { describe, expect, test } from 'vitest';
import {
  BAR_PROGRESS_MS,
  PLAIN_PROGRESS_MS,
  progressText,
  progressWriter,
} from './import-progress.js';

const at = (bytesRead: number, keys: number, ms: number) => ({
  bytesRead,
  totalBytes: 4 * 1024 * 1024,
  keys,
  ms,
});

describe('import progress', () => {
  test('a bar of the share read, the sizes, the keys and their rate', () => {
    expect(progressText(at(1024 * 1024, 5000, 2000), true)).toBe(
      '[########......................]  25%  1mb/4mb  5000 keys  2500 keys/s',
    );
    expect(progressText(at(4 * 1024 * 1024, 9000, 0), false)).toBe(
      'Importing: 100%  4mb/4mb  9000 keys  0 keys/s',
    );
  });

  test('a terminal gets the bar redrawn on one line, ended once; anything else plain lines', () => {
    const tty: string[] = [];
    const bar = progressWriter({ isTTY: true, write: (t) => tty.push(t) });
    expect(bar.intervalMs).toBe(BAR_PROGRESS_MS);
    bar.report(at(0, 0, 1));
    bar.report(at(2 * 1024 * 1024, 10, 1000));
    bar.end();
    bar.end();
    expect(tty.map((t) => t.slice(0, 3))).toEqual(['\r[.', '\r[#', '\n']);
    expect(tty[1]!.endsWith('\x1b[K')).toBe(true);

    const plain: string[] = [];
    const lines = progressWriter({ write: (t) => plain.push(t) });
    expect(lines.intervalMs).toBe(PLAIN_PROGRESS_MS);
    lines.report(at(1024 * 1024, 1, 1000));
    lines.end();
    expect(plain).toEqual(['Importing:  25%  1mb/4mb  1 keys  1 keys/s\n']);
  });
});
