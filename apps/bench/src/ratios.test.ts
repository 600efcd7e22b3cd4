import { describe, expect, it } from 'vitest';
import { computeRatios, parseRatio } from './ratios.js';

describe('parseRatio', () => {
  it('splits a/b', () => {
    expect(parseRatio('file-64k/fs-64k')).toEqual({ a: 'file-64k', b: 'fs-64k' });
  });

  it('rejects names without exactly two parts', () => {
    expect(() => parseRatio('a')).toThrow(/a\/b/);
    expect(() => parseRatio('a/b/c')).toThrow(/a\/b/);
    expect(() => parseRatio('/b')).toThrow(/a\/b/);
  });
});

describe('computeRatios', () => {
  it('divides run by run, then takes median, min and max', () => {
    const values = new Map([
      ['a', [10, 30, 20]],
      ['b', [10, 10, 40]],
    ]);
    // per run: 1, 3, 0.5 (not median(a)/median(b) = 20/10 = 2)
    expect(computeRatios(['a/b'], values)).toEqual([
      { name: 'a/b', median: 1, min: 0.5, max: 3, values: [1, 3, 0.5] },
    ]);
  });

  it('keeps the declared order and supports several ratios', () => {
    const values = new Map([
      ['x', [4]],
      ['y', [2]],
    ]);
    expect(computeRatios(['y/x', 'x/y'], values).map((r) => [r.name, r.median])).toEqual([
      ['y/x', 0.5],
      ['x/y', 2],
    ]);
  });

  it('rejects an unknown variant', () => {
    expect(() => computeRatios(['a/zzz'], new Map([['a', [1]]]))).toThrow(/unknown variant 'zzz'/);
  });
});
