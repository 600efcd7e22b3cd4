import { copyKey, type RecordSpace, type RecordVisitor, type StoreCore } from '@strata/hlog';
import type { ReadMode } from '@strata/pagebuf';
import { Liveness, LivenessChecker } from './liveness.js';
import { LogIterator } from './log-iterator.js';
import type { PageContext } from './page-context.js';
import type { PageSummaries, SummaryQuery } from './page-summaries.js';
import { PendingChecks } from './pending-checks.js';
import {
  acceptsRecord,
  compileFilter,
  type FilterOptions,
  type RecordFilter,
} from './record-filter.js';
import { ScanError } from './scan-error.js';

/**
 * SCAN with Redis semantics over the hybrid log. The cursor is the log
 * address of the next record to visit (an opaque integer to clients; 0
 * starts and ends an iteration). Why every key present for the whole
 * iteration is returned at least once: a key's newest version is either
 * behind the cursor (then it was live when visited, and returned) or ahead
 * of it; an update or a compaction copy only ever moves it to the tail,
 * which stays ahead; the iteration ends only when the cursor reaches the
 * tail. Keys updated meanwhile may repeat, never vanish.
 *
 * Each call visits at most `10 x COUNT` records (Redis's cap on empty
 * buckets, here on records), so a selective MATCH never walks the whole log
 * in one call; it stops early once COUNT keys are found. Device pages are
 * read single-buffered by default: a call is bounded work.
 */

export interface ScanOptions extends FilterOptions {
  /** Keys wanted per call (a hint, as in Redis). Default 10. */
  count?: number;
}

export interface ScanResult {
  /** 0 when the iteration is complete. */
  cursor: number;
  keys: Buffer[];
}

export interface KeyScannerOptions {
  /** Device read mode for calls. Default single buffering. */
  mode?: ReadMode;
  /** Clock for expiry, ms since the epoch. Default Date.now (pass the store's in tests). */
  clock?: () => number;
  /** Page summaries (shared per store) to skip pages that cannot match, and to fill. */
  summaries?: PageSummaries;
}

const NO_PREFIX = new Uint8Array(0);

/** Records visited per call, per key asked for (Redis: 10 x COUNT). */
export const VISITS_PER_COUNT = 10;

export class KeyScanner {
  private readonly iterator: LogIterator;
  private readonly liveness: LivenessChecker;
  private readonly pending: PendingChecks;
  private readonly clock: () => number;
  // State of the call in progress, read by the pre-bound visitor (no closure per call).
  private filter: RecordFilter = compileFilter();
  private keys: Buffer[] = [];
  private visits = 0;
  private maxVisits = 0;
  private count = 0;
  private now = 0;
  private busy = false;
  private readonly summaries: PageSummaries | undefined;
  private readonly query: SummaryQuery = { typeCode: -1, prefix: NO_PREFIX, now: 0 };

  constructor(
    private readonly store: StoreCore,
    options: KeyScannerOptions = {},
  ) {
    this.iterator = new LogIterator(
      store.log,
      options.mode ? { mode: options.mode, damage: store.damage } : { damage: store.damage },
    );
    this.liveness = new LivenessChecker(store);
    this.pending = new PendingChecks(this.liveness);
    this.clock = options.clock ?? Date.now;
    this.summaries = options.summaries;
  }

  /** Pages skipped on their summary so far, never read. */
  skippedPages = 0;

  /** Device reads made by liveness checks so far (chains crossing device pages). */
  get livenessDiskReads(): number {
    return this.liveness.diskReads;
  }

  async scan(cursor: number, options: ScanOptions = {}): Promise<ScanResult> {
    // Everything that can fail is checked before any work.
    if (!Number.isSafeInteger(cursor) || cursor < 0) {
      throw new ScanError('ERR_INVALID_CURSOR', 'invalid cursor');
    }
    const count = options.count ?? 10;
    if (!Number.isSafeInteger(count) || count < 1) {
      throw new ScanError('ERR_INVALID_ARGUMENT', 'COUNT must be a positive integer');
    }
    const filter = compileFilter(options);
    if (filter.type.kind === 'none') return { cursor: 0, keys: [] };
    if (this.busy)
      throw new ScanError('ERR_INVALID_ARGUMENT', 'one scan call at a time per scanner');
    const log = this.store.log;
    // A cursor below `begin` was compacted away: its live records were
    // copied to the tail, so resuming at `begin` loses nothing. One past the
    // tail is foreign (another log): start over. Mid-record cursors snap to
    // the next record boundary in the page walk.
    let from = cursor === 0 ? log.begin : cursor;
    if (from < log.begin || from > log.tail) from = log.begin;
    const to = log.tail;
    this.filter = filter;
    this.keys = [];
    this.visits = 0;
    this.count = count;
    this.maxVisits = count * VISITS_PER_COUNT;
    this.now = this.clock();
    this.pending.clear();
    const summaries = this.summaries;
    const query = this.query;
    query.typeCode = filter.typeCode;
    query.prefix =
      filter.glob !== null && !filter.glob.nocase ? filter.glob.literalPrefix : NO_PREFIX;
    query.now = this.now;
    this.busy = true;
    try {
      summaries?.catchUp();
      const r = await this.iterator.iterate(
        summaries === undefined
          ? { from, to, onRecord: this.visit, onPage: this.endPage }
          : { from, to, onRecord: this.visit, onPage: this.endPage, summaries, query },
      );
      this.skippedPages += r.skippedPages;
      const keys = this.keys;
      this.keys = [];
      return { cursor: r.next >= to ? 0 : r.next, keys };
    } finally {
      this.busy = false;
    }
  }

  private readonly visit: RecordVisitor = (rec, off, address) => {
    this.visits++;
    if (acceptsRecord(this.filter, rec, off)) {
      const page = this.iterator.page;
      const v = this.liveness.check(rec, off, address, page.onDisk ? page : null, this.now);
      if (v === Liveness.LIVE) this.keys.push(copyKey(rec, off));
      else if (v === Liveness.NEEDS_DISK) this.pending.add(off, address, this.liveness.diskFrom);
    }
    return this.keys.length + this.pending.count < this.count && this.visits < this.maxVisits;
  };

  private readonly onLive = (rec: RecordSpace, off: number): void => {
    this.keys.push(copyKey(rec, off));
  };

  private readonly endPage = (page: PageContext): Promise<void> | undefined =>
    this.pending.count === 0 ? undefined : this.pending.resolve(page, this.onLive);

  async close(): Promise<void> {
    await this.iterator.close();
  }
}
