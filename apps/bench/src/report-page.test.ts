import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_FAILED, EXIT_OK, main } from './main.js';
import { type BenchReport, reportToJson } from './report.js';
import { groupByScenario, scenarioCharts } from './report-charts.js';
import { type LoadedReport, loadReports, parseReport } from './report-files.js';
import { chartJsSource, renderReportPage } from './report-page.js';

function report(scenario: string, timestamp: string, scale = 1): BenchReport {
  return {
    scenario,
    description: `the ${scenario} <scenario>`,
    timestamp,
    commit: { sha: `${timestamp.slice(11, 13)}aa${'0'.repeat(36)}`, dirty: false },
    params: { ci: true, runs: 3, cache: 'evicted' },
    machine: {
      hostname: 'vm',
      cpus: 2,
      cpuModel: 'cpu',
      node: 'v20.0.0',
      totalMemory: 1 << 30,
      platform: 'linux',
      arch: 'x64',
      release: '6',
    },
    variants: [
      {
        name: 'strata-get',
        unit: 'ops/s',
        higherIsBetter: true,
        median: 100 * scale,
        min: 90 * scale,
        max: 110 * scale,
        values: [90 * scale, 100 * scale, 110 * scale],
        samples: { p99_ms: [1, 2, 3] },
      },
      {
        name: 'redis-get',
        unit: 'ops/s',
        higherIsBetter: true,
        median: 120,
        min: 110,
        max: 130,
        values: [110, 120, 130],
        samples: {},
      },
      {
        name: 'load',
        unit: 'ms',
        higherIsBetter: false,
        median: 5,
        min: 4,
        max: 6,
        values: [4, 5, 6],
        samples: {},
      },
    ],
    ratios: [
      {
        name: 'strata-get/redis-get',
        higherIsBetter: true,
        median: 0.83 * scale,
        min: 0.8,
        max: 0.9,
        values: [0.8, 0.83, 0.9],
        target: 0.7,
      },
    ],
    metrics: { x: 1 },
  };
}

const loaded = (r: BenchReport, file = `${r.scenario}.json`): LoadedReport => ({ file, report: r });

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'strata-bench-page-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('parseReport', () => {
  it('reads back what reportToJson wrote', () => {
    const r = report('types', '2026-12-06T07:00:00.000Z');
    expect(parseReport(JSON.parse(reportToJson(r)), 'fallback')).toEqual(r);
  });

  it('reads a report from before raw values, timestamps and commits', () => {
    const old = {
      scenario: 'io-seq-read',
      params: { ci: true, cache: 'dropped' },
      machine: {
        cpus: 2,
        cpuModel: 'x',
        node: 'v20',
        totalMemory: 1,
        platform: 'linux',
        arch: 'x64',
        release: '6',
      },
      variants: [{ name: 'fs-64k', unit: 'MB/s', median: 2, min: 1, max: 3 }],
      ratios: [{ name: 'fs-64k/fs-64k', median: 1, min: 1, max: 1 }],
      metrics: { best: 2 },
    };
    const r = parseReport(old, '2026-01-01T00:00:00.000Z');
    expect(r.timestamp).toBe('2026-01-01T00:00:00.000Z');
    expect(r.commit).toBeNull();
    expect(r.variants[0]).toMatchObject({ higherIsBetter: true, values: [], samples: {} });
    expect(r.ratios[0]).toMatchObject({ higherIsBetter: true, values: [] });
    expect(r.machine.hostname).toBe('');
  });

  it('rejects JSON that is not a report, saying why', () => {
    expect(() => parseReport({ name: 'x' }, 't')).toThrow(/no "scenario"/);
    expect(() => parseReport({ scenario: 'x' }, 't')).toThrow(/no "variants"/);
    expect(() => parseReport({ scenario: 'x', variants: [{ name: 'a' }] }, 't')).toThrow(
      /without name, median/,
    );
  });
});

describe('loadReports', () => {
  it('finds reports in directories recursively and skips other JSON', async () => {
    const dir = path.join(tmp, 'load');
    await mkdir(path.join(dir, 'run-2'), { recursive: true });
    await writeFile(
      path.join(dir, 'a.json'),
      reportToJson(report('a', '2026-12-06T07:00:00.000Z')),
    );
    await writeFile(
      path.join(dir, 'run-2', 'a.json'),
      reportToJson(report('a', '2026-12-06T08:00:00.000Z')),
    );
    await writeFile(path.join(dir, 'package.json'), '{"name":"x"}');
    await writeFile(path.join(dir, 'notes.txt'), 'not json');
    const { reports, skipped } = await loadReports([dir]);
    expect(reports.map((r) => path.relative(dir, r.file))).toEqual(['a.json', 'run-2/a.json']);
    expect(skipped).toEqual([{ file: path.join(dir, 'package.json'), reason: 'no "scenario"' }]);
  });
});

describe('scenarioCharts', () => {
  it('one report: variants per unit and the ratios with their targets', () => {
    const [group] = groupByScenario([loaded(report('types', '2026-12-06T07:00:00.000Z'))]);
    const charts = scenarioCharts(group!, 's0');
    expect(charts.map((c) => c.kind)).toEqual(['variants', 'variants', 'ratios']);
    // ops/s: 2 variants x (bar + median) + 6 runs; ms: 1 x 2 + 3 runs
    expect(charts.map((c) => c.points)).toEqual([10, 5, 1 * 2 + 3 + 1]);
    expect(charts[0]!.title).toMatch(/in ops\/s \(higher is better\)/);
    expect(charts[1]!.title).toMatch(/in ms \(lower is better\)/);
    const target = charts[2]!.config.data.datasets.find((d) => d.label === 'target');
    expect(target?.data).toEqual([{ x: 0.7, y: 'strata-get/redis-get' }]);
    expect(new Set(charts.map((c) => c.id)).size).toBe(3);
  });

  it('several reports: the latest in the range charts, and the history', () => {
    const groups = groupByScenario([
      loaded(report('types', '2026-12-06T09:00:00.000Z', 3)),
      loaded(report('types', '2026-12-06T07:00:00.000Z', 1)),
      loaded(report('types', '2026-12-06T08:00:00.000Z', 2)),
    ]);
    expect(groups).toHaveLength(1);
    const charts = scenarioCharts(groups[0]!, 's0');
    expect(charts.map((c) => c.kind)).toEqual([
      'variants',
      'variants',
      'ratios',
      'history',
      'history',
      'ratio-history',
    ]);
    const latest = charts[0]!.config.data.datasets.find((d) => d.label === 'median');
    expect(latest?.data[0]).toEqual({ x: 300, y: 'strata-get' }); // the 09:00 report
    const history = charts[3]!;
    expect(history.config.data.labels).toEqual([
      '2026-12-06 07:00 07aa000000',
      '2026-12-06 08:00 08aa000000',
      '2026-12-06 09:00 09aa000000',
    ]);
    expect(history.config.data.datasets[0]!.data).toEqual([100, 200, 300]); // oldest first
    expect(history.points).toBe(6); // 2 ops/s variants x 3 reports
    // the ratio's medians, then its target as a dashed line
    expect(charts[5]!.config.data.datasets.map((d) => d.label)).toEqual([
      'strata-get/redis-get',
      'target strata-get/redis-get',
    ]);
    expect(charts[5]!.points).toBe(6);
  });

  it('puts a wide spread of values on a log scale', () => {
    const r = report('bits', '2026-12-06T07:00:00.000Z');
    r.variants = [
      { ...r.variants[0]!, name: 'range', median: 1600, min: 1500, max: 1700, values: [] },
      { ...r.variants[0]!, name: 'whole', median: 1.02, min: 1, max: 1.1, values: [] },
    ];
    const [group] = groupByScenario([loaded(r)]);
    const x = scenarioCharts(group!, 's0')[0]!.config.options?.scales?.x;
    expect(x?.type).toBe('logarithmic');
  });
});

describe('renderReportPage', () => {
  it('is one self-contained page: Chart.js inline, no resource from elsewhere', () => {
    const { html, charts } = renderReportPage([
      loaded(report('types', '2026-12-06T07:00:00.000Z')),
      loaded(report('scan', '2026-12-06T07:00:00.000Z')),
    ]);
    expect(charts).toHaveLength(6);
    expect(html).toContain(chartJsSource());
    expect(chartJsSource()).toMatch(/Chart\.js v4/);
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/sourceMappingURL/);
    expect(html).not.toMatch(/url\(/);
    for (const c of charts) {
      expect(html).toContain(
        `<canvas id="${c.id}" data-kind="${c.kind}" data-points="${c.points}"`,
      );
    }
    expect(html).toContain(`<body data-charts="6">`);
    expect(html).toContain('2 reports of 2 scenarios from 1 commit,');
  });

  it('escapes names and descriptions', () => {
    const { html } = renderReportPage([loaded(report('types', '2026-12-06T07:00:00.000Z'))]);
    expect(html).toContain('the types &lt;scenario&gt;');
    expect(html).not.toContain('<scenario>');
    expect(html).toContain("page cache: the bench's own files evicted");
  });
});

describe('strata-bench report', () => {
  it('writes DIR/report.html from the reports under DIR', async () => {
    const dir = path.join(tmp, 'cli');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'types.json'),
      reportToJson(report('types', '2026-12-06T07:00:00.000Z')),
    );
    const out: string[] = [];
    const err: string[] = [];
    const env = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
    expect(await main(['report', dir], env)).toBe(EXIT_OK);
    expect(out.join('')).toMatch(/wrote .*report\.html: 3 charts of 1 scenarios from 1 reports/);
    const html = await readFile(path.join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);

    const empty = path.join(tmp, 'empty');
    await mkdir(empty, { recursive: true });
    expect(await main(['report', empty], env)).toBe(EXIT_FAILED);
    expect(err.join('')).toMatch(/no bench reports in/);
  });
});
