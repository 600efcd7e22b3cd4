import { describe, expect, it } from 'vitest';
import { type Step, schedule } from './schedule.js';

const label = (s: { variant: string; run: number }) => `${s.variant}${s.run}`;

/** The steps cut into rounds (warm-up rounds included), as variant lists. */
function rounds(steps: readonly Step<string>[], perRound: number): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < steps.length; i += perRound) {
    out.push(steps.slice(i, i + perRound).map((s) => s.variant));
  }
  return out;
}

/**
 * How often a measured run repeats a transition (previous step -> this
 * step) already seen before a measured run, or follows its own variant.
 */
function repeatedTransitions(steps: readonly Step<string>[]): number {
  const seen = new Set<string>();
  let repeats = 0;
  for (let i = 1; i < steps.length; i++) {
    if (steps[i]!.warmup) continue;
    const pair = `${steps[i - 1]!.variant}>${steps[i]!.variant}`;
    if (steps[i - 1]!.variant === steps[i]!.variant || seen.has(pair)) repeats++;
    seen.add(pair);
  }
  return repeats;
}

// io-seq-read's full-size variants: 5 read sizes x (q1, q2, q4, plain).
const IO_SEQ_READ = ['16k', '64k', '256k', '1m', '8m'].flatMap((s) => [
  `file-${s}-q1`,
  `file-${s}-q2`,
  `file-${s}-q4`,
  `fs-${s}`,
]);

describe('schedule', () => {
  it('fixed: A B C A B C', () => {
    const steps = schedule(['A', 'B', 'C'], 2, 0, { order: 'fixed' });
    expect(steps.map(label)).toEqual(['A0', 'B0', 'C0', 'A1', 'B1', 'C1']);
    expect(steps.every((s) => !s.warmup)).toBe(true);
  });

  it('alternating: A B C, C B A, A B C, warm-up rounds included', () => {
    expect(schedule(['A', 'B', 'C'], 3, 0, { order: 'alternating' }).map(label)).toEqual([
      ...['A0', 'B0', 'C0'],
      ...['C1', 'B1', 'A1'],
      ...['A2', 'B2', 'C2'],
    ]);
    expect(schedule(['A', 'B', 'C'], 2, 1, { order: 'alternating' }).map(label)).toEqual([
      ...['A-1', 'B-1', 'C-1'],
      ...['C0', 'B0', 'A0'],
      ...['A1', 'B1', 'C1'],
    ]);
  });

  it('puts warm-up rounds first, marked and numbered -1', () => {
    for (const order of ['fixed', 'alternating', 'shuffled'] as const) {
      const steps = schedule(['A', 'B'], 2, 1, { order, seed: 3 });
      expect(steps.map((s) => s.run)).toEqual([-1, -1, 0, 0, 1, 1]);
      expect(steps.map((s) => s.warmup)).toEqual([true, true, false, false, false, false]);
    }
  });

  it('shuffles by default: every round runs every variant once, in its own order', () => {
    const variants = IO_SEQ_READ;
    const steps = schedule(variants, 3, 1, { seed: 1 });
    expect(steps).toHaveLength(variants.length * 4);
    const byRound = rounds(steps, variants.length);
    byRound.forEach((round, r) => {
      expect([...round].sort()).toEqual([...variants].sort());
      const slice = steps.slice(r * variants.length, (r + 1) * variants.length);
      expect(slice.every((s) => s.run === r - 1 && s.warmup === r < 1)).toBe(true);
    });
    // Not declaration order, and not one order repeated.
    expect(byRound.some((round) => round.join() === variants.join())).toBe(false);
    expect(new Set(byRound.map((round) => round.join())).size).toBe(4);
  });

  it('replays the same order from the same seed, another from another seed', () => {
    const a = schedule(IO_SEQ_READ, 3, 1, { seed: 42 }).map(label);
    expect(schedule(IO_SEQ_READ, 3, 1, { seed: 42, order: 'shuffled' }).map(label)).toEqual(a);
    expect(schedule(IO_SEQ_READ, 3, 1, { seed: 43 }).map(label)).not.toEqual(a);
  });

  it('shuffled: no variant follows the same variant (or itself) in two measured runs', () => {
    // A fixed order repeats every transition every round, and alternating
    // half of them (and runs a variant twice in a row at each turn).
    expect(repeatedTransitions(schedule(IO_SEQ_READ, 3, 1, { order: 'fixed' }))).toBe(40);
    expect(
      repeatedTransitions(schedule(IO_SEQ_READ, 3, 1, { order: 'alternating' })),
    ).toBeGreaterThan(0);
    for (let seed = 0; seed < 200; seed++) {
      for (const runs of [2, 3, 5]) {
        expect(repeatedTransitions(schedule(IO_SEQ_READ, runs, 1, { seed })), `seed ${seed}`).toBe(
          0,
        );
      }
    }
    // So the variant after file-8m-q4 differs in every measured round.
    const steps = schedule(IO_SEQ_READ, 3, 1, { seed: 7 });
    const followers = steps.flatMap((s, i) =>
      i > 0 && !s.warmup && steps[i - 1]!.variant === 'file-8m-q4' ? [s.variant] : [],
    );
    expect(followers).toHaveLength(3);
    expect(new Set(followers).size).toBe(3);
  });

  it('still gives valid rounds when few variants leave no repeat-free order', () => {
    const steps = schedule(['A', 'B'], 4, 1, { seed: 5 });
    for (const round of rounds(steps, 2)) expect([...round].sort()).toEqual(['A', 'B']);
    expect(schedule(['A'], 3, 1).map(label)).toEqual(['A-1', 'A0', 'A1', 'A2']);
  });

  it('rejects fewer than one run, a negative warm-up, a bad seed or order', () => {
    expect(() => schedule(['A'], 0, 0)).toThrow(RangeError);
    expect(() => schedule(['A'], 1.5, 0)).toThrow(RangeError);
    expect(() => schedule(['A'], 1, -1)).toThrow(RangeError);
    expect(() => schedule(['A'], 1, 0, { seed: -1 })).toThrow(RangeError);
    expect(() => schedule(['A'], 1, 0, { seed: 2 ** 32 })).toThrow(RangeError);
    // biome-ignore lint/suspicious/noExplicitAny: an order a JS caller could pass
    expect(() => schedule(['A'], 1, 0, { order: 'random' as any })).toThrow(/unknown order/);
  });
});
