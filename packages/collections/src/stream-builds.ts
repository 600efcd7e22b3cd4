import type { CollectionStore } from './collection-store.js';

/**
 * Streams being built outside a collection cache: COPY and MOVE copy a
 * stream's blocks under a new stream ID, RESTORE and the RDB import seal a
 * new stream's blocks, and only then is the head written. Until it is, no
 * head in the log or the cache names those blocks, so the block GC
 * (resp's stream-block-gc.ts) must not sweep while a build into the same
 * cache is in flight: each build holds its cache from before its first
 * block until its head is written (or it failed: its blocks are then
 * orphans for a later pass).
 */
const builds = new WeakMap<CollectionStore, number>();

/** A build in flight; `end()` once its head is written or it failed (once is enough, twice is harmless). */
export interface StreamBuild {
  end(): void;
}

/** Starts a build into `cache`. */
export function beginStreamBuild(cache: CollectionStore): StreamBuild {
  builds.set(cache, (builds.get(cache) ?? 0) + 1);
  let ended = false;
  return {
    end() {
      if (ended) return;
      ended = true;
      builds.set(cache, builds.get(cache)! - 1);
    },
  };
}

/** Builds into `cache` not ended yet. */
export function streamBuildsInFlight(cache: CollectionStore): number {
  return builds.get(cache) ?? 0;
}
