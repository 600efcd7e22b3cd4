import type { CoreState } from './core-state.js';
import { hashKey } from './key-hash.js';

/** Keys one prefetch looks at; more are ignored (a hint only). */
export const PREFETCH_MAX = 64;

/** A cache line in 32-bit words: three from a record's start hold its header, key and a short value. */
const LINE_WORDS = 16;

const hashes = new Float64Array(PREFETCH_MAX);

/**
 * Touches the index buckets of `keys[0, count)`, then their newest records
 * in memory, and returns a number made of what it read (so no load is
 * optimised away). Each pass does only loads that do not depend on each
 * other, so their cache misses overlap; the operations that follow on these
 * keys then hit the cache instead of waiting for two misses each, one after
 * another. A key whose newest record is on the device has its first read
 * started (early-reads.ts), so a run's reads wait on the device together.
 * Changes nothing in the store.
 */
export function prefetchKeys(c: CoreState, keys: readonly Uint8Array[], count: number): number {
  const n = Math.min(count, PREFETCH_MAX);
  const index = c.index;
  for (let i = 0; i < n; i++) hashes[i] = hashKey(keys[i]!);
  let sink = index.touch(hashes, 0, n);
  const log = c.log;
  const head = log.head;
  const u32 = c.ring.u32;
  const lastWord = u32.length - 1;
  // The index entries first (their buckets are cached now), then one tight
  // loop of record loads: more of them in flight at once.
  for (let i = 0; i < n; i++) hashes[i] = index.find(hashes[i]!);
  for (let i = 0; i < n; i++) {
    const a = hashes[i]!;
    if (a < head) {
      // On the device: its read starts now, beside the run's others.
      if (a !== 0 && a >= log.begin) c.earlyReads.start(c, a);
      continue;
    }
    const w = log.offsetOf(a) >>> 2;
    sink ^= u32[w]!;
    if (w + 2 * LINE_WORDS <= lastWord) sink ^= u32[w + LINE_WORDS]! ^ u32[w + 2 * LINE_WORDS]!;
  }
  return sink;
}
