import { randomInt } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatNumber } from './format.js';
import { type MachineInfo, machineInfo } from './machine.js';
import {
  type CacheMode,
  type CacheState,
  coldCache,
  DROP_METHOD,
  EVICT_METHOD,
  warmerState,
} from './page-cache.js';
import { computeRatios, parseRatio } from './ratios.js';
import type { BenchReport } from './report.js';
import type {
  AnyScenario,
  Measurement,
  Params,
  RunContext,
  ScenarioContext,
  ScenarioResults,
  StateContext,
  Variant,
  VariantResult,
} from './scenario.js';
import { DEFAULT_ORDER, type Order, schedule } from './schedule.js';
import { benchCommit, type SourceCommit } from './source-commit.js';
import { summarize } from './stats.js';

export const DEFAULT_RUNS = { full: 3, ci: 2 } as const;
export const DEFAULT_WARMUP = { full: 1, ci: 1 } as const;

/** Keys the harness adds to `params` in the report; scenarios must not use them. */
export const RESERVED_PARAMS = ['ci', 'runs', 'warmup', 'cache', 'order', 'orderSeed'] as const;

export interface RunOptions {
  /** Run at `--ci` size. */
  ci?: boolean;
  /** Parameters merged over the chosen size's (tests run scenarios tiny). */
  params?: Params;
  /** Measured runs per variant (overrides the scenario's default). */
  runs?: number;
  /** Warm-up rounds (overrides the scenario's default). */
  warmup?: number;
  /** Order of the variants within each round; default `shuffled` (see `Order`). */
  order?: Order;
  /** Seed of the `shuffled` order; default a random one. Reported as `params.orderSeed`. */
  orderSeed?: number;
  /** Parent of the scenario's temporary directory; default `os.tmpdir()`. */
  dir?: string;
  /**
   * What to do to the page cache before each run of a scenario that reads
   * disk: `evict` its own files (default), `drop` the whole machine's
   * (`--drop-caches`), `warm` nothing (`--warm`).
   */
  cache?: CacheMode;
  /** How to do it; default `coldCache` on the scenario's directory (tests inject a fake). */
  coldCacheImpl?: (mode: CacheMode, dir: string) => Promise<CacheState>;
  /** The commit to record; default asked of git once per process. */
  commit?: SourceCommit | null;
  /** Progress lines; default stderr. */
  log?: (line: string) => void;
  machine?: MachineInfo;
}

export interface RunOutcome {
  report: BenchReport;
  /** Lines worth printing under the header, e.g. that the cache was warm. */
  notes: string[];
}

/** Resolved variants and ratios, checked against each other. */
export function resolveScenario(
  scenario: AnyScenario,
  params: Params,
): { variants: Variant[]; ratios: string[]; targets: Record<string, number> } {
  for (const key of RESERVED_PARAMS) {
    if (key in params) {
      throw new Error(`scenario ${scenario.name}: parameter '${key}' is reserved for the harness`);
    }
  }
  const variants = [
    ...(typeof scenario.variants === 'function' ? scenario.variants(params) : scenario.variants),
  ];
  if (variants.length === 0) throw new Error(`scenario ${scenario.name} declares no variants`);
  const names = new Set<string>();
  for (const v of variants) {
    if (!v.name || v.name.includes('/')) {
      throw new Error(
        `scenario ${scenario.name}: variant name '${v.name}' must be non-empty, no '/'`,
      );
    }
    if (names.has(v.name)) {
      throw new Error(`scenario ${scenario.name}: duplicate variant '${v.name}'`);
    }
    names.add(v.name);
  }
  const ratios = [
    ...(typeof scenario.ratios === 'function' ? scenario.ratios(params) : (scenario.ratios ?? [])),
  ];
  for (const ratio of ratios) {
    const { a, b } = parseRatio(ratio);
    for (const n of [a, b]) {
      if (!names.has(n)) {
        throw new Error(`scenario ${scenario.name}: ratio '${ratio}' names unknown variant '${n}'`);
      }
    }
  }
  const targets = {
    ...(typeof scenario.targets === 'function'
      ? scenario.targets(params)
      : (scenario.targets ?? {})),
  };
  for (const [ratio, target] of Object.entries(targets)) {
    if (!ratios.includes(ratio)) {
      throw new Error(`scenario ${scenario.name}: target for undeclared ratio '${ratio}'`);
    }
    if (!Number.isFinite(target) || target <= 0) {
      throw new Error(`scenario ${scenario.name}: target of '${ratio}' must be > 0, got ${target}`);
    }
  }
  return { variants, ratios, targets };
}

/** The cache notes: what was done to the page cache, and what that means. */
function cacheNotes(mode: CacheMode, state: CacheState): string[] {
  if (state === 'dropped') {
    return [
      `page cache: the whole machine's dropped before every run (--drop-caches: ${DROP_METHOD})`,
    ];
  }
  if (state === 'evicted') {
    return [
      `page cache: the bench's own files evicted before every run (${EVICT_METHOD}); ` +
        `the rest of the machine's cache is kept${
          mode === 'drop'
            ? ' (--drop-caches needs root on Linux)'
            : ' (--drop-caches drops it all, as root)'
        }`,
    ];
  }
  return [
    mode === 'warm'
      ? 'page cache was warm (--warm); disk reads may be flattered'
      : "page cache was warm: evicting the bench's files needs Linux and GNU dd; disk reads may be flattered",
  ];
}

function toMeasurement(result: number | Measurement): Measurement {
  return typeof result === 'number' ? { value: result } : result;
}

function makeResults(variants: readonly VariantResult[]): ScenarioResults {
  const byName = new Map(variants.map((v) => [v.variant.name, v]));
  const get = (name: string): VariantResult => {
    const v = byName.get(name);
    if (!v) throw new Error(`no variant '${name}' in the results`);
    return v;
  };
  return {
    variants,
    get,
    median: (name) => get(name).median,
    samples: (name, key) => get(name).samples[key] ?? [],
  };
}

/**
 * Runs a scenario: setup, warm-up rounds, then `runs` rounds, each running
 * every variant once in the chosen order (default a seeded shuffle per
 * round, see `schedule`), dropping the page cache before every call when the
 * scenario reads from disk; then metrics, teardown, and removal of the
 * temporary directory (also when a run fails). Values are kept by round, so
 * a ratio pairs the two values of each round.
 */
export async function runScenario(
  scenario: AnyScenario,
  options: RunOptions = {},
): Promise<RunOutcome> {
  const ci = options.ci ?? false;
  const size = ci ? 'ci' : 'full';
  const params: Params = { ...scenario.params[size], ...options.params };
  const { variants, ratios, targets } = resolveScenario(scenario, params);
  const timestamp = new Date().toISOString();
  const commit = options.commit !== undefined ? options.commit : await benchCommit();
  const runs = options.runs ?? scenario.runs?.[size] ?? DEFAULT_RUNS[size];
  const warmup = options.warmup ?? scenario.warmup?.[size] ?? DEFAULT_WARMUP[size];
  const order = options.order ?? DEFAULT_ORDER;
  const orderSeed = order === 'shuffled' ? (options.orderSeed ?? randomInt(2 ** 32)) : undefined;
  const steps = schedule(variants, runs, warmup, { order, seed: orderSeed ?? 0 });
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const coldImpl = options.coldCacheImpl ?? coldCache;
  const cacheMode = options.cache ?? 'evict';

  const parent = options.dir ?? os.tmpdir();
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(path.join(parent, `strata-bench-${scenario.name}-`));

  // The warmest state over every drop: a scenario is only as cold as its warmest run.
  let cacheState: CacheState | undefined;
  const dropCaches = async (): Promise<boolean> => {
    const state = await coldImpl(cacheMode, dir);
    cacheState = cacheState === undefined ? state : warmerState(cacheState, state);
    return state !== 'warm';
  };
  const prefix = `[${scenario.name}]`;
  const base: ScenarioContext<Params> = {
    params,
    ci,
    dir,
    dropCaches,
    log: (message) => log(`${prefix} ${message}`),
  };

  const values = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const samples = new Map<string, Record<string, number[]>>(variants.map((v) => [v.name, {}]));
  const started = performance.now();
  let stateCtx: StateContext<Params, unknown> | undefined;

  const measure = async (): Promise<RunOutcome> => {
    log(
      `${prefix} ${size} size, ${variants.length} variants x ${runs} runs` +
        `${warmup > 0 ? ` after ${warmup} warm-up round${warmup > 1 ? 's' : ''}` : ''}, ` +
        `order ${order}${orderSeed === undefined ? '' : ` (seed ${orderSeed})`}`,
    );
    log(`${prefix} setup`);
    const state = scenario.setup ? await scenario.setup(base) : undefined;
    const withState: StateContext<Params, unknown> = { ...base, state };
    stateCtx = withState;

    let index = 0;
    for (const step of steps) {
      index++;
      if (scenario.readsDisk) await dropCaches();
      const ctx: RunContext<Params, unknown> = { ...withState, run: step.run, warmup: step.warmup };
      const m = toMeasurement(await scenario.run(step.variant, ctx));
      if (typeof m.value !== 'number' || !Number.isFinite(m.value)) {
        throw new Error(
          `scenario ${scenario.name}: variant ${step.variant.name} returned ${String(m.value)}, not a finite number`,
        );
      }
      const label = step.warmup ? 'warm-up' : `run ${step.run + 1}/${runs}`;
      log(
        `${prefix} [${index}/${steps.length}] ${label} ${step.variant.name}: ` +
          `${formatNumber(m.value)} ${step.variant.unit}`,
      );
      if (step.warmup) continue;
      // By round: index i of every variant is round i, whatever the order
      // within the round, so ratios pair values measured in the same round.
      values.get(step.variant.name)![step.run] = m.value;
      const bag = samples.get(step.variant.name)!;
      for (const [key, sample] of Object.entries(m.samples ?? {})) {
        const list = bag[key] ?? [];
        list.push(sample); // a key may be missing from some runs: no holes
        bag[key] = list;
      }
    }

    const variantResults: VariantResult[] = variants.map((variant) => {
      const vs = values.get(variant.name)!;
      return { variant, values: vs, samples: samples.get(variant.name)!, ...summarize(vs) };
    });
    const metrics: Record<string, number> = {};
    for (const v of variantResults) {
      for (const [key, list] of Object.entries(v.samples)) {
        metrics[`${v.variant.name}.${key}`] = summarize(list).median;
      }
    }
    if (scenario.metrics) {
      Object.assign(metrics, await scenario.metrics(makeResults(variantResults), withState));
    }

    const cache: CacheState = cacheState ?? 'warm';
    const notes = cacheState === undefined ? [] : cacheNotes(cacheMode, cacheState);
    const byName = new Map(variants.map((v) => [v.name, v]));
    const report: BenchReport = {
      scenario: scenario.name,
      description: scenario.description,
      timestamp,
      commit,
      params: {
        ...params,
        ci,
        runs,
        warmup,
        cache,
        order,
        ...(orderSeed === undefined ? {} : { orderSeed }),
      },
      machine: options.machine ?? machineInfo(),
      variants: variantResults.map((v) => ({
        name: v.variant.name,
        unit: v.variant.unit,
        higherIsBetter: v.variant.higherIsBetter,
        median: v.median,
        min: v.min,
        max: v.max,
        values: [...v.values],
        samples: v.samples,
      })),
      ratios: computeRatios(ratios, values).map((r) => ({
        name: r.name,
        higherIsBetter: byName.get(parseRatio(r.name).a)!.higherIsBetter,
        median: r.median,
        min: r.min,
        max: r.max,
        values: r.values,
        ...(targets[r.name] === undefined ? {} : { target: targets[r.name] }),
      })),
      metrics,
    };
    log(`${prefix} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { report, notes };
  };

  /** Teardown (if setup got through), then remove the temp dir, whatever happened. */
  const cleanUp = async (): Promise<void> => {
    try {
      if (scenario.teardown && stateCtx) await scenario.teardown(stateCtx);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  let outcome: RunOutcome;
  try {
    outcome = await measure();
  } catch (error) {
    // Clean up, but do not let a teardown error hide the run's own failure.
    await cleanUp().catch((teardownError: unknown) =>
      log(`${prefix} teardown failed too: ${String(teardownError)}`),
    );
    throw error;
  }
  await cleanUp();
  return outcome;
}
