export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

/** A short size label for variant names: 16384 -> `16k`, 8 MiB -> `8m`, 1 GiB -> `1g`. */
export function sizeLabel(bytes: number): string {
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB}g`;
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB}m`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB}k`;
  return `${bytes}b`;
}

/** Megabytes (10^6 bytes) per second. */
export function mbPerSecond(bytes: number, milliseconds: number): number {
  return bytes / 1e6 / (milliseconds / 1000);
}

/** The smallest power of two >= n (n >= 1). */
export function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
