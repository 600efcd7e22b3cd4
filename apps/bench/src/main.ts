import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Command, parseCli, USAGE, UsageError } from './args.js';
import { formatTable } from './format.js';
import { renderReport, reportToJson } from './report.js';
import { type LoadedReports, loadReports } from './report-files.js';
import { renderReportPage } from './report-page.js';
import { type RunOptions, runScenario } from './runner.js';
import type { AnyScenario } from './scenario.js';
import { scenarios as registry } from './scenarios/index.js';

export interface MainEnv {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The registry; tests pass their own. */
  scenarios?: readonly AnyScenario[];
  /** Extra runner options (tests inject a fake page-cache drop). */
  runOptions?: Partial<RunOptions>;
}

const processEnv: MainEnv = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

function message(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[], env: MainEnv = processEnv): Promise<number> {
  const all = env.scenarios ?? registry;
  let command: Command;
  try {
    command = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    env.stderr(`strata-bench: ${error.message}\nTry 'strata-bench --help'.\n`);
    return EXIT_USAGE;
  }

  if (command.kind === 'help') {
    env.stdout(USAGE);
    return EXIT_OK;
  }
  if (command.kind === 'list') {
    env.stdout(
      `${formatTable(
        [['scenario', 'description'], ...all.map((s) => [s.name, s.description])],
        ['left', 'left'],
      )}\n`,
    );
    return EXIT_OK;
  }

  if (command.kind === 'report') return writeReportPage(command.inputs, command.html, env);

  let selected: AnyScenario[];
  if (command.scenarios === 'all') {
    selected = [...all];
  } else {
    selected = [];
    for (const name of command.scenarios) {
      const found = all.find((s) => s.name === name);
      if (!found) {
        env.stderr(
          `strata-bench: unknown scenario '${name}'; known: ${all.map((s) => s.name).join(', ')}\n`,
        );
        return EXIT_USAGE;
      }
      selected.push(found);
    }
  }

  const options: RunOptions = {
    ci: command.ci,
    cache: command.cache,
    log: (line) => env.stderr(`${line}\n`),
    ...env.runOptions,
  };
  if (command.runs !== undefined) options.runs = command.runs;
  if (command.warmup !== undefined) options.warmup = command.warmup;
  if (command.order !== undefined) options.order = command.order;
  if (command.seed !== undefined) options.orderSeed = command.seed;
  if (command.dir !== undefined) options.dir = command.dir;

  const failed: string[] = [];
  const started = performance.now();
  for (const scenario of selected) {
    try {
      const { report, notes } = await runScenario(scenario, options);
      env.stdout(`${renderReport(report, { description: scenario.description, notes })}\n`);
      const json = reportToJson(report);
      if (command.json !== undefined) await writeFile(command.json, json);
      if (command.out !== undefined) {
        await mkdir(command.out, { recursive: true });
        await writeFile(path.join(command.out, `${scenario.name}.json`), json);
      }
    } catch (error) {
      failed.push(scenario.name);
      env.stderr(`strata-bench: scenario ${scenario.name} failed: ${message(error)}\n`);
    }
  }
  if (command.scenarios === 'all' || selected.length > 1) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    env.stderr(
      `strata-bench: ${selected.length - failed.length} passed, ${failed.length} failed ` +
        `in ${seconds} s${failed.length > 0 ? ` (failed: ${failed.join(', ')})` : ''}\n`,
    );
  }
  return failed.length > 0 ? EXIT_FAILED : EXIT_OK;
}

/** `strata-bench report PATH... [--html FILE]`: the HTML page of the reports found. */
async function writeReportPage(
  inputs: readonly string[],
  html: string | undefined,
  env: MainEnv,
): Promise<number> {
  let loaded: LoadedReports;
  try {
    loaded = await loadReports(inputs);
  } catch (error) {
    env.stderr(`strata-bench: report: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_USAGE;
  }
  for (const { file, reason } of loaded.skipped) {
    env.stderr(`strata-bench: report: skipped ${file}: not a bench report (${reason})\n`);
  }
  if (loaded.reports.length === 0) {
    env.stderr(`strata-bench: report: no bench reports in ${inputs.join(', ')}\n`);
    return EXIT_FAILED;
  }
  const first = inputs[0]!;
  const file =
    html ??
    path.join((await stat(first)).isDirectory() ? first : path.dirname(first), 'report.html');
  const page = renderReportPage(loaded.reports);
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFile(file, page.html);
  const scenarios = new Set(loaded.reports.map((r) => r.report.scenario)).size;
  env.stdout(
    `wrote ${file}: ${page.charts.length} charts of ${scenarios} scenarios from ` +
      `${loaded.reports.length} reports (${Math.round(page.html.length / 1024)} KiB, self-contained)\n`,
  );
  return EXIT_OK;
}
