import { describe, expect, it } from 'vitest';
import { splitInlineArgs } from './inline-args.js';

function split(line: string, copy = false): string[] | null {
  const buf = Buffer.from(line, 'latin1');
  const args = splitInlineArgs(buf, 0, buf.length, copy);
  return args === null ? null : args.map((a) => a.toString('latin1'));
}

describe('splitInlineArgs (Redis sdssplitargs)', () => {
  it('splits on blanks and skips leading, trailing and repeated ones', () => {
    expect(split('SET key value')).toEqual(['SET', 'key', 'value']);
    expect(split('  \t PING \t ')).toEqual(['PING']);
    expect(split('')).toEqual([]);
    expect(split(' \t\v\f ')).toEqual([]);
  });

  it('ends a bare token only at space, \\t, \\n, \\r, as sdssplitargs does', () => {
    expect(split('a\vb c')).toEqual(['a\vb', 'c']);
    expect(split('a\fb')).toEqual(['a\fb']);
    expect(split('a\rb')).toEqual(['a', 'b']);
  });

  it('reads double quotes with escapes', () => {
    expect(split('SET k "a b"')).toEqual(['SET', 'k', 'a b']);
    expect(split('"\\n\\r\\t\\b\\a\\"\\\\\\q"')).toEqual(['\n\r\t\b\x07"\\q']);
    expect(split('"\\x41\\x7a\\xff"')).toEqual(['Az\xff']);
    // \x without two hex digits is an ordinary escape of x.
    expect(split('"\\x4g"')).toEqual(['x4g']);
    expect(split('""')).toEqual(['']);
    expect(split('"" ""')).toEqual(['', '']);
  });

  it("reads single quotes with only \\' as an escape", () => {
    expect(split("'a b' 'it\\'s' '\\n'")).toEqual(['a b', "it's", '\\n']);
  });

  it('lets a quote open in the middle of a token', () => {
    expect(split('a"b c"')).toEqual(['ab c']);
    expect(split("x'y z'")).toEqual(['xy z']);
  });

  it('reports unbalanced quotes', () => {
    for (const line of ['"a', "'a", '"a"x', "'a'x", '"a\\"', "'a\\'", '"\\', 'ok "unterminated']) {
      expect(split(line), line).toBeNull();
    }
  });

  it('returns views for bare tokens unless asked to copy', () => {
    const line = Buffer.from('GET key');
    const views = splitInlineArgs(line, 0, line.length, false)!;
    const copies = splitInlineArgs(line, 0, line.length, true)!;
    line[4] = 0x4b;
    expect(views[1]!.toString()).toBe('Key');
    expect(copies[1]!.toString()).toBe('key');
  });
});
