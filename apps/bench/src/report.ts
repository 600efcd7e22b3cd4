import { type Align, formatNumber, formatTable } from './format.js';
import type { MachineInfo } from './machine.js';
import type { ParamValue } from './scenario.js';
import type { SourceCommit } from './source-commit.js';

/**
 * The JSON a scenario writes (`--json`, `--out`). Scenarios add keys to
 * `params`, `machine` and `metrics`; they never change this shape.
 */
export interface BenchReport {
  scenario: string;
  /** The scenario's one-line description (`strata-bench list`). */
  description: string;
  /** When the scenario started, ISO 8601 UTC. */
  timestamp: string;
  /** The git commit of the bench's sources; null outside a git checkout. */
  commit: SourceCommit | null;
  /**
   * The scenario's parameters, plus the harness's: `ci` (boolean), `runs`,
   * `warmup`, `cache` (`evicted` | `dropped` | `warm`, see `CacheState`), `order` (`shuffled` |
   * `alternating` | `fixed`) and, when shuffled, `orderSeed` (to replay the
   * order with `--seed`).
   */
  params: Record<string, ParamValue>;
  machine: MachineInfo;
  variants: VariantReport[];
  ratios: RatioReport[];
  metrics: Record<string, number>;
}

export interface VariantReport {
  name: string;
  unit: string;
  higherIsBetter: boolean;
  median: number;
  min: number;
  max: number;
  /** The raw value of every measured run, by round. */
  values: number[];
  /** The raw extra samples of every run, by key (their medians are in `metrics`). */
  samples: Record<string, number[]>;
}

export interface RatioReport {
  /** `a/b`: variant a over variant b, computed per round (both from the same round). */
  name: string;
  /** Variant a's direction: whether a bigger ratio is better. */
  higherIsBetter: boolean;
  median: number;
  min: number;
  max: number;
  /** The ratio of every round. */
  values: number[];
  /** The scenario's goal for it: a floor when `higherIsBetter`, else a ceiling. */
  target?: number;
}

/** Whether a ratio's median meets its target; undefined without one. */
export function meetsTarget(ratio: RatioReport): boolean | undefined {
  if (ratio.target === undefined) return undefined;
  return ratio.higherIsBetter ? ratio.median >= ratio.target : ratio.median <= ratio.target;
}

/** `>= 0.7` or `<= 1.2`: a ratio's target as the table and the page show it. */
export function targetText(ratio: RatioReport): string {
  if (ratio.target === undefined) return '';
  return `${ratio.higherIsBetter ? '>=' : '<='} ${formatNumber(ratio.target)}`;
}

export function reportToJson(report: BenchReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export function paramText(value: ParamValue): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** `2 x AMD EPYC, 23.5 GiB, node v20.19.0, linux-x64 (host)`. */
export function machineText(m: MachineInfo): string {
  return (
    `${m.cpus} x ${m.cpuModel}, ${(m.totalMemory / 2 ** 30).toFixed(1)} GiB, ` +
    `node ${m.node}, ${m.platform}-${m.arch}${m.hostname ? ` (${m.hostname})` : ''}`
  );
}

/** `81c1eb0a12` or `81c1eb0a12 (dirty)`. */
export function commitText(commit: SourceCommit): string {
  return `${commit.sha.slice(0, 10)}${commit.dirty ? ' (dirty)' : ''}`;
}

/** The human-readable report: header, variant table, ratios, metrics. */
export function renderReport(
  report: BenchReport,
  extra: { description?: string; notes?: readonly string[] } = {},
): string {
  const { description, notes = [] } = extra;
  const out: string[] = [];
  const m = report.machine;
  out.push(`${report.scenario}${description ? ` - ${description}` : ''}`);
  out.push(`machine: ${machineText(m)}`);
  if (report.commit) out.push(`commit: ${commitText(report.commit)}, ${report.timestamp}`);
  out.push(
    `params: ${Object.entries(report.params)
      .map(([k, v]) => `${k}=${paramText(v)}`)
      .join(' ')}`,
  );
  for (const note of notes) out.push(`note: ${note}`);
  out.push('');

  const right: Align[] = ['left', 'left', 'right', 'right', 'right'];
  out.push(
    formatTable(
      [
        ['variant', 'unit', 'median', 'min', 'max'],
        ...report.variants.map((v) => [
          v.name,
          v.unit,
          formatNumber(v.median),
          formatNumber(v.min),
          formatNumber(v.max),
        ]),
      ],
      right,
    ),
  );

  if (report.ratios.length > 0) {
    const targets = report.ratios.some((r) => r.target !== undefined);
    out.push('');
    out.push(
      formatTable(
        [
          ['ratio', 'median', 'min', 'max', ...(targets ? ['target', 'met'] : [])],
          ...report.ratios.map((r) => {
            const met = meetsTarget(r);
            return [
              r.name,
              formatNumber(r.median),
              formatNumber(r.min),
              formatNumber(r.max),
              ...(targets ? [targetText(r), met === undefined ? '' : met ? 'yes' : 'NO'] : []),
            ];
          }),
        ],
        ['left', 'right', 'right', 'right', 'left', 'left'],
      ),
    );
  }

  const metrics = Object.entries(report.metrics);
  if (metrics.length > 0) {
    out.push('');
    out.push(
      formatTable(
        [['metric', 'value'], ...metrics.map(([k, v]) => [k, formatNumber(v)])],
        ['left', 'right'],
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
