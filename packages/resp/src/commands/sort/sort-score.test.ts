import { describe, expect, test } from 'vitest';
import { getPattern, hasStar, keyPattern, patternKey } from './sort-pattern.js';
import { sortScore } from './sort-score.js';

describe('sortScore reads a weight as glibc strtod and Redis 7.0 do', () => {
  // What glibc 2.36's strtod gives (value, errno, rest), and Redis's verdict.
  test.each([
    ['1e-310', null], // subnormal, inexact: ERANGE
    ['2.2250738585072014e-308', 2.2250738585072014e-308],
    ['2.225073858507201e-308', null],
    ['1e-400', null], // underflow to 0: ERANGE
    ['0e-400', 0],
    ['1e400', null],
    ['0x1p-1074', 5e-324], // exact: no ERANGE
    ['0x', null], // "0", "x" left
    [' 5', 5],
    ['5 ', null],
    ['', 0], // no conversion, nothing left
    ['  ', null], // no conversion: strtod points back at the spaces
    ['inf', Infinity],
    ['-Infinity', -Infinity],
    ['infin', null],
    ['nan', null],
    ['1e', null],
    ['1e+', null],
    ['.5', 0.5],
    ['.', null],
    ['+.e1', null],
    ['0x1.8p1', 3],
    ['0x.8', 0.5],
    ['-0x10', -16],
    ['1_0', null],
    ['3\u0000x', 3], // a C string ends at the NUL
    ['\u00001', 0],
    ['01', 1],
    ['-0', -0],
    ['1.5E+2', 150],
  ])('%j', (text, want) => {
    expect(sortScore(text)).toBe(want);
  });
});

describe('BY and GET patterns as lookupKeyByPattern reads them', () => {
  const b = (s: string) => Buffer.from(s, 'latin1');
  test('the first * takes the element, -> after it names a field', () => {
    expect(keyPattern(b('w_*'))).toEqual({ kind: 'key', prefix: 'w_', suffix: '', field: null });
    expect(keyPattern(b('h_*_x->f->g'))).toEqual({
      kind: 'key',
      prefix: 'h_',
      suffix: '_x',
      field: 'f->g',
    });
    // `->` with no field after it, or before the *, is part of the key.
    expect(keyPattern(b('w_*->'))).toEqual({
      kind: 'key',
      prefix: 'w_',
      suffix: '->',
      field: null,
    });
    expect(keyPattern(b('a->*'))).toEqual({ kind: 'key', prefix: 'a->', suffix: '', field: null });
    expect(patternKey(keyPattern(b('p*s*')), 'E').toString('latin1')).toBe('pEs*');
  });
  test('# is the element, a pattern with no * before a NUL names nothing', () => {
    expect(getPattern(b('#'))).toEqual({ kind: 'self' });
    expect(getPattern(b('#\u0000x'))).toEqual({ kind: 'self' });
    expect(getPattern(b('##'))).toEqual({ kind: 'none' });
    expect(hasStar(b('nosort'))).toBe(false);
    expect(hasStar(b('a\u0000*'))).toBe(false);
    expect(hasStar(b('a*\u0000'))).toBe(true);
  });
});
