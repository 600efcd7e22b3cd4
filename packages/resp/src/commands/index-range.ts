/**
 * Redis's start/stop rule for LRANGE, LTRIM and ZRANGE by rank: negative
 * indices count from the end, the window is clamped to [0, size), and it is
 * empty (null) when it crosses or starts past the end.
 */
export function indexWindow(size: number, start0: number, end0: number): [number, number] | null {
  let start = start0 < 0 ? size + start0 : start0;
  let end = end0 < 0 ? size + end0 : end0;
  if (start < 0) start = 0;
  if (start > end || start >= size) return null;
  if (end >= size) end = size - 1;
  return [start, end];
}
