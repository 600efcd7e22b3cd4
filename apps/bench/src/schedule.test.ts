import { describe, expect, it } from 'vitest';
import { schedule } from './schedule.js';

const label = (s: { variant: string; run: number }) => `${s.variant}${s.run}`;

describe('schedule', () => {
  it('interleaves variants: A B C A B C', () => {
    const steps = schedule(['A', 'B', 'C'], 2, 0);
    expect(steps.map(label)).toEqual(['A0', 'B0', 'C0', 'A1', 'B1', 'C1']);
    expect(steps.every((s) => !s.warmup)).toBe(true);
  });

  it('puts warm-up rounds first, marked and numbered -1', () => {
    const steps = schedule(['A', 'B'], 2, 1);
    expect(steps.map(label)).toEqual(['A-1', 'B-1', 'A0', 'B0', 'A1', 'B1']);
    expect(steps.map((s) => s.warmup)).toEqual([true, true, false, false, false, false]);
  });

  it('rejects fewer than one run or a negative warm-up', () => {
    expect(() => schedule(['A'], 0, 0)).toThrow(RangeError);
    expect(() => schedule(['A'], 1.5, 0)).toThrow(RangeError);
    expect(() => schedule(['A'], 1, -1)).toThrow(RangeError);
  });
});
