import { eqi } from '../../args.js';
import type { KeySpec } from '../../server/command-table.js';

/**
 * SORT's keys as Redis's sortGetKeys finds them: the sorted key, and the
 * last STORE's destination. Options are skipped with their arguments
 * (LIMIT 2, GET 1, BY 1) so a pattern or a count named `store` is no
 * keyword; the keys that BY and GET patterns name are not known from argv.
 */
export function sortKeys(argv: readonly Uint8Array[]): number[] {
  let store = -1;
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i]!;
    if (eqi(a, 'limit')) i += 2;
    else if (eqi(a, 'get') || eqi(a, 'by')) i += 1;
    else if (eqi(a, 'store') && i + 1 < argv.length) store = i + 1;
  }
  return store === -1 ? [1] : [1, store];
}

/** The key a SORT may change: its STORE destination, if any (the sorted key is only read). */
export function sortChangedKeys(argv: readonly Uint8Array[]): number[] {
  return sortKeys(argv).slice(1);
}

const SORTED_KEY: KeySpec = {
  flags: ['RO', 'access'],
  beginIndex: 1,
  findRange: { lastKey: 0, keyStep: 1, limit: 0 },
};

const PATTERN_KEYS: KeySpec = {
  notes:
    "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort",
  flags: ['RO', 'access'],
  beginIndex: 'unknown',
  findRange: 'unknown',
};

const STORE_KEY: KeySpec = {
  notes:
    "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array",
  flags: ['OW', 'update'],
  beginIndex: 'unknown',
  findRange: 'unknown',
};

/** Redis 7.0's key specs of SORT (sort.json) and SORT_RO (sort_ro.json). */
export const SORT_KEY_SPECS: readonly KeySpec[] = [SORTED_KEY, PATTERN_KEYS, STORE_KEY];
export const SORT_RO_KEY_SPECS: readonly KeySpec[] = [SORTED_KEY, PATTERN_KEYS];
