/** One call of a scenario's `run`: which variant, which run. */
export interface Step<V> {
  variant: V;
  /** 0-based measured run, or -1 for a warm-up round. */
  run: number;
  warmup: boolean;
}

/**
 * The order in which variants run: `warmup` rounds, then `runs` measured
 * rounds, each round every variant once in declaration order
 * (A B C, A B C, ...), so slow drift (thermal, background load, a filling
 * cache) spreads over all variants instead of favouring one.
 */
export function schedule<V>(variants: readonly V[], runs: number, warmup: number): Step<V>[] {
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`runs must be >= 1, got ${runs}`);
  if (!Number.isInteger(warmup) || warmup < 0) {
    throw new RangeError(`warmup must be >= 0, got ${warmup}`);
  }
  const steps: Step<V>[] = [];
  for (let w = 0; w < warmup; w++) {
    for (const variant of variants) steps.push({ variant, run: -1, warmup: true });
  }
  for (let run = 0; run < runs; run++) {
    for (const variant of variants) steps.push({ variant, run, warmup: false });
  }
  return steps;
}
