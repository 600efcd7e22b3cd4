import type { LatencySeries } from '../../server/latency-monitor.js';

/** Redis's LATENCY_GRAPH_COLS, and the rows of its sparkline. */
const COLUMNS = 80;
const ROWS = 4;
/** sparkline.c's charset_fill: three steps per row, `|` below them. */
const FILL = '_o#';

interface Sample {
  readonly value: number;
  readonly label: string;
}

/**
 * LATENCY GRAPH's text, as Redis's latencyCommandGenSparkeline and
 * sparklineRender (filled, linear) draw it: a title line with the high and
 * low of the samples kept and the all time high, a rule, then each sample
 * a column, labelled with how long ago it happened (`12s`, `3m`, `2h`, `1d`)
 * written downwards.
 */
export function latencyGraph(event: string, series: LatencySeries, now: number): string {
  const samples: Sample[] = [];
  let min = 0;
  let max = 0;
  for (const s of series.history()) {
    if (samples.length === 0) min = max = s.latency;
    else {
      if (s.latency > max) max = s.latency;
      if (s.latency < min) min = s.latency;
    }
    samples.push({ value: s.latency, label: ago(now - s.time) });
  }
  let out = `${event} - high ${max} ms, low ${min} ms (all time high ${series.max} ms)\n`;
  out += `${'-'.repeat(COLUMNS)}\n`;
  for (let j = 0; j < samples.length; j += COLUMNS) {
    if (j !== 0) out += '\n';
    out += renderRange(samples.slice(j, j + COLUMNS), min, max);
  }
  return out;
}

function ago(elapsed: number): string {
  if (elapsed < 60) return `${elapsed}s`;
  if (elapsed < 3600) return `${Math.floor(elapsed / 60)}m`;
  if (elapsed < 86_400) return `${Math.floor(elapsed / 3600)}h`;
  return `${Math.floor(elapsed / 86_400)}d`;
}

/** sparklineRenderRange: rows from the top, then a blank line, then the labels one character a row. */
function renderRange(samples: readonly Sample[], min: number, max: number): string {
  const steps = FILL.length * ROWS;
  const relmax = max - min === 0 ? 1 : max - min;
  let out = '';
  for (let row = 0; ; row++) {
    let loop = false;
    const chars: string[] = new Array<string>(samples.length).fill(' ');
    for (let j = 0; j < samples.length; j++) {
      const s = samples[j]!;
      let step = Math.trunc(((s.value - min) * steps) / relmax);
      if (step < 0) step = 0;
      if (step >= steps) step = steps - 1;
      if (row < ROWS) {
        loop = true;
        const idx = step - (ROWS - row - 1) * FILL.length;
        if (idx >= 0 && idx < FILL.length) chars[j] = FILL[idx]!;
        else if (idx >= FILL.length) chars[j] = '|';
      } else {
        // One blank row between the graph and the labels (every sample has one).
        if (row - ROWS < 1) {
          loop = true;
          break;
        }
        const at = row - ROWS - 1;
        if (s.label.length > at) {
          loop = true;
          chars[j] = s.label[at]!;
        }
      }
    }
    if (!loop) break;
    out += `${chars.join('')}\n`;
  }
  return out;
}
