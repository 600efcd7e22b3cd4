import { describe, expect, it } from 'vitest';
import { median, summarize } from './stats.js';

describe('median', () => {
  it('takes the middle of an odd list, unsorted input', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([7])).toBe(7);
  });

  it('averages the two middle values of an even list', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([10, 20])).toBe(15);
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it('rejects an empty list', () => {
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('returns median, min and max', () => {
    expect(summarize([9, 2, 5, 7, 1])).toEqual({ median: 5, min: 1, max: 9 });
  });

  it('handles a single value and negatives', () => {
    expect(summarize([-2])).toEqual({ median: -2, min: -2, max: -2 });
    expect(summarize([-1, -3])).toEqual({ median: -2, min: -3, max: -1 });
  });

  it('rejects an empty list', () => {
    expect(() => summarize([])).toThrow(RangeError);
  });
});
