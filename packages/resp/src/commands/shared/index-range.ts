/**
 * Redis's index rules for lists and sorted sets by rank: negative indices
 * count from the end (-1 is the last element).
 */

/** LINDEX / LSET: the index `i` as a position in [0, size), or -1 when it is outside. */
export function indexAt(size: number, i: number): number {
  const at = i < 0 ? size + i : i;
  return at < 0 || at >= size ? -1 : at;
}

/**
 * LRANGE, LTRIM, ZRANGE and ZREMRANGEBYRANK's start/stop: the window is
 * clamped to [0, size), and it is empty (null) when it crosses or starts
 * past the end.
 */
export function indexWindow(size: number, start0: number, end0: number): [number, number] | null {
  let start = start0 < 0 ? size + start0 : start0;
  let end = end0 < 0 ? size + end0 : end0;
  if (start < 0) start = 0;
  if (start > end || start >= size) return null;
  if (end >= size) end = size - 1;
  return [start, end];
}
