import { ChunkedPageList } from '@strata/pagebuf';
import { defineScenario, lower } from '../scenario.js';
import { median } from '../stats.js';

/**
 * Appending to a page list: the chunked list (fixed-size chunks, no copy of
 * earlier entries) against a naive list that copies the whole array on every
 * append. The claim is the shape of the curve: the cost per append in the
 * last 10% of the appends over the cost in the first 10% (each the median
 * of 16 timed blocks; plain means are reported beside). Flat (~1) for the
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
  /** ns per append over all entries, pauses included. */
  allNs: number;
  /** ns per append in the first and last 10%: the median over 16 blocks of each. */
  firstNs: number;
  lastNs: number;
  /** The same two spans as plain means (one GC pause can move these). */
  firstMeanNs: number;
  lastMeanNs: number;
}

const PAGE = 1 << 20;
const BLOCKS = 16;

// One loop per list type, so each `append` call site stays monomorphic.
function appendChunked(list: ChunkedPageList, from: number, to: number): void {
  for (let i = from; i < to; i++) list.append(i * PAGE);
}

function appendNaive(list: CopyOnAppendList, from: number, to: number): void {
  for (let i = from; i < to; i++) list.append(i * PAGE);
}

/**
 * Appends `n` page addresses. The first and the last 10% are each timed as
 * 16 blocks; a block's median cost per append is robust to a garbage
 * collection pause that the other list's garbage happened to trigger there.
 */
function timeAppends<L>(
  list: L,
  n: number,
  appendRange: (list: L, from: number, to: number) => void,
): AppendTiming {
  const block = Math.max(1, Math.floor(n / 10 / BLOCKS));
  const span = block * BLOCKS;
  const first = new Float64Array(BLOCKS);
  const last = new Float64Array(BLOCKS);
  const timeBlocks = (from: number, into: Float64Array): void => {
    for (let b = 0; b < BLOCKS; b++) {
      const t = performance.now();
      appendRange(list, from + b * block, from + (b + 1) * block);
      into[b] = performance.now() - t;
    }
  };
  const start = performance.now();
  timeBlocks(0, first);
  appendRange(list, span, n - span);
  timeBlocks(n - span, last);
  const allMs = performance.now() - start;
  const perAppend = (ms: number) => (ms * 1e6) / block;
  const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);
  return {
    allNs: (allMs * 1e6) / n,
    firstNs: perAppend(median([...first])),
    lastNs: perAppend(median([...last])),
    firstMeanNs: perAppend(sum(first) / BLOCKS),
    lastMeanNs: perAppend(sum(last) / BLOCKS),
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
      t = timeAppends(list, p.entries, appendChunked);
      if (list.length !== p.entries || list.get(p.entries - 1) !== (p.entries - 1) * PAGE) {
        throw new Error('chunked list lost entries');
      }
    } else {
      const list = new CopyOnAppendList();
      t = timeAppends(list, p.naiveEntries, appendNaive);
      if (list.length !== p.naiveEntries) throw new Error('naive list lost entries');
    }
    return {
      value: t.allNs,
      samples: {
        first_ns: t.firstNs,
        last_ns: t.lastNs,
        last_over_first: t.lastNs / t.firstNs,
        last_over_first_mean: t.lastMeanNs / t.firstMeanNs,
      },
    };
  },

  metrics(results) {
    return {
      chunked_last_over_first: median(results.samples(CHUNKED, 'last_over_first')),
      naive_last_over_first: median(results.samples(NAIVE, 'last_over_first')),
    };
  },
});
