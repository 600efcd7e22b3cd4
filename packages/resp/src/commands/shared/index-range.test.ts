import { describe, expect, test } from 'vitest';
import { indexAt, indexWindow } from './index-range.js';

describe('indexAt (LINDEX, LSET)', () => {
  test('negative indices count from the end', () => {
    expect(indexAt(5, 0)).toBe(0);
    expect(indexAt(5, 4)).toBe(4);
    expect(indexAt(5, -1)).toBe(4);
    expect(indexAt(5, -5)).toBe(0);
  });
  test('outside the list is -1', () => {
    expect(indexAt(5, 5)).toBe(-1);
    expect(indexAt(5, -6)).toBe(-1);
    expect(indexAt(0, 0)).toBe(-1);
    expect(indexAt(0, -1)).toBe(-1);
  });
});

describe('indexWindow (LRANGE, LTRIM, ZRANGE, ZREMRANGEBYRANK)', () => {
  test('negative bounds count from the end; the end is clamped', () => {
    expect(indexWindow(5, 0, -1)).toEqual([0, 4]);
    expect(indexWindow(5, -3, -2)).toEqual([2, 3]);
    expect(indexWindow(5, -100, 100)).toEqual([0, 4]);
    expect(indexWindow(5, 3, 3)).toEqual([3, 3]);
  });
  test('a window that crosses or starts past the end is empty', () => {
    expect(indexWindow(5, 3, 1)).toBeNull();
    expect(indexWindow(5, 5, 10)).toBeNull();
    expect(indexWindow(5, -1, -2)).toBeNull();
    expect(indexWindow(5, 0, -6)).toBeNull();
    expect(indexWindow(0, 0, -1)).toBeNull();
  });
});
