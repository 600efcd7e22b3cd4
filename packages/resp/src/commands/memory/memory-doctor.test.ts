import { describe, expect, test } from 'vitest';
import { doctorReport } from './memory-doctor.js';
import type { MemoryOverhead } from './memory-facts.js';
import { formatG17 } from './memory-stats.js';

const MB = 1024 * 1024;
const facts = (o: Partial<MemoryOverhead>): MemoryOverhead => ({
  used: 20 * MB,
  rss: 60 * MB,
  peak: 20 * MB,
  cached: 0,
  budget: 0,
  keys: 10,
  keysByDb: new Map([[0, 10]]),
  ...o,
});

describe('MEMORY DOCTOR report', () => {
  test('no keys, or under 5 MB: the empty-instance text', () => {
    expect(doctorReport(facts({ keys: 0 }))).toMatch(/^Hi Sam, this instance is empty/);
    expect(doctorReport(facts({ used: 4 * MB, peak: 4 * MB }))).toMatch(/is empty or is using/);
  });

  test('keys and a steady heap: no issue', () => {
    expect(doctorReport(facts({}))).toBe(
      "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n",
    );
  });

  test('a peak over 150% of what is used: the peak issue, framed as Redis frames it', () => {
    const r = doctorReport(facts({ peak: 31 * MB }));
    expect(
      r.startsWith(
        'Sam, I detected a few issues in this Redis instance memory implants:\n\n * Peak memory:',
      ),
    ).toBe(true);
    expect(r.endsWith("I'm here to keep you safe, Sam. I want to help you.\n")).toBe(true);
  });
});

describe("MEMORY STATS doubles, Redis 7.0's %.17g", () => {
  test('of C floats, trailing zeros dropped', () => {
    expect(formatG17(Math.fround(99.83196258544922))).toBe('99.831962585449219');
    expect(formatG17(100)).toBe('100');
    expect(formatG17(0)).toBe('0');
    expect(formatG17(Math.fround(1.5))).toBe('1.5');
  });
});
