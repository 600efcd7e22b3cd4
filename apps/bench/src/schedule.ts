import { Prng } from '@strata/io';

/** One call of a scenario's `run`: which variant, which run. */
export interface Step<V> {
  variant: V;
  /** 0-based measured run (round), or -1 for a warm-up round. */
  run: number;
  warmup: boolean;
}

/**
 * The order of the variants within each round (every round runs every
 * variant once, so the ratios pair values from the same round):
 *
 * - `shuffled` (default): a fresh seeded permutation every round, chosen so
 *   that no variant directly follows the same variant in two measured rounds
 *   (counting the previous round's last variant) nor follows itself. An
 *   effect one variant leaves behind for the next (a 4-in-flight pass the
 *   disk behind a VM still feels after a cache drop) hits a different
 *   variant each round, so it lands in at most one run of any variant and
 *   the median over 3 runs drops it.
 * - `alternating`: declaration order, then reversed, by round
 *   (A B C, C B A, A B C, ...; warm-up rounds count). The follower of a
 *   variant takes turns, but with an odd number of runs one direction has the
 *   majority, so the median still leans on it; the last variant of a round
 *   also runs again first in the next.
 * - `fixed`: declaration order every round (A B C, A B C, ...): the same
 *   variant always follows the same one, and carries its effect every run.
 */
export type Order = 'shuffled' | 'alternating' | 'fixed';

export const ORDERS: readonly Order[] = ['shuffled', 'alternating', 'fixed'];
export const DEFAULT_ORDER: Order = 'shuffled';

export interface ScheduleOptions {
  /** Default `shuffled`. */
  order?: Order;
  /** Seed of the `shuffled` order (an unsigned 32-bit integer); default 0. */
  seed?: number;
}

/** Permutations tried per shuffled round before settling for the fewest repeats. */
const SHUFFLE_ATTEMPTS = 1000;

/** Fisher-Yates over `0 .. n-1`. */
function permutation(n: number, random: () => number): number[] {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

/**
 * Rounds of variant indexes, every one a seeded permutation. A round's cost
 * is how many of its transitions (from the previous round's last variant
 * on) repeat one into a measured run of an earlier measured round, or run a
 * variant twice in a row; the first permutation of cost 0 wins, else the
 * cheapest of `SHUFFLE_ATTEMPTS`.
 */
function shuffledRounds(n: number, rounds: number, warmup: number, seed: number): number[][] {
  const prng = new Prng(seed);
  const random = () => prng.next();
  const seen = new Set<number>(); // prev * n + next, for measured `next`
  const out: number[][] = [];
  let prev: number | undefined;
  for (let r = 0; r < rounds; r++) {
    let best: number[] | undefined;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < SHUFFLE_ATTEMPTS && bestCost > 0; attempt++) {
      const p = permutation(n, random);
      let cost = 0;
      let from = prev;
      for (const to of p) {
        if (from !== undefined && (from === to || seen.has(from * n + to))) cost++;
        from = to;
      }
      if (cost < bestCost) {
        best = p;
        bestCost = cost;
      }
      if (n < 2) break; // one variant: nothing to choose
    }
    if (r >= warmup) {
      let from = prev;
      for (const to of best!) {
        if (from !== undefined) seen.add(from * n + to);
        from = to;
      }
    }
    out.push(best!);
    prev = best!.at(-1);
  }
  return out;
}

/**
 * The order in which variants run: `warmup` rounds, then `runs` measured
 * rounds, each round every variant once, interleaved so that slow drift
 * (thermal, background load, a filling cache) spreads over all variants,
 * in the given `order` (see `Order`) so that what one variant leaves behind
 * for the next does not always land on the same variant.
 */
export function schedule<V>(
  variants: readonly V[],
  runs: number,
  warmup: number,
  options: ScheduleOptions = {},
): Step<V>[] {
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`runs must be >= 1, got ${runs}`);
  if (!Number.isInteger(warmup) || warmup < 0) {
    throw new RangeError(`warmup must be >= 0, got ${warmup}`);
  }
  const order = options.order ?? DEFAULT_ORDER;
  if (!ORDERS.includes(order)) throw new RangeError(`unknown order '${String(order)}'`);
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`seed must be an integer in [0, 2^32), got ${seed}`);
  }

  const n = variants.length;
  const rounds = warmup + runs;
  const forward = Array.from({ length: n }, (_, i) => i);
  const indexes =
    order === 'shuffled'
      ? shuffledRounds(n, rounds, warmup, seed)
      : Array.from({ length: rounds }, (_, r) =>
          order === 'alternating' && r % 2 === 1 ? [...forward].reverse() : forward,
        );

  const steps: Step<V>[] = [];
  indexes.forEach((round, r) => {
    const warm = r < warmup;
    for (const i of round)
      steps.push({ variant: variants[i]!, run: warm ? -1 : r - warmup, warmup: warm });
  });
  return steps;
}
