import { expect, test } from 'vitest';
import { MemberScores } from './member-scores.js';

test('scores by member through slots, against a Map model, with slots reused and growth', () => {
  const t = new MemberScores();
  const model = new Map<string, number>();
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 50_000; i++) {
    const m = `m${rand(3000)}`;
    const score = rand(1000) / 7;
    const op = rand(3);
    if (op === 0 && !model.has(m)) {
      t.add(m, score);
      model.set(m, score);
    } else if (op === 1) {
      const slot = t.slotOf(m);
      expect(slot >= 0).toBe(model.has(m));
      if (slot >= 0) {
        expect(t.scoreAt(slot)).toBe(model.get(m));
        t.setAt(slot, score);
        model.set(m, score);
      }
    } else {
      expect(t.delete(m)).toBe(model.delete(m));
    }
    expect(t.get(m)).toBe(model.get(m));
  }
  expect(t.size).toBe(model.size);
  for (const [m, s] of model) expect(t.get(m)).toBe(s);
});

test('a score that is not a small integer round-trips exactly', () => {
  const t = new MemberScores(1);
  for (let i = 0; i < 100; i++) t.add(`k${i}`, i + 0.1);
  t.setAt(t.slotOf('k5'), -Infinity);
  expect(t.get('k5')).toBe(-Infinity);
  expect(t.get('k99')).toBe(99.1);
  expect(t.slotOf('nope')).toBe(-1);
  expect(t.get('nope')).toBeUndefined();
});

test('a set trimmed far below its peak keeps every score after its array shrinks', () => {
  const t = new MemberScores();
  for (let i = 0; i < 10_000; i++) t.add(`m${i}`, i * 1.5);
  for (let i = 0; i < 9_990; i++) expect(t.delete(`m${i}`)).toBe(true);
  expect(t.size).toBe(10);
  expect(t.capacity).toBeLessThanOrEqual(64);
  for (let i = 9_990; i < 10_000; i++) expect(t.get(`m${i}`)).toBe(i * 1.5);
  t.add('new', -1);
  expect(t.get('new')).toBe(-1);
  expect(t.get('m9999')).toBe(9999 * 1.5);
});
