import { type Align, formatNumber, formatTable } from './format.js';
import type { MachineInfo } from './machine.js';
import type { ParamValue } from './scenario.js';

/**
 * The JSON a scenario writes (`--json`, `--out`). Scenarios add keys to
 * `params`, `machine` and `metrics`; they never change this shape.
 */
export interface BenchReport {
  scenario: string;
  /**
   * The scenario's parameters, plus the harness's: `ci` (boolean), `runs`,
   * `warmup`, `cache` (`dropped` | `warm`), `order` (`shuffled` |
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
  median: number;
  min: number;
  max: number;
}

export interface RatioReport {
  /** `a/b`: variant a over variant b, computed per round (both from the same round). */
  name: string;
  median: number;
  min: number;
  max: number;
}

export function reportToJson(report: BenchReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

function paramText(value: ParamValue): string {
  return Array.isArray(value) ? value.join(',') : String(value);
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
  out.push(
    `machine: ${m.cpus} x ${m.cpuModel}, ${(m.totalMemory / 2 ** 30).toFixed(1)} GiB, ` +
      `node ${m.node}, ${m.platform}-${m.arch}`,
  );
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
    out.push('');
    out.push(
      formatTable(
        [
          ['ratio', 'median', 'min', 'max'],
          ...report.ratios.map((r) => [
            r.name,
            formatNumber(r.median),
            formatNumber(r.min),
            formatNumber(r.max),
          ]),
        ],
        ['left', 'right', 'right', 'right'],
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
