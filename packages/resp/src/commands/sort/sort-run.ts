import type { CollectionValue, List, SetValue, SortedSet } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import { PENDING, type Pending, type SortLookups } from './sort-lookups.js';
import type { SortRequest } from './sort-options.js';
import { patternKey } from './sort-pattern.js';
import { sortScore } from './sort-score.js';

/** What a SORT computed, before anything is published, replied or written. */
export type SortOutcome =
  /** The reply's items in order (null: a GET that found nothing); `existed`: the STORE destination's (null: not asked). */
  | { readonly kind: 'sorted'; readonly items: (string | null)[]; readonly existed: boolean | null }
  /** A weight strtod refuses: `ERR One or more scores can't be converted into double`. */
  | { readonly kind: 'notDouble' };

/**
 * Redis 7.0's sortCommandGeneric as one computation over `env`'s lookups,
 * in its order: the sorted key, the weights (BY) of every element, then
 * the GETs of the elements in the LIMIT range. It returns PENDING when a
 * lookup went to the disk (see SortLookups) and changes nothing itself.
 * `askExisted`: the STORE destination's existence is wanted (its events).
 */
export function computeSort(
  c: Client,
  req: SortRequest,
  env: SortLookups,
  askExisted: boolean,
): SortOutcome | Pending {
  const found = env.sorted(req.key);
  if (found === PENDING && !env.gated) return PENDING;
  // The destination is looked up in the same round (it has no events of its own).
  const existed = req.store !== null && askExisted ? env.exists(req.store) : null;
  if (found === PENDING || existed === PENDING) return PENDING;
  if (found.status === 'wrongType') throw wrongTypeError();
  const value = found.status === 'found' ? found.value : null;
  const isSet = value?.type === RecordType.SET;
  let dontSort = req.dontSort;
  let alpha = req.alpha;
  let by = req.by;
  // A set's own order is no order: SORT ... STORE and scripts sort it (as
  // Redis does for replication); a reply to a client keeps the set's order.
  if (dontSort && isSet && (req.store !== null || c.inScript)) {
    dontSort = false;
    alpha = true;
    by = null;
  }
  const n = value?.size ?? 0;
  let start = Math.min(Math.max(req.limitStart, 0), n);
  const count = Math.min(Math.max(req.limitCount, -1), n);
  let end = count < 0 ? n - 1 : start + count - 1;
  if (start >= n) {
    start = n - 1;
    end = n - 2;
  }
  if (end >= n) end = n - 1;

  const elements: string[] = [];
  if (value !== null) {
    if (dontSort && !isSet) {
      // Lists and sorted sets in their own order: only the LIMIT range is taken.
      rangeOf(value, start, end, req.desc, elements);
      end -= start;
      start = 0;
    } else allOf(value, elements);
  }

  let order: number[] | null = null;
  if (!dontSort) {
    const len = elements.length;
    const scores = alpha ? null : new Float64Array(len);
    const weights: (string | null)[] | null =
      alpha && by !== null ? new Array(len).fill(null) : null;
    let pending = false;
    let notDouble = false;
    for (let j = 0; j < len; j++) {
      let w: string | null;
      if (by !== null) {
        const v = env.pattern(patternKey(by, elements[j]!), by.field);
        if (v === PENDING) {
          if (!env.gated) return PENDING;
          pending = true;
          continue;
        }
        if (v === null) continue;
        w = v;
      } else w = elements[j]!;
      if (weights !== null) weights[j] = w;
      else if (scores !== null) {
        const s = sortScore(w);
        if (s === null) notDouble = true;
        else scores[j] = s;
      }
    }
    if (pending) return PENDING;
    order = sortOrder(elements, scores, weights, req.desc, req.store !== null);
    // Redis sorts, then answers the error: the weights were looked up (their misses stand).
    if (notDouble) return { kind: 'notDouble' };
  }

  const items: (string | null)[] = [];
  let pending = false;
  for (let j = start; j <= end; j++) {
    const e = elements[order === null ? j : order[j]!]!;
    if (req.gets.length === 0) {
      items.push(e);
      continue;
    }
    for (const g of req.gets) {
      if (g.kind === 'self') items.push(e);
      else if (g.kind === 'none') items.push(null);
      else {
        const v = env.pattern(patternKey(g, e), g.field);
        if (v === PENDING) {
          if (!env.gated) return PENDING;
          pending = true;
          continue;
        }
        items.push(v);
      }
    }
  }
  if (pending) return PENDING;
  return { kind: 'sorted', items, existed };
}

/** Every element: a list in order, a set in its iteration order, a sorted set by score. */
function allOf(value: CollectionValue, out: string[]): void {
  if (value.type === RecordType.LIST) {
    const l = value as List;
    l.forRange(0, l.size - 1, (v) => {
      out.push(v);
    });
  } else if (value.type === RecordType.SET) {
    (value as SetValue).forEach((m) => {
      out.push(m);
    });
  } else {
    (value as SortedSet).forEach((_s, m) => {
      out.push(m);
    });
  }
}

/** Elements [start, end] of a list or sorted set in its order, counted from its end with `desc`. */
function rangeOf(
  value: CollectionValue,
  start: number,
  end: number,
  desc: boolean,
  out: string[],
): void {
  if (end < start) return;
  const n = value.size;
  if (value.type === RecordType.LIST) {
    const l = value as List;
    const push = (v: string) => {
      out.push(v);
    };
    if (desc) l.forRangeReverse(n - 1 - start, n - 1 - end, push);
    else l.forRange(start, end, push);
    return;
  }
  const z = value as SortedSet;
  const cur = z.at(desc ? n - 1 - start : start);
  for (let j = start; j <= end && cur.valid; j++) {
    out.push(cur.member);
    if (desc) cur.prev();
    else cur.next();
  }
}

/**
 * The elements' indexes in sorted order, as Redis's sortCompare orders
 * them: by score, equal scores by the elements' bytes; ALPHA by the BY
 * values (a missing one first) or the elements. Without STORE, ALPHA
 * compares with strcoll, which in the C locale Redis runs in is byte order
 * up to a NUL byte; with STORE, by every byte. DESC reverses each compare.
 * The sort is stable, as glibc's qsort (a merge sort) is: ties keep the
 * elements' order. (Redis's partial sort for BY with LIMIT is not stable;
 * the result differs from it only for ALPHA ties of BY values.)
 */
function sortOrder(
  elements: readonly string[],
  scores: Float64Array | null,
  weights: readonly (string | null)[] | null,
  desc: boolean,
  store: boolean,
): number[] {
  const order = Array.from({ length: elements.length }, (_, i) => i);
  const text = store ? compareBytes : compareCollated;
  let compare: (a: number, b: number) => number;
  if (scores !== null) {
    compare = (a, b) => {
      const x = scores[a]!;
      const y = scores[b]!;
      return x > y ? 1 : x < y ? -1 : compareBytes(elements[a]!, elements[b]!);
    };
  } else if (weights !== null) {
    compare = (a, b) => {
      const x = weights[a]!;
      const y = weights[b]!;
      if (x === null || y === null) return x === y ? 0 : x === null ? -1 : 1;
      return text(x, y);
    };
  } else compare = (a, b) => text(elements[a]!, elements[b]!);
  order.sort(desc ? (a, b) => -compare(a, b) : compare);
  return order;
}

/** memcmp, then the shorter first (Redis's compareStringObjects); latin1 strings compare by byte. */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** strcmp: bytes up to the first NUL. */
function compareCollated(a: string, b: string): number {
  const na = a.indexOf('\0');
  const nb = b.indexOf('\0');
  return compareBytes(na === -1 ? a : a.slice(0, na), nb === -1 ? b : b.slice(0, nb));
}
