import { parseArgs } from 'node:util';
import { StrataError } from '@strata/io';
import type { CacheMode } from './page-cache.js';
import { ORDERS, type Order } from './schedule.js';

export type Command =
  | { kind: 'help' }
  | { kind: 'list' }
  | {
      kind: 'report';
      /** JSON reports, or directories searched (recursively) for them. */
      inputs: string[];
      /** The HTML page to write; default `report.html` in the first input directory. */
      html?: string;
    }
  | {
      kind: 'run';
      /** Scenario names, or `all` for every registered scenario (`--ci` alone). */
      scenarios: string[] | 'all';
      ci: boolean;
      runs?: number;
      warmup?: number;
      /** Order of the variants within each round (default `shuffled`). */
      order?: Order;
      /** Seed of the shuffled order (default random). */
      seed?: number;
      /** Write the JSON report to this file (one scenario only). */
      json?: string;
      /** Write `<out>/<scenario>.json` for every scenario run. */
      out?: string;
      /** Parent directory for data files (default: the OS temp dir). */
      dir?: string;
      /** Before each disk-reading run: evict the bench's files (default), drop the whole cache, or nothing. */
      cache: CacheMode;
    };

/** Codes of strata-bench's own errors: ERR_USAGE, a command-line mistake (UsageError). */
export type BenchErrorCode = 'ERR_USAGE';

/** A command-line mistake: printed with the usage hint, exit code 2. */
export class UsageError extends StrataError<BenchErrorCode> {
  override name = 'UsageError';

  constructor(message: string) {
    super('ERR_USAGE', message);
  }
}

export const USAGE = `strata-bench - Strata's benchmark scenarios

Usage:
  strata-bench list                      list the scenarios
  strata-bench <scenario> [options]      run one scenario at full size
  strata-bench --ci [--out DIR]          run every scenario at CI size
  strata-bench report PATH... [--html FILE]
                                         one HTML page of charts from JSON reports
                                         (files, or directories searched for them)

Options:
  --ci            small sizes and few runs (the whole CI mode stays under 2 minutes)
  --runs N        measured runs per variant (default 3, --ci 2)
  --warmup N      warm-up rounds before measuring (default 1)
  --order ORDER   variant order in each round: shuffled (default), alternating, fixed
  --seed N        seed of the shuffled order (default random; the JSON records it)
  --json FILE     write the JSON report of one scenario to FILE
  --out DIR       write DIR/<scenario>.json for every scenario run
  --dir DIR       where data files go (default: the OS temp dir); removed afterwards
  --drop-caches   drop the whole machine's page cache before each disk-reading
                  run (root on Linux), instead of evicting only the bench's files
  --warm          leave the page cache alone
  --html FILE     (report) the page to write; default PATH/report.html
  -h, --help      this help

Variants run interleaved after the warm-up: every round runs each variant
once, in a fresh seeded shuffle per round by default (B C A, C A B, ...), so
what one variant leaves behind does not always land on the same next one.
The table shows median, min and max per variant and the ratios between
variants, computed round by round. Before every run of a scenario that reads
from disk, the bench evicts its own files from the page cache (fdatasync,
then posix_fadvise DONTNEED through GNU dd; no root needed), or with
--drop-caches drops the whole machine's cache; the output and the JSON
(params.cache: evicted, dropped or warm) say which it did. Progress goes to
stderr, the table to stdout.

Exit codes: 0 ok, 1 a scenario failed, 2 usage error or unknown scenario.
`;

function integer(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`--${name} must be an integer >= ${min}, got '${text}'`);
  }
  return n;
}

/** Parses `strata-bench` arguments (without `node` and the script). */
export function parseCli(argv: readonly string[]): Command {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };

  const [first, ...rest] = positionals;
  if (first === 'report') {
    if (rest.length === 0) throw new UsageError('report needs a directory or JSON file');
    const runOnly = [
      'ci',
      'runs',
      'warmup',
      'order',
      'seed',
      'json',
      'out',
      'dir',
      'warm',
      'drop-caches',
    ];
    const misplaced = runOnly.filter((name) => values[name as keyof typeof values] !== undefined);
    if (misplaced.length > 0) {
      throw new UsageError(`report takes --html, not --${misplaced.join(', --')}`);
    }
    return {
      kind: 'report',
      inputs: rest,
      ...(values.html === undefined ? {} : { html: values.html }),
    };
  }
  if (values.html !== undefined) throw new UsageError('--html is an option of report');
  if (first === 'list') {
    if (rest.length > 0) throw new UsageError(`list takes no arguments, got '${rest.join(' ')}'`);
    return { kind: 'list' };
  }
  if (rest.length > 0) {
    throw new UsageError(`one scenario at a time, got '${positionals.join(' ')}'`);
  }
  const ci = values.ci ?? false;
  if (first === undefined && !ci) {
    throw new UsageError('no scenario given (strata-bench list shows them; --ci runs them all)');
  }
  if (first === undefined && values.json !== undefined) {
    throw new UsageError('--json writes one scenario; use --out DIR with --ci');
  }
  if (values.warm && values['drop-caches']) {
    throw new UsageError('--warm and --drop-caches contradict each other');
  }
  const command: Command = {
    kind: 'run',
    scenarios: first === undefined ? 'all' : [first],
    ci,
    cache: values.warm ? 'warm' : values['drop-caches'] ? 'drop' : 'evict',
  };
  const runs = integer('runs', values.runs, 1);
  const warmup = integer('warmup', values.warmup, 0);
  if (runs !== undefined) command.runs = runs;
  if (warmup !== undefined) command.warmup = warmup;
  if (values.order !== undefined) {
    if (!(ORDERS as readonly string[]).includes(values.order)) {
      throw new UsageError(`--order must be one of ${ORDERS.join(', ')}, got '${values.order}'`);
    }
    command.order = values.order as Order;
  }
  const seed = integer('seed', values.seed, 0);
  if (seed !== undefined) {
    if (seed > 0xffffffff) throw new UsageError(`--seed must be < 2^32, got '${values.seed}'`);
    if (command.order !== undefined && command.order !== 'shuffled') {
      throw new UsageError(`--seed applies to --order shuffled, not '${command.order}'`);
    }
    command.seed = seed;
  }
  if (values.json !== undefined) command.json = values.json;
  if (values.out !== undefined) command.out = values.out;
  if (values.dir !== undefined) command.dir = values.dir;
  return command;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      ci: { type: 'boolean' },
      runs: { type: 'string' },
      warmup: { type: 'string' },
      order: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'string' },
      out: { type: 'string' },
      dir: { type: 'string' },
      warm: { type: 'boolean' },
      'drop-caches': { type: 'boolean' },
      html: { type: 'string' },
    },
  });
}
