import { eqi, parseInteger } from '../../args.js';
import { syntaxError } from '../../errors.js';
import {
  type GetPattern,
  getPattern,
  hasStar,
  type KeyPattern,
  keyPattern,
} from './sort-pattern.js';

/** What a SORT or SORT_RO call asks, parsed as Redis's sortCommandGeneric does. */
export interface SortRequest {
  readonly key: Buffer;
  /** BY with a `*`: the weights' keys; null: the elements are their own weights. */
  readonly by: KeyPattern | null;
  /** BY without a `*` (`BY nosort`): nothing is looked up nor sorted. */
  readonly dontSort: boolean;
  readonly limitStart: number;
  /** -1 (or any negative): to the end. */
  readonly limitCount: number;
  readonly gets: readonly GetPattern[];
  readonly desc: boolean;
  readonly alpha: boolean;
  /** The STORE destination (SORT only; the last one given wins). */
  readonly store: Buffer | null;
}

/**
 * The options from argv[2] on, left to right, the first bad one the error:
 * `LIMIT` with a non-integer is `ERR value is not an integer or out of
 * range`, anything else unknown (STORE in SORT_RO, an option short of its
 * arguments) a syntax error. A later BY replaces an earlier one, as in Redis.
 */
export function parseSort(argv: readonly Buffer[], readonly: boolean): SortRequest {
  let by: KeyPattern | null = null;
  let dontSort = false;
  let limitStart = 0;
  let limitCount = -1;
  const gets: GetPattern[] = [];
  let desc = false;
  let alpha = false;
  let store: Buffer | null = null;
  for (let j = 2; j < argv.length; j++) {
    const a = argv[j]!;
    const left = argv.length - j - 1;
    if (eqi(a, 'asc')) desc = false;
    else if (eqi(a, 'desc')) desc = true;
    else if (eqi(a, 'alpha')) alpha = true;
    else if (eqi(a, 'limit') && left >= 2) {
      limitStart = parseInteger(argv[j + 1]!);
      limitCount = parseInteger(argv[j + 2]!);
      j += 2;
    } else if (!readonly && eqi(a, 'store') && left >= 1) {
      store = argv[++j]!;
    } else if (eqi(a, 'by') && left >= 1) {
      const p = argv[++j]!;
      // Redis sets dontsort for a constant pattern and never clears it.
      if (hasStar(p)) by = keyPattern(p);
      else dontSort = true;
    } else if (eqi(a, 'get') && left >= 1) {
      gets.push(getPattern(argv[++j]!));
    } else throw syntaxError();
  }
  return { key: argv[1]!, by, dontSort, limitStart, limitCount, gets, desc, alpha, store };
}
