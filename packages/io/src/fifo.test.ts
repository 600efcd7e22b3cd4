import { describe, expect, it } from 'vitest';
import { Fifo } from './fifo.js';

describe('Fifo', () => {
  it('returns items in insertion order across growth and wrap-around', () => {
    const q = new Fifo<number>(2);
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < (round % 7) + 1; i++) q.push(next++);
      for (let i = 0; i < (round % 5) + 1 && q.length > 0; i++) out.push(q.shift()!);
    }
    while (q.length > 0) out.push(q.shift()!);
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
  });

  it('peeks without removing and is empty-safe', () => {
    const q = new Fifo<string>();
    expect(q.peek()).toBeUndefined();
    expect(q.shift()).toBeUndefined();
    q.push('a');
    q.push('b');
    expect(q.peek()).toBe('a');
    expect(q.length).toBe(2);
    expect(q.shift()).toBe('a');
    expect(q.peek()).toBe('b');
  });
});
