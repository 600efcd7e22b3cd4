/**
 * The scenario contract. A scenario measures one claim: it declares its
 * parameters (full and `--ci` size), its variants, and how to run one
 * variant once. The runner does the rest: warm-up, interleaved runs, page
 * cache drops, statistics, ratios, the table and the JSON report.
 *
 * Write one with `defineScenario({...})` in `scenarios/<name>.ts` and list
 * it in `scenarios/index.ts`.
 */

/** A parameter value as it appears in the JSON report's `params`. */
export type ParamValue = string | number | boolean | readonly number[] | readonly string[];
export type Params = Record<string, ParamValue>;

/** One thing measured side by side with the others, e.g. `fs-64k`. */
export interface Variant {
  /** Unique within the scenario; kebab-case, no `/` (ratios use `a/b`). */
  name: string;
  /** Unit of the number `run` returns, e.g. `MB/s`, `ops/s`, `ms`. */
  unit: string;
  /** Whether a bigger number is better (throughput) or worse (latency). */
  higherIsBetter: boolean;
}

/** What `run` may return instead of a bare number. */
export interface Measurement {
  /** The variant's number for this run, in the variant's unit. */
  value: number;
  /**
   * Extra named numbers seen during this run (peak RSS, p99 latency...).
   * Their median over runs lands in `metrics` as `<variant>.<key>`, and
   * `metrics()` can read every run's value through `results.samples()`.
   */
  samples?: Record<string, number>;
}

/** Given to `setup`, `teardown` and `metrics`. */
export interface ScenarioContext<P extends Params = Params> {
  /** The parameters at the chosen size (full or `--ci`). */
  readonly params: P;
  /** True when running at `--ci` size. */
  readonly ci: boolean;
  /** A fresh temporary directory for this scenario, removed after teardown. */
  readonly dir: string;
  /**
   * Makes the scenario's files cold: by default evicts every file under
   * `dir` from the page cache (fdatasync, then posix_fadvise DONTNEED), with
   * `--drop-caches` drops the whole machine's cache (root on Linux). Resolves
   * true if done, false if the cache stays warm (`--warm`, no GNU dd).
   */
  dropCaches(): Promise<boolean>;
  /** A progress line on stderr. */
  log(message: string): void;
}

/** The scenario context plus the state `setup` returned. */
export interface StateContext<P extends Params = Params, S = unknown> extends ScenarioContext<P> {
  readonly state: S;
}

/** Given to `run`: which run this is. */
export interface RunContext<P extends Params = Params, S = unknown> extends StateContext<P, S> {
  /**
   * 0-based index of the measured run (its round); -1 during warm-up. Within
   * a round the variants run in a shuffled order by default, so a variant
   * must not rely on which variant ran before it.
   */
  readonly run: number;
  readonly warmup: boolean;
}

/** Numbers collected for one variant: `values[i]` is run i's value. */
export interface VariantResult {
  variant: Variant;
  values: number[];
  samples: Record<string, number[]>;
  median: number;
  min: number;
  max: number;
}

/** What `metrics()` sees once every run is done. */
export interface ScenarioResults {
  readonly variants: readonly VariantResult[];
  /** The result of one variant by name; throws on an unknown name. */
  get(name: string): VariantResult;
  /** Shorthand for `get(name).median`. */
  median(name: string): number;
  /** Every run's value of a sample key for a variant (empty if none). */
  samples(name: string, key: string): number[];
}

export interface Scenario<P extends Params = Params, S = unknown> {
  /** kebab-case, as typed on the command line: `strata-bench <name>`. */
  name: string;
  /** One line shown by `strata-bench list`. */
  description: string;
  /** Parameters at full size and at `--ci` size (CI must stay small and quick). */
  params: { full: P; ci: P };
  /** Variants, fixed or derived from the parameters (CI may run fewer). */
  variants: readonly Variant[] | ((params: P) => readonly Variant[]);
  /**
   * Set when the scenario reads from disk: the runner then makes the page
   * cache cold before every run of every variant (`ctx.dropCaches()`: its
   * own files evicted, or the whole cache dropped with `--drop-caches`) and
   * reports what it did as `params.cache` (`evicted`, `dropped` or `warm`).
   */
  readsDisk?: boolean;
  /** Measured runs per variant; defaults to 3 full, 2 at `--ci`. `--runs` overrides. */
  runs?: { full?: number; ci?: number };
  /** Warm-up rounds (every variant once, not recorded); defaults to 1. */
  warmup?: { full?: number; ci?: number };
  /** Once before any run: create data files, open devices... */
  setup?(ctx: ScenarioContext<P>): Promise<S> | S;
  /** Run one variant once and return its number (or a `Measurement`). */
  run(
    variant: Variant,
    ctx: RunContext<P, S>,
  ): Promise<number | Measurement> | number | Measurement;
  /** Once after the last run, even when a run failed. */
  teardown?(ctx: StateContext<P, S>): Promise<void> | void;
  /**
   * Ratios `a/b` between variant names, computed per round (the value of a in
   * round i over the value of b in round i: every round runs every variant
   * once), then median, min and max over the rounds.
   */
  ratios?: readonly string[] | ((params: P) => readonly string[]);
  /**
   * What a ratio should reach, by ratio name (`{ 'strata-get/redis-get': 0.7 }`):
   * a floor when the ratio's first variant is higher-is-better, a ceiling
   * otherwise. Shown in the table and the HTML report beside the ratio; a
   * ratio that misses its target does not fail the run (targets are goals).
   * Every name must be one of the ratios declared at that size.
   */
  targets?: Readonly<Record<string, number>> | ((params: P) => Readonly<Record<string, number>>);
  /** Scenario-level numbers computed at the end, e.g. `best_plain_mbps`. */
  metrics?(
    results: ScenarioResults,
    ctx: StateContext<P, S>,
  ): Promise<Record<string, number>> | Record<string, number>;
}

/**
 * Identity function that infers the parameter and state types, so that
 * `run(variant, ctx)` sees `ctx.params` and `ctx.state` typed.
 */
export function defineScenario<P extends Params, S = undefined>(
  scenario: Scenario<P, S>,
): Scenario<P, S> {
  return scenario;
}

/** A scenario of any parameter and state types, as the registry holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the registry erases each scenario's own types
export type AnyScenario = Scenario<any, any>;

/** Shorthand for a higher-is-better variant. */
export function higher(name: string, unit: string): Variant {
  return { name, unit, higherIsBetter: true };
}

/** Shorthand for a lower-is-better variant. */
export function lower(name: string, unit: string): Variant {
  return { name, unit, higherIsBetter: false };
}
