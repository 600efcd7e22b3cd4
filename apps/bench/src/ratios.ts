import { type Summary, summarize } from './stats.js';

/** A ratio between two variants, as in the JSON report. */
export interface RatioResult extends Summary {
  /** `a/b`, the variant names. */
  name: string;
  /** The per-round ratios the summary is of, round by round. */
  values: number[];
}

/** Splits `a/b` into its two variant names; throws on a malformed name. */
export function parseRatio(name: string): { a: string; b: string } {
  const parts = name.split('/');
  const [a, b] = parts;
  if (parts.length !== 2 || !a || !b) {
    throw new Error(`ratio '${name}' must be 'a/b' with two variant names`);
  }
  return { a, b };
}

/**
 * Computes each ratio run by run (a's value in run i over b's value in run
 * i: two numbers measured side by side), then summarizes over the runs.
 * `values` maps a variant name to its per-run values.
 */
export function computeRatios(
  names: readonly string[],
  values: ReadonlyMap<string, readonly number[]>,
): RatioResult[] {
  return names.map((name) => {
    const { a, b } = parseRatio(name);
    const va = values.get(a);
    const vb = values.get(b);
    if (!va) throw new Error(`ratio '${name}': unknown variant '${a}'`);
    if (!vb) throw new Error(`ratio '${name}': unknown variant '${b}'`);
    const runs = Math.min(va.length, vb.length);
    const perRun: number[] = [];
    for (let i = 0; i < runs; i++) perRun.push(va[i]! / vb[i]!);
    return { name, ...summarize(perRun), values: perRun };
  });
}
