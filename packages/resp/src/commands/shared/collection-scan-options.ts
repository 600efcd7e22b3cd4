import type { GlobMatcher } from '@strata/scan';
import { compileGlob } from '@strata/scan';
import { eqi, parseInteger } from '../../args.js';
import { syntaxError } from '../../errors.js';

/**
 * HSCAN / SSCAN / ZSCAN's options and their MATCH test on the latin1
 * strings the structures hold (no Buffer is made per member).
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

/** Redis 7's scanGenericCommand options for a collection (later ones win); `flag`: the command's own flag word, if any. */
export function parseCollectionScan(
  argv: Buffer[],
  from: number,
  flag: string | null,
): CollectionScanOptions {
  const opts: CollectionScanOptions = { count: 10, match: null, flag: false };
  for (let i = from; i < argv.length; ) {
    const a = argv[i]!;
    const more = argv.length - i >= 2;
    if (more && eqi(a, 'count')) {
      const count = parseInteger(argv[i + 1]!);
      if (count < 1) throw syntaxError();
      opts.count = count;
      i += 2;
    } else if (more && eqi(a, 'match')) {
      const g = compileGlob(argv[i + 1]!);
      opts.match = g.matchesAll ? null : g;
      i += 2;
    } else if (flag !== null && eqi(a, flag)) {
      opts.flag = true;
      i += 1;
    } else throw syntaxError();
  }
  return opts;
}

/** Whether the latin1 string `s` matches (no Buffer is made for it). */
export function matches(glob: GlobMatcher | null, s: string): boolean {
  if (glob === null) return true;
  return glob.match(latin1Bytes(s), 0, s.length);
}
