// Shared by the scenario tests: a temp directory per test file and one
// quiet, tiny run of a scenario parsed back from its JSON report.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { reportToJson } from '../src/report.js';
import { runScenario } from '../src/runner.js';
import type { AnyScenario, Params } from '../src/scenario.js';

/** The JSON report as the tests read it. */
export interface ReportJson {
  scenario: string;
  params: Record<string, unknown>;
  machine: { cpus: number; node: string };
  variants: { name: string; unit: string; median: number; min: number; max: number }[];
  ratios: { name: string; median: number; min: number; max: number }[];
  metrics: Record<string, number>;
}

/**
 * Points the scenarios at strata-server built from the current sources by
 * the project's global setup (STRATA_SERVER_CLI): a test runs the code it
 * tests, with or without a `pnpm build` before.
 */
export function useStrataServerFromSources(): void {
  process.env.STRATA_SERVER_CLI = inject('strataServerCli');
}

/** A temp directory made before the file's tests and removed after them. */
export function scenarioTempDir(prefix: string): { readonly path: string } {
  const dir = { path: '' };
  beforeAll(async () => {
    dir.path = await mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir.path, { recursive: true, force: true });
  });
  return dir;
}

/**
 * Runs a scenario quietly in `dir` (default one run, no warm-up) and returns
 * its JSON report. The OS page cache is kept: other suites run beside this one.
 */
export async function runTiny(
  scenario: AnyScenario,
  params: Params,
  dir: string,
  rounds: { runs?: number; warmup?: number } = {},
): Promise<ReportJson> {
  const { report } = await runScenario(scenario, {
    params,
    runs: rounds.runs ?? 1,
    warmup: rounds.warmup ?? 0,
    dir,
    cache: 'warm',
    log: () => {},
  });
  return JSON.parse(reportToJson(report)) as ReportJson;
}
