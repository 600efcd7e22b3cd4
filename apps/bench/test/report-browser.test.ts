// The HTML report in a real browser: headless Chromium (Debian's package)
// opens the page with the network shut, and every chart must have drawn
// its data. Also takes the screenshot the bench README shows; with
// STRATA_BENCH_SCREENSHOT=1 it is written to docs/bench-report.png.
// Skipped, with a warning, where there is no Chromium (CI has only Node).
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_OK, main } from '../src/main.js';
import type { ChartSpec } from '../src/report-charts.js';
import { loadReports } from '../src/report-files.js';
import { renderReportPage } from '../src/report-page.js';
import { dumpDom, findChromium, screenshot } from './chromium.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Real `--ci` reports of three scenarios, three runs each (see fixtures/reports/README.md). */
const FIXTURES = path.join(here, 'fixtures', 'reports');
const DOCS_PNG = path.join(here, '..', '..', '..', 'docs', 'bench-report.png');
const WIDTH = 1280;

const chromium = findChromium();
if (chromium === null) {
  console.warn(
    'report-browser.test: no Chromium found (chromium, chromium-browser, google-chrome on PATH, ' +
      'or CHROMIUM_BIN): SKIPPED the check that the report page renders every chart',
  );
}

type Attributes = Record<string, string>;

function attributes(tag: string): Attributes {
  const out: Attributes = {};
  for (const m of tag.matchAll(/([\w-]+)="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

/** The <body> and every <canvas> of a dumped DOM, by their attributes. */
function parseDom(dom: string): { body: Attributes; canvases: Map<string, Attributes> } {
  const body = attributes(/<body[^>]*>/.exec(dom)?.[0] ?? '');
  const canvases = new Map<string, Attributes>();
  for (const m of dom.matchAll(/<canvas[^>]*>/g)) {
    const a = attributes(m[0]);
    if (a.id) canvases.set(a.id, a);
  }
  return { body, canvases };
}

/** PNG width and height from its IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]))).toBe(true);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'strata-bench-browser-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe.skipIf(chromium === null)('the HTML report in headless Chromium', () => {
  it('renders every chart with its data, offline, and takes the screenshot', async () => {
    const bin = chromium!;
    const page = path.join(tmp, 'report.html');
    const quiet = { stdout: () => {}, stderr: () => {} };
    expect(await main(['report', FIXTURES, '--html', page], quiet)).toBe(EXIT_OK);
    // The same charts the command drew, to check each one by id.
    const { charts } = renderReportPage((await loadReports([FIXTURES])).reports);
    const kinds = new Set(charts.map((c: ChartSpec) => c.kind));
    expect([...kinds].sort()).toEqual(['history', 'ratio-history', 'ratios', 'variants']);
    expect(charts.some((c) => c.config.data.datasets.some((d) => d.label === 'target'))).toBe(true);

    const { body, canvases } = parseDom(await dumpDom(bin, page, WIDTH));
    expect(body['data-error']).toBeUndefined();
    expect(body['data-charts']).toBe(String(charts.length));
    expect(body['data-charts-rendered']).toBe(String(charts.length));
    expect(canvases.size).toBe(charts.length);
    for (const chart of charts) {
      const canvas = canvases.get(chart.id);
      expect(canvas, chart.id).toBeDefined();
      expect(canvas!['data-rendered'], chart.id).toBe('true');
      // Every point, bar and tick of its data placed on the canvas...
      expect(canvas!['data-elements'], `${chart.id} ${chart.title}`).toBe(String(chart.points));
      // ... and drawn: a chart's axes and bars paint thousands of pixels.
      expect(Number(canvas!['data-painted']), chart.id).toBeGreaterThan(1000);
    }

    const height = Math.min(Number(body['data-height']), 6000);
    expect(height).toBeGreaterThan(500);
    const png = path.join(tmp, 'bench-report.png');
    await screenshot(bin, page, png, WIDTH, height);
    const bytes = await readFile(png);
    expect(pngSize(bytes).width).toBe(WIDTH);
    expect(bytes.length).toBeGreaterThan(20_000); // charts, not a blank page
    if (process.env.STRATA_BENCH_SCREENSHOT === '1') await copyFile(png, DOCS_PNG);
  }, 240_000);
});
