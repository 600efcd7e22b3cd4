import { ChunkedPageList } from '@strata/pagebuf';
import { defineScenario, lower } from '../scenario.js';
import { median } from '../stats.js';

/**
 * Appending to a page list: the chunked list (fixed-size chunks, no copy of
 * earlier entries) against a naive list that copies the whole array on every
 * append. The claim is the shape of the curve: the cost per append in the
 * last 10% of the appends over the cost in the first 10%. Flat (~1) for the
 * chunked list; rising with N for the naive one.
 *
 * The naive list appends fewer entries (`naiveEntries`): copying on every
 * append is O(N^2) in total, about 4 TB of copying for 1M 8-byte entries.
 */

type Params = {
  entries: number;
  naiveEntries: number;
  chunkSize: number;
};

const CHUNKED = 'chunked';
const NAIVE = 'naive';

/** A page list kept as one array, copied into a new one on every append. */
class CopyOnAppendList {
  #entries = new Float64Array(0);
  append(value: number): void {
    const next = new Float64Array(this.#entries.length + 1);
    next.set(this.#entries);
    next[this.#entries.length] = value;
    this.#entries = next;
  }
  get length(): number {
    return this.#entries.length;
  }
  get(i: number): number {
    return this.#entries[i]!;
  }
}

interface AppendTiming {
  /** ns per append over all entries. */
  allNs: number;
  firstNs: number;
  lastNs: number;
}

/** Appends `n` page addresses, timing the first and last 10% on their own. */
function timeAppends(n: number, append: (value: number) => void): AppendTiming {
  const tenth = Math.floor(n / 10);
  const pageSize = 1 << 20;
  const start = performance.now();
  for (let i = 0; i < tenth; i++) append(i * pageSize);
  const afterFirst = performance.now();
  for (let i = tenth; i < n - tenth; i++) append(i * pageSize);
  const beforeLast = performance.now();
  for (let i = n - tenth; i < n; i++) append(i * pageSize);
  const end = performance.now();
  return {
    allNs: ((end - start) * 1e6) / n,
    firstNs: ((afterFirst - start) * 1e6) / tenth,
    lastNs: ((end - beforeLast) * 1e6) / tenth,
  };
}

export const pageListAppend = defineScenario<Params>({
  name: 'page-list-append',
  description: 'ns per append, first vs last 10%: chunked page list vs copy-on-append array',
  params: {
    full: { entries: 1_000_000, naiveEntries: 50_000, chunkSize: 4096 },
    ci: { entries: 200_000, naiveEntries: 10_000, chunkSize: 4096 },
  },
  runs: { full: 5, ci: 2 },
  variants: [lower(CHUNKED, 'ns/append'), lower(NAIVE, 'ns/append')],
  ratios: [`${NAIVE}/${CHUNKED}`],

  run(variant, ctx) {
    const p = ctx.params;
    let t: AppendTiming;
    if (variant.name === CHUNKED) {
      const list = new ChunkedPageList({ chunkSize: p.chunkSize });
      t = timeAppends(p.entries, (v) => list.append(v));
      if (list.length !== p.entries || list.get(p.entries - 1) !== (p.entries - 1) * (1 << 20)) {
        throw new Error('chunked list lost entries');
      }
    } else {
      const list = new CopyOnAppendList();
      t = timeAppends(p.naiveEntries, (v) => list.append(v));
      if (list.length !== p.naiveEntries) throw new Error('naive list lost entries');
    }
    return {
      value: t.allNs,
      samples: { first_ns: t.firstNs, last_ns: t.lastNs, last_over_first: t.lastNs / t.firstNs },
    };
  },

  metrics(results) {
    return {
      chunked_last_over_first: median(results.samples(CHUNKED, 'last_over_first')),
      naive_last_over_first: median(results.samples(NAIVE, 'last_over_first')),
    };
  },
});
