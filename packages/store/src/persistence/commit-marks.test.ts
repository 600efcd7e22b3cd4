import { expect, test } from 'vitest';
import { commitDue, type Mark, markAfterCheckpoint } from './commit-marks.js';

const PAGE = 16 << 10;
const mark = (tail: number, writes: number): Mark => ({
  tail,
  writes,
  counters: `${writes}/0/0/0`,
});

test('a checkpoint with no write during it: the mark is its end, and nothing is due after it', () => {
  const after = markAfterCheckpoint(mark(1000, 10), mark(PAGE, 10));
  expect(after).toEqual(mark(PAGE, 10));
  expect(commitDue(after, mark(PAGE, 10), true, PAGE)).toBe(false);
  expect(commitDue(after, mark(PAGE, 10), false, PAGE)).toBe(false);
});

test('writes during a checkpoint are due for a commit point once they add up, with the AOF too', () => {
  // 30 writes of ~200 bytes landed while the checkpoint ran (the load ended there).
  const before = mark(1000, 10);
  const end = mark(1000 + PAGE + 6000, 40);
  const after = markAfterCheckpoint(before, end);
  expect(after.counters).toBe(before.counters);
  expect(after.tail).toBe(1000);
  // With the AOF: the 6000 bytes past the sealed page and the seal itself are past a quarter page.
  expect(commitDue(after, end, true, PAGE)).toBe(true);
  // Without: any change is due.
  expect(commitDue(after, end, false, PAGE)).toBe(true);
});

test('with the AOF, growth under a quarter page is not due; without it, any change is', () => {
  const base = mark(PAGE, 5);
  expect(commitDue(base, mark(PAGE + PAGE / 4 - 1, 6), true, PAGE)).toBe(false);
  expect(commitDue(base, mark(PAGE + PAGE / 4, 6), true, PAGE)).toBe(true);
  expect(commitDue(base, mark(PAGE + 1, 6), false, PAGE)).toBe(true);
  // An in-place update moves only a counter.
  expect(commitDue(base, { ...base, counters: '5/1/0/0' }, false, PAGE)).toBe(true);
  expect(commitDue(undefined, base, true, PAGE)).toBe(true);
});
