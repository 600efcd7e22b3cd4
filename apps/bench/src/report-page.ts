import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { formatNumber } from './format.js';
import { commitText, machineText, meetsTarget, paramText, targetText } from './report.js';
import { type ChartSpec, groupByScenario, scenarioCharts } from './report-charts.js';
import type { LoadedReport } from './report-files.js';

/**
 * The self-contained HTML report: every chart drawn by Chart.js, whose UMD
 * build is read from node_modules and inlined, with the data, so the page
 * opens offline from a file (no script, style or font from the network).
 */

let chartJs: string | undefined;

/** Chart.js's UMD build, ready to inline (its source map comment dropped). */
export function chartJsSource(): string {
  if (chartJs === undefined) {
    // The exports map hides dist/*; the UMD build sits beside the CommonJS entry.
    const entry = createRequire(import.meta.url).resolve('chart.js');
    const text = readFileSync(path.join(path.dirname(entry), 'chart.umd.min.js'), 'utf8');
    chartJs = text
      .replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n')
      .replaceAll('</script', '<\\/script');
  }
  return chartJs;
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** JSON safe inside a `<script>` element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}

/**
 * Draws every chart and marks it: `data-rendered` once Chart.js has drawn
 * it, `data-elements` the data elements it placed, `data-painted` the
 * canvas pixels that are not blank; then `data-charts-rendered` and
 * `data-height` on <body>. The browser test reads these back (--dump-dom).
 */
const PAGE_SCRIPT = `
(function () {
  var specs = JSON.parse(document.getElementById('chart-specs').textContent);
  function painted(canvas) {
    var ctx = canvas.getContext('2d');
    var data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    var n = 0;
    for (var i = 3; i < data.length; i += 16) if (data[i] !== 0) n++;
    return n;
  }
  var marker = {
    id: 'strataRendered',
    afterRender: function (chart) {
      // Elements of visible datasets placed inside the plot area: a hidden
      // dataset or a point off the axes does not count.
      var elements = 0;
      var area = chart.chartArea;
      chart.data.datasets.forEach(function (_d, i) {
        if (!chart.isDatasetVisible(i)) return;
        chart.getDatasetMeta(i).data.forEach(function (el) {
          if (el.skip || !isFinite(el.x) || !isFinite(el.y)) return;
          if (el.x < area.left - 1 || el.x > area.right + 1) return;
          if (el.y < area.top - 1 || el.y > area.bottom + 1) return;
          elements++;
        });
      });
      var canvas = chart.canvas;
      canvas.setAttribute('data-elements', String(elements));
      canvas.setAttribute('data-painted', String(painted(canvas)));
      canvas.setAttribute('data-rendered', 'true');
      var done = document.querySelectorAll('canvas[data-rendered="true"]').length;
      document.body.setAttribute('data-charts-rendered', String(done));
      document.body.setAttribute('data-height', String(document.documentElement.scrollHeight));
    }
  };
  try {
    specs.forEach(function (spec) {
      new Chart(document.getElementById(spec.id), Object.assign({}, spec.config, { plugins: [marker] }));
    });
  } catch (e) {
    document.body.setAttribute('data-error', String(e && e.stack || e));
  }
})();
`;

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px 32px; color: #1b1f24; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 2px; padding-top: 12px; border-top: 1px solid #d0d7de; }
.meta { color: #57606a; margin: 2px 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 12px 24px; margin-top: 8px; }
.chart { position: relative; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { padding: 2px 10px; text-align: right; border-bottom: 1px solid #eaeef2; }
th:first-child, td:first-child { text-align: left; }
.miss { color: #d62728; font-weight: 600; }
.hit { color: #2a7d3a; }
details { margin: 4px 0; }
`;

function variantTable(latest: LoadedReport): string {
  const rows = latest.report.variants
    .map(
      (v) =>
        `<tr><td>${escapeHtml(v.name)}</td><td>${escapeHtml(v.unit)}</td>` +
        `<td>${formatNumber(v.median)}</td><td>${formatNumber(v.min)}</td><td>${formatNumber(v.max)}</td>` +
        `<td>${escapeHtml(v.values.map(formatNumber).join(' '))}</td></tr>`,
    )
    .join('');
  return `<table><tr><th>variant</th><th>unit</th><th>median</th><th>min</th><th>max</th><th>runs</th></tr>${rows}</table>`;
}

function ratioTable(latest: LoadedReport): string {
  if (latest.report.ratios.length === 0) return '';
  const rows = latest.report.ratios
    .map((r) => {
      const met = meetsTarget(r);
      const mark =
        met === undefined
          ? ''
          : met
            ? '<span class="hit">met</span>'
            : '<span class="miss">missed</span>';
      return (
        `<tr><td>${escapeHtml(r.name)}</td><td>${formatNumber(r.median)}</td>` +
        `<td>${formatNumber(r.min)}</td><td>${formatNumber(r.max)}</td>` +
        `<td>${escapeHtml(targetText(r))}</td><td>${mark}</td></tr>`
      );
    })
    .join('');
  return `<table><tr><th>ratio</th><th>median</th><th>min</th><th>max</th><th>target</th><th></th></tr>${rows}</table>`;
}

/**
 * What `params.cache` means, in a line. Not for `warm`: the report does not
 * say whether the scenario reads disk at all (most do not).
 */
const CACHE_TEXT: Record<string, string> = {
  evicted: "page cache: the bench's own files evicted before every disk-reading run",
  dropped: "page cache: the whole machine's dropped before every disk-reading run (--drop-caches)",
};

function metaLines(latest: LoadedReport, reports: number): string {
  const r = latest.report;
  const cache = typeof r.params.cache === 'string' ? CACHE_TEXT[r.params.cache] : undefined;
  const params = Object.entries(r.params)
    .map(([k, v]) => `${k}=${paramText(v)}`)
    .join(' ');
  return [
    `${escapeHtml(r.timestamp)}${r.commit ? `, commit ${escapeHtml(commitText(r.commit))}` : ''}` +
      `${reports > 1 ? `; history of ${reports} reports` : ''}`,
    `machine: ${escapeHtml(machineText(r.machine))}`,
    `params: ${escapeHtml(params)}`,
    ...(cache ? [escapeHtml(cache)] : []),
  ]
    .map((line) => `<p class="meta">${line}</p>`)
    .join('');
}

function chartBox(spec: ChartSpec): string {
  return (
    `<div class="chart" style="height:${spec.height}px">` +
    `<canvas id="${spec.id}" data-kind="${spec.kind}" data-points="${spec.points}" ` +
    `aria-label="${escapeHtml(spec.title)}" role="img"></canvas></div>`
  );
}

/** The page and the charts on it (the test checks each one rendered). */
export interface ReportPage {
  html: string;
  charts: ChartSpec[];
}

/** Builds the HTML page of `reports` (at least one). */
export function renderReportPage(
  reports: readonly LoadedReport[],
  generated: Date = new Date(),
): ReportPage {
  if (reports.length === 0) throw new Error('no reports to show');
  const groups = groupByScenario(reports);
  const charts: ChartSpec[] = [];
  const sections = groups.map((group, i) => {
    const specs = scenarioCharts(group, `s${i}`);
    charts.push(...specs);
    const r = group.latest.report;
    return (
      `<section id="${escapeHtml(group.scenario)}">` +
      `<h2>${escapeHtml(group.scenario)}</h2>` +
      (r.description ? `<p>${escapeHtml(r.description)}</p>` : '') +
      metaLines(group.latest, group.history.length) +
      `<div class="charts">${specs.map(chartBox).join('')}</div>` +
      `<details><summary>numbers (latest report)</summary>${variantTable(group.latest)}${ratioTable(group.latest)}</details>` +
      `</section>`
    );
  });
  const commits = new Set(reports.map((r) => r.report.commit?.sha ?? 'none')).size;
  const html =
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>strata-bench report</title>
<style>${STYLE}</style>
</head>
<body data-charts="${charts.length}">
<h1>strata-bench report</h1>
<p class="meta">${reports.length} report${reports.length > 1 ? 's' : ''} of ${groups.length} scenario${groups.length > 1 ? 's' : ''}` +
    ` from ${commits} commit${commits > 1 ? 's' : ''}, generated ${escapeHtml(generated.toISOString())}.` +
    ` Bars span min to max over the runs, diamonds are medians, dots single runs; ratios are computed round by round.</p>
${sections.join('\n')}
<script type="application/json" id="chart-specs">${scriptJson(charts)}</script>
<script>${chartJsSource()}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
  return { html, charts };
}
