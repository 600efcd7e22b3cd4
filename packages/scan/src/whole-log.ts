import { copyKey, expiresAtOf, type StoreCore } from '@strata/hlog';
import type { ReadMode } from '@strata/pagebuf';
import { LiveWalker } from './live-walker.js';
import type { LiveVisitor } from './liveness.js';
import { LivenessChecker } from './liveness.js';
import { LogIterator, type PageContext, wholeLogMode } from './log-iterator.js';
import type { PageSummaries } from './page-summaries.js';
import { PendingChecks } from './pending-checks.js';
import { compileFilter, type FilterOptions } from './record-filter.js';

/**
 * Whole-log queries (DBSIZE, KEYS, INFO keyspace) as Garnet runs them: a
 * lookup-based pass over the whole log, each record checked for liveness.
 * The device part reads ahead (adaptive by default; `mode` overrides it),
 * and the pass yields to the event loop every `sliceMs`, so a server stays
 * responsive during a long scan.
 */

export interface WholeLogOptions {
  /** Device read mode. Default adaptive read-ahead (never below a page per read). */
  mode?: ReadMode;
  /** Clock for expiry, ms since the epoch. Default Date.now. */
  clock?: () => number;
  /**
   * Longest run without yielding to the event loop, in ms. Default 2: a
   * PING must answer within 10 ms, and a slice can overrun by a page's work
   * plus timer slop; yielding costs a few percent at this size.
   */
  sliceMs?: number;
  /** Page summaries to skip pages by (and fill). */
  summaries?: PageSummaries;
}

export interface KeyspaceInfo {
  keys: number;
  /** Live keys with an expiry. */
  expires: number;
  /** Mean remaining TTL of `expires` keys in ms (0 without any), as INFO's avg_ttl. */
  avgTtl: number;
}

export interface WholeLogStats {
  records: number;
  memoryPages: number;
  diskPages: number;
  skippedPages: number;
  livenessDiskReads: number;
}

const DEFAULT_SLICE_MS = 2;

const yieldNow = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * One pass over `[begin, tail)` calling `onLive` for each live record that
 * passes `filter` (the record's bytes are valid during the call only).
 */
export async function forEachLive(
  store: StoreCore,
  filterOptions: FilterOptions,
  onLive: LiveVisitor,
  options: WholeLogOptions = {},
): Promise<WholeLogStats> {
  return (await livePass(store, filterOptions, onLive, options)).stats;
}

/** DBSIZE by a whole-log pass: the number of live keys. */
export async function countKeys(store: StoreCore, options: WholeLogOptions = {}): Promise<number> {
  return (await livePass(store, {}, null, options)).live;
}

/** The pass itself; `onLive` null only counts (no call per live record). */
async function livePass(
  store: StoreCore,
  filterOptions: FilterOptions,
  onLive: LiveVisitor | null,
  options: WholeLogOptions,
): Promise<{ stats: WholeLogStats; live: number }> {
  const filter = compileFilter(filterOptions);
  const stats: WholeLogStats = {
    records: 0,
    memoryPages: 0,
    diskPages: 0,
    skippedPages: 0,
    livenessDiskReads: 0,
  };
  if (filter.type.kind === 'none') return { stats, live: 0 };
  const log = store.log;
  const iterator = new LogIterator(log, {
    mode: options.mode ?? wholeLogMode(log.pageSize),
    damage: store.damage,
  });
  const liveness = new LivenessChecker(store);
  const pending = new PendingChecks(liveness);
  const now = (options.clock ?? Date.now)();
  const walker = new LiveWalker(store, filter, liveness, pending, iterator.page, now, onLive);
  let resolvedLive = 0;
  const onResolved: LiveVisitor =
    onLive ??
    (() => {
      resolvedLive++;
    });
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  let sliceStart = performance.now();
  const summaries = options.summaries;
  summaries?.catchUp();
  const glob = filter.glob;
  const sieve =
    summaries === undefined
      ? {}
      : {
          summaries,
          query: {
            typeCode: filter.typeCode,
            prefix: glob !== null && !glob.nocase ? glob.literalPrefix : new Uint8Array(0),
            now,
          },
        };
  try {
    const r = await iterator.iterate({
      ...sieve,
      from: log.begin,
      to: log.tail,
      walker,
      onRecord: () => true,
      onPage: async (p: PageContext) => {
        if (pending.count > 0) await pending.resolve(p, onResolved);
        if (performance.now() - sliceStart >= sliceMs) {
          await yieldNow();
          sliceStart = performance.now();
        }
      },
    });
    stats.records = r.records;
    stats.memoryPages = r.memoryPages;
    stats.diskPages = r.diskPages;
    stats.skippedPages = r.skippedPages;
    stats.livenessDiskReads = liveness.diskReads;
    return { stats, live: walker.live + resolvedLive };
  } finally {
    await iterator.close();
  }
}

/** KEYS pattern: every live key matching the glob (owned copies). */
export async function listKeys(
  store: StoreCore,
  pattern: Uint8Array | string,
  options: WholeLogOptions & { nocase?: boolean } = {},
): Promise<Buffer[]> {
  const keys: Buffer[] = [];
  const filter: FilterOptions =
    options.nocase === undefined ? { match: pattern } : { match: pattern, nocase: options.nocase };
  await forEachLive(store, filter, (rec, off) => keys.push(copyKey(rec, off)), options);
  return keys;
}

/** INFO keyspace: keys, keys with an expiry, mean remaining TTL. */
export async function keyspaceInfo(
  store: StoreCore,
  options: WholeLogOptions = {},
): Promise<KeyspaceInfo> {
  const now = (options.clock ?? Date.now)();
  let keys = 0;
  let expires = 0;
  let ttlSum = 0;
  await forEachLive(
    store,
    {},
    (rec, off) => {
      keys++;
      const exp = expiresAtOf(rec, off);
      if (exp !== 0) {
        expires++;
        ttlSum += exp - now;
      }
    },
    { ...options, clock: () => now },
  );
  return { keys, expires, avgTtl: expires === 0 ? 0 : Math.round(ttlSum / expires) };
}

/**
 * Summarizes every final page not summarized yet, in one read-ahead pass
 * (after a restart, say: summaries live in memory only). Returns pages read.
 */
export async function buildSummaries(
  store: StoreCore,
  summaries: PageSummaries,
  options: Pick<WholeLogOptions, 'mode' | 'sliceMs'> = {},
): Promise<number> {
  const log = store.log;
  summaries.catchUp();
  const iterator = new LogIterator(log, {
    mode: options.mode ?? wholeLogMode(log.pageSize),
    damage: store.damage,
  });
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  let sliceStart = performance.now();
  try {
    const r = await iterator.iterate({
      from: log.begin,
      to: Math.floor(log.readOnly / log.pageSize) * log.pageSize,
      summaries,
      query: { typeCode: -1, prefix: new Uint8Array(0), now: 0, skipSummarized: true },
      onRecord: () => true,
      onPage: async () => {
        if (performance.now() - sliceStart >= sliceMs) {
          await yieldNow();
          sliceStart = performance.now();
        }
      },
    });
    return r.diskPages + r.memoryPages;
  } finally {
    await iterator.close();
  }
}
