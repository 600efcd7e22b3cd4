import type { GlobMatcher } from '@strata/scan';
import { compileGlob } from '@strata/scan';
import { parseScanWords } from './scan-options.js';

/**
 * HSCAN / SSCAN / ZSCAN's options (the words parsed in scan-options.ts) and
 * their MATCH test on the latin1 strings the structures hold (no Buffer is
 * made per member).
 */

let scratch = Buffer.allocUnsafe(64 << 10);

/** Writes `s` (latin1) into a reused buffer: its bytes are scratch[0, n). */
function latin1Bytes(s: string): Buffer {
  if (s.length > scratch.length)
    scratch = Buffer.allocUnsafe(Math.max(s.length, scratch.length * 2));
  scratch.write(s, 0, 'latin1');
  return scratch;
}

export interface CollectionScanOptions {
  count: number;
  /** null: every member. */
  match: GlobMatcher | null;
  /** The command's own flag was given (HSCAN NOVALUES, ZSCAN NOSCORES). */
  flag: boolean;
}

/** HSCAN / SSCAN / ZSCAN's options; `flag`: the command's own flag word (NOVALUES, NOSCORES), if any. */
export function parseCollectionScan(
  argv: Buffer[],
  from: number,
  flag: string | null,
): CollectionScanOptions {
  const w = parseScanWords(argv, from, { type: false, flag });
  const glob = w.match === null ? null : compileGlob(w.match);
  return {
    count: w.count ?? 10,
    match: glob === null || glob.matchesAll ? null : glob,
    flag: w.flag,
  };
}

/** Whether the latin1 string `s` matches (no Buffer is made for it). */
export function matches(glob: GlobMatcher | null, s: string): boolean {
  if (glob === null) return true;
  return glob.match(latin1Bytes(s), 0, s.length);
}
