/** Plain-text formatting for the report table. */

export type Align = 'left' | 'right';

/**
 * Lays out rows in columns padded to the widest cell, separated by two
 * spaces; the first row is the header, underlined with dashes.
 */
export function formatTable(rows: readonly (readonly string[])[], align: readonly Align[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        return align[i] === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  const [header, ...body] = rows;
  if (!header) return '';
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** A number with about four significant digits, never in exponent form for sane values. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (Number.isInteger(n) && abs < 1e15) return String(n);
  if (abs >= 1000) return n.toFixed(0);
  if (abs >= 100) return n.toFixed(1);
  if (abs >= 10) return n.toFixed(2);
  if (abs >= 0.01) return n.toFixed(3);
  return n.toPrecision(3);
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 65536 -> `64 KiB`, 1536 -> `1.5 KiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${UNITS[unit]}`;
}
