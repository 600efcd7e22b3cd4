import type { ChartConfiguration } from 'chart.js';
import { commitText, type RatioReport, type VariantReport } from './report.js';
import type { LoadedReport } from './report-files.js';

/**
 * The charts of the HTML report, as Chart.js configurations built here (typed,
 * tested in Node) and handed to the page as JSON: the page itself only
 * constructs them, so nothing about what is drawn lives in untyped browser code.
 */

/** A point of a chart: a value on the category axis, a range, or a gap. */
export type Datum = number | [number, number] | { x: number; y: string } | null;

export type ChartConfig = ChartConfiguration<'bar' | 'line', Datum[], string>;

export type ChartKind = 'variants' | 'ratios' | 'history' | 'ratio-history';

export interface ChartSpec {
  /** DOM id of the chart's canvas. */
  id: string;
  kind: ChartKind;
  title: string;
  /** Height of the chart's box in CSS pixels (the width follows the page). */
  height: number;
  /** Data elements the chart must draw: the browser test counts them. */
  points: number;
  config: ChartConfig;
}

/** One scenario's reports, oldest first, and the latest one the variant charts show. */
export interface ScenarioReports {
  scenario: string;
  history: LoadedReport[];
  latest: LoadedReport;
}

const PALETTE = [
  '#4269d0',
  '#efb118',
  '#ff725c',
  '#6cc5b0',
  '#3ca951',
  '#ff8ab7',
  '#a463f2',
  '#97bbf5',
  '#9c6b4e',
  '#9498a0',
];
const RANGE = 'rgba(66, 105, 208, 0.28)';
const MEDIAN = '#1d3a8a';
const RUN = 'rgba(0, 0, 0, 0.45)';
const TARGET = '#d62728';

/** Color `i` of the palette, cycling. */
export function color(i: number): string {
  return PALETTE[i % PALETTE.length]!;
}

/** Groups reports by scenario (in the order scenarios first appear), each oldest first. */
export function groupByScenario(reports: readonly LoadedReport[]): ScenarioReports[] {
  const groups = new Map<string, LoadedReport[]>();
  for (const r of reports) {
    const list = groups.get(r.report.scenario) ?? [];
    list.push(r);
    groups.set(r.report.scenario, list);
  }
  return [...groups.entries()].map(([scenario, list]) => {
    const history = [...list].sort((a, b) => a.report.timestamp.localeCompare(b.report.timestamp));
    return { scenario, history, latest: history[history.length - 1]! };
  });
}

/** A history point's label: `2026-12-06 07:30 81c1eb0a12`. */
export function reportLabel(r: LoadedReport): string {
  const when = r.report.timestamp.replace('T', ' ').slice(0, 16);
  return r.report.commit ? `${when} ${commitText(r.report.commit)}` : when;
}

/** Log scale when the values span more than two orders of magnitude (1 op/s beside 2000). */
function scaleType(values: readonly number[]): 'linear' | 'logarithmic' {
  const positive = values.filter((v) => v > 0);
  if (positive.length !== values.length || positive.length === 0) return 'linear';
  return Math.max(...positive) / Math.min(...positive) > 100 ? 'logarithmic' : 'linear';
}

function barHeight(rows: number): number {
  return 90 + 26 * rows;
}

interface Row {
  name: string;
  median: number;
  min: number;
  max: number;
  values: readonly number[];
}

/**
 * A horizontal chart of rows (variants or ratios): a min-max bar, the
 * median, and every run's value as a dot; `targets` adds a tick per row.
 */
function rangeChart(
  id: string,
  kind: ChartKind,
  title: string,
  axis: string,
  rows: readonly Row[],
  targets: readonly { x: number; y: string }[] = [],
): ChartSpec {
  const runs = rows.flatMap((r) => r.values.map((x) => ({ x, y: r.name })));
  const all = rows.flatMap((r) => [r.min, r.max, ...r.values]).concat(targets.map((t) => t.x));
  const datasets: ChartConfig['data']['datasets'] = [
    {
      type: 'bar',
      label: 'min - max',
      data: rows.map((r) => [r.min, r.max]),
      backgroundColor: RANGE,
      borderColor: RANGE,
      borderWidth: 1,
      barPercentage: 0.6,
      categoryPercentage: 1,
    },
    {
      type: 'line',
      label: 'median',
      data: rows.map((r) => ({ x: r.median, y: r.name })),
      showLine: false,
      pointStyle: 'rectRot',
      pointRadius: 6,
      backgroundColor: MEDIAN,
      borderColor: MEDIAN,
    },
  ];
  if (runs.length > 0) {
    datasets.push({
      type: 'line',
      label: 'runs',
      data: runs,
      showLine: false,
      pointRadius: 2.5,
      backgroundColor: RUN,
      borderColor: RUN,
    });
  }
  if (targets.length > 0) {
    datasets.push({
      type: 'line',
      label: 'target',
      data: [...targets],
      showLine: false,
      pointStyle: 'line',
      pointRotation: 90,
      pointRadius: 11,
      borderWidth: 3,
      backgroundColor: TARGET,
      borderColor: TARGET,
    });
  }
  return {
    id,
    kind,
    title,
    height: barHeight(rows.length),
    points: rows.length * 2 + runs.length + targets.length,
    config: {
      type: 'bar',
      data: { labels: rows.map((r) => r.name), datasets },
      options: {
        indexAxis: 'y',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          title: { display: true, text: title },
          legend: { labels: { usePointStyle: true } },
        },
        scales: {
          x: { type: scaleType(all), title: { display: true, text: axis } },
          y: { type: 'category', ticks: { autoSkip: false } },
        },
      },
    },
  };
}

function lineChart(
  id: string,
  kind: ChartKind,
  title: string,
  axis: string,
  labels: readonly string[],
  series: readonly { label: string; data: (number | null)[]; dashed?: boolean }[],
): ChartSpec {
  const values = series.flatMap((s) => s.data.filter((v): v is number => v !== null));
  return {
    id,
    kind,
    title,
    height: 320,
    points: values.length,
    config: {
      type: 'line',
      data: {
        labels: [...labels],
        datasets: series.map((s, i) => ({
          type: 'line',
          label: s.label,
          data: s.data,
          spanGaps: true,
          borderColor: s.dashed ? TARGET : color(i),
          backgroundColor: s.dashed ? TARGET : color(i),
          pointRadius: s.dashed ? 0 : 3,
          pointHitRadius: 4,
          borderWidth: s.dashed ? 1.5 : 2,
          ...(s.dashed ? { borderDash: [6, 4] } : {}),
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { title: { display: true, text: title } },
        scales: {
          x: { type: 'category' },
          y: { type: scaleType(values), title: { display: true, text: axis } },
        },
      },
    },
  };
}

function byUnit(variants: readonly VariantReport[]): Map<string, VariantReport[]> {
  const units = new Map<string, VariantReport[]>();
  for (const v of variants) {
    const list = units.get(v.unit) ?? [];
    list.push(v);
    units.set(v.unit, list);
  }
  return units;
}

function direction(list: readonly { higherIsBetter: boolean }[]): string {
  const higher = list.filter((v) => v.higherIsBetter).length;
  if (higher === list.length) return 'higher is better';
  if (higher === 0) return 'lower is better';
  return 'mixed directions';
}

function ratioTitle(ratios: readonly RatioReport[]): string {
  const targets = ratios.filter((r) => r.target !== undefined).length;
  return `ratios (per round)${targets > 0 ? `, red ticks: targets (${targets})` : ''}`;
}

/**
 * The charts of one scenario: per unit, its variants (min-max bar, median,
 * runs) in the latest report; its ratios against their targets; and with
 * several reports, the history of the variants' and the ratios' medians.
 */
export function scenarioCharts(group: ScenarioReports, prefix: string): ChartSpec[] {
  const { report } = group.latest;
  const charts: ChartSpec[] = [];
  let n = 0;
  const id = (kind: ChartKind) => `${prefix}-${kind}-${n++}`;
  const units = byUnit(report.variants);
  for (const [unit, variants] of units) {
    charts.push(
      rangeChart(
        id('variants'),
        'variants',
        `variants${units.size > 1 ? ` in ${unit}` : ''} (${direction(variants)}): median, min-max, runs`,
        unit,
        variants,
      ),
    );
  }
  if (report.ratios.length > 0) {
    const targets = report.ratios.flatMap((r) =>
      r.target === undefined ? [] : [{ x: r.target, y: r.name }],
    );
    charts.push(
      rangeChart(
        id('ratios'),
        'ratios',
        ratioTitle(report.ratios),
        'ratio',
        report.ratios,
        targets,
      ),
    );
  }
  if (group.history.length > 1) {
    const labels = group.history.map(reportLabel);
    const names = (pick: (r: LoadedReport) => readonly { name: string }[]) => [
      ...new Set(group.history.flatMap((r) => pick(r).map((x) => x.name))),
    ];
    const historyUnits = new Map<string, string[]>();
    for (const r of group.history) {
      for (const v of r.report.variants) {
        const list = historyUnits.get(v.unit) ?? [];
        if (!list.includes(v.name)) list.push(v.name);
        historyUnits.set(v.unit, list);
      }
    }
    for (const [unit, variantNames] of historyUnits) {
      charts.push(
        lineChart(
          id('history'),
          'history',
          `history of the variants' medians${historyUnits.size > 1 ? ` in ${unit}` : ''} over ${labels.length} reports`,
          unit,
          labels,
          variantNames.map((name) => ({
            label: name,
            data: group.history.map(
              (r) =>
                r.report.variants.find((v) => v.name === name && v.unit === unit)?.median ?? null,
            ),
          })),
        ),
      );
    }
    const ratioNames = names((r) => r.report.ratios);
    if (ratioNames.length > 0) {
      const find = (r: LoadedReport, name: string) => r.report.ratios.find((x) => x.name === name);
      const series: { label: string; data: (number | null)[]; dashed?: boolean }[] = ratioNames.map(
        (name) => ({ label: name, data: group.history.map((r) => find(r, name)?.median ?? null) }),
      );
      for (const name of ratioNames) {
        const data = group.history.map((r) => find(r, name)?.target ?? null);
        if (data.some((v) => v !== null)) {
          series.push({ label: `target ${name}`, data, dashed: true });
        }
      }
      charts.push(
        lineChart(
          id('ratio-history'),
          'ratio-history',
          `history of the ratios' medians over ${labels.length} reports (dashed: targets)`,
          'ratio',
          labels,
          series,
        ),
      );
    }
  }
  return charts;
}
