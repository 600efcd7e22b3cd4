/**
 * Human sizes as Redis reads them in redis.conf (memtoll): an integer with
 * an optional unit, case-insensitive. `k`, `m`, `g` are powers of 1000;
 * `kb`, `mb`, `gb` powers of 1024; `b` or no unit is bytes.
 */
const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1000,
  kb: 1024,
  m: 1000 ** 2,
  mb: 1024 ** 2,
  g: 1000 ** 3,
  gb: 1024 ** 3,
};

const SIZE = /^(\d+)([a-z]*)$/i;

/** Bytes, or null when `text` is not a size (or exceeds 2^53). */
export function parseSize(text: string): number | null {
  const m = SIZE.exec(text);
  if (m === null) return null;
  const unit = UNITS[m[2]!.toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Number(m[1]) * unit;
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/**
 * The largest exact unit, so the result parses back to `bytes`:
 * 64 MiB -> `64mb`, 64000000 -> `64m`, 1536 KiB -> `1536kb`, 100 -> `100`.
 */
export function formatSize(bytes: number): string {
  for (const unit of ['gb', 'g', 'mb', 'm', 'kb', 'k'] as const) {
    const size = UNITS[unit]!;
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** An approximate size for humans (logs): `1.23mb`, `512b`. */
export function describeSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}b`;
  const units = ['kb', 'mb', 'gb', 'tb'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number(v.toFixed(2))}${units[i]}`;
}
