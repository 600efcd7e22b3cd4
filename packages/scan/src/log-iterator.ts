import {
  type DamageLog,
  flagsOf,
  type HybridLog,
  LogPage,
  LogPages,
  PAGE_HEADER_SIZE,
  PageCheck,
  pageUsedOf,
  RecordFlag,
  type RecordSpace,
  type RecordVisitor,
  slotSize,
} from '@strata/hlog';
import { type ReadMode, readMode } from '@strata/pagebuf';
import type { PageContext } from './page-context.js';
import type { PageSummaries, SummaryQuery } from './page-summaries.js';
import { ScanError } from './scan-error.js';

/**
 * Iterates the records of the log over `[from, to)`, wherever they live:
 * pages at or above `head` straight from the log's ring, older pages from
 * the device through hlog's `LogPages`, the one reader that verifies them
 * (header, checksum; walked in place in pagebuf's frames). The record
 * structure is checked by the walk itself, slot by slot (BAD_SLOT).
 * A damaged device page (its checksum, its structure, a device ending
 * inside it) is skipped, none of its records visited, and reported
 * (`damagedPages`, the `damage` option): a scan goes on past it rather than
 * failing the whole command. Each record goes to a visitor as hlog's `RecordVisitor`: typed views over
 * the ring or the frame, valid during the call only, so nothing is
 * allocated per record.
 *
 * The region is decided page by page at the moment the page is walked, so a
 * `head` that moves during the iteration (pages evicted while the device was
 * being read) only sends more pages to the device. A range compacted away
 * meanwhile (below `begin`) is skipped: compaction copied its live records
 * to the tail, which is still ahead.
 */

export type { PageContext };

/**
 * Walks one page's records itself: a specialised loop in place of a visitor
 * call per record (whole-log passes). It must visit the records of
 * `rec[base, base + used)` (page address `page`) that end past `from`, skip
 * INVALID ones, count them in `result.records`, and return the address of
 * the first record at or past `to`, or `page + pageSize` after the last one.
 * It never stops early. A slot that is not a whole record (no VALID flag, a
 * size under 16, or running past `used`) makes it return `BAD_SLOT`: device
 * pages reach walkers with their checksum checked but their record
 * structure not (the walk is that check, so a page is not walked twice).
 */
export interface PageWalker {
  walkPage(
    rec: RecordSpace,
    base: number,
    page: number,
    used: number,
    from: number,
    to: number,
    result: IterateResult,
  ): number;
}

/** What a walk returns for a page whose slots are not whole records. */
export const BAD_SLOT = -1;

export interface IterateOptions {
  from: number;
  /** One past the last address (default: the tail when the call starts). */
  to?: number;
  /** Called for each record, unless `walker` is given. */
  onRecord: RecordVisitor;
  /** Walks whole pages instead of calling `onRecord` (see `PageWalker`). */
  walker?: PageWalker;
  /**
   * After each page's records, while its bytes are still valid (so checks
   * batched during the page can still read it). A promise pauses the walk.
   */
  onPage?: (page: PageContext) => void | Promise<void>;
  /** Summaries to fill from the final pages read, and, with `query`, to skip pages by. */
  summaries?: PageSummaries;
  /** Pages whose summary says no record can match this are neither read nor walked. */
  query?: SummaryQuery;
}

export interface IterateResult {
  /** Where to resume: the record after the last visited, or `to`. */
  next: number;
  stopped: boolean;
  records: number;
  memoryPages: number;
  diskPages: number;
  /** Pages skipped on their summary, unread. */
  skippedPages: number;
  /**
   * Device pages skipped as damaged (a checksum or structure that fails, the
   * device ending inside one): none of their records is visited; each is
   * reported to the iterator's `damage`.
   */
  damagedPages: number;
}

export interface LogIteratorOptions {
  /** Device read mode. Default single buffering (bounded work); whole-log work passes `wholeLogMode`. */
  mode?: ReadMode;
  /** Hears each damaged device page the walk skips (the store's `damage` log). */
  damage?: Pick<DamageLog, 'page'>;
}

/** Whole-log reads grow to this size at most (pages larger than it are read whole). */
export const WHOLE_LOG_MAX_READ = 4 * 1024 * 1024;

/**
 * Read-ahead for whole-log work: adaptive, never below one page per read,
 * growing to 4 MiB, two reads ahead of the walk with two device reads
 * outstanding at most, the next issued as soon as one completes. So it is
 * never behind `double` (which has two outstanding only while the caller
 * waits, one while it works) and reads bigger than a small page. Reads stay
 * under Linux's readahead window (8 MiB `read_ahead_kb` on our VM): a
 * buffered read as big as the window gets no asynchronous readahead behind
 * it (8 MiB reads, one at a time, measured 690-790 MB/s where 4 MiB reads
 * gave 1200-1600).
 */
export function wholeLogMode(pageSize: number): ReadMode {
  const minReadSize = Math.max(128 * 1024, pageSize);
  return readMode.adaptive({
    minReadSize,
    maxReadSize: Math.max(minReadSize, WHOLE_LOG_MAX_READ),
    readsAhead: 2,
    concurrentReads: 2,
  });
}

const SKIP_INVALID = RecordFlag.INVALID;

/** Bad pages a scan skips: what a cursor from elsewhere (inside a blob) lands on. */
const NOT_A_PAGE_START: ReadonlySet<PageCheck> = new Set([
  PageCheck.EMPTY,
  PageCheck.NO_HEADER,
  PageCheck.ADDRESS_MISMATCH,
]);

export class LogIterator {
  readonly mode: ReadMode;
  /** The page being walked (one object, rewritten: no allocation per page). */
  readonly page: PageContext;
  /** Device pages, verified by hlog's one reader of them. */
  private pages: LogPages | null = null;
  private readonly damage: Pick<DamageLog, 'page'> | null;
  private closed = false;

  constructor(
    private readonly log: HybridLog,
    options: LogIteratorOptions = {},
  ) {
    this.mode = options.mode ?? readMode.single();
    this.damage = options.damage ?? null;
    this.page = { address: 0, rec: log.ring, base: 0, used: 0, onDisk: false };
  }

  async iterate(options: IterateOptions): Promise<IterateResult> {
    if (this.closed) throw new ScanError('ERR_STORE_CLOSED', 'log iterator is closed');
    const log = this.log;
    const P = log.pageSize;
    const to = options.to ?? log.tail;
    const result: IterateResult = {
      next: to,
      stopped: false,
      records: 0,
      memoryPages: 0,
      diskPages: 0,
      skippedPages: 0,
      damagedPages: 0,
    };
    const summaries = options.summaries;
    const query = options.query;
    let a = options.from;
    while (a < to) {
      if (a < log.begin) a = log.begin;
      if (a >= to) break;
      const page = Math.floor(a / P) * P;
      if (page >= log.head) {
        if (summaries !== undefined && query !== undefined && summaries.cannotMatch(page, query)) {
          result.skippedPages++;
          a = page + P;
          continue;
        }
        const next = this.memoryPage(page, a, to, options.onRecord, options.walker, result);
        if (next === BAD_SLOT) throw badSlot(page);
        if (summaries !== undefined && this.page.used > 0) summaries.observe(this.page);
        if (options.onPage !== undefined) await options.onPage(this.page);
        if (result.stopped) {
          result.next = next;
          return result;
        }
        a = page + P;
      } else {
        const end = Math.min(log.head, Math.ceil(to / P) * P);
        const next = await this.diskRange(page, end, a, to, options, result);
        if (result.stopped) {
          result.next = next;
          return result;
        }
        a = next;
      }
    }
    result.next = to;
    return result;
  }

  /** Walks one in-memory page from `from`; returns where to resume. */
  private memoryPage(
    page: number,
    from: number,
    to: number,
    visit: RecordVisitor,
    walker: PageWalker | undefined,
    result: IterateResult,
  ): number {
    const log = this.log;
    const P = log.pageSize;
    const ring = log.ring;
    const ctx = this.page;
    ctx.address = page;
    ctx.rec = ring;
    ctx.onDisk = false;
    ctx.used = 0;
    // Blob pages are in the address space but have no frame: nothing to walk.
    if (!log.isFramedPage(page / P)) return page + P;
    const base = log.offsetOf(page);
    ctx.base = base;
    // The tail page's header is written when it is sealed; until then `tail` says.
    const used = page === log.tailPageStart ? log.tail - page : pageUsedOf(ring, base);
    ctx.used = used;
    result.memoryPages++;
    if (walker !== undefined) return walker.walkPage(ring, base, page, used, from, to, result);
    return this.walk(ring, base, page, used, from, to, visit, result);
  }

  private walk(
    rec: RecordSpace,
    base: number,
    page: number,
    used: number,
    from: number,
    to: number,
    visit: RecordVisitor,
    result: IterateResult,
  ): number {
    let off = base + PAGE_HEADER_SIZE;
    const end = base + used;
    while (off < end) {
      const flags = flagsOf(rec, off);
      if ((flags & RecordFlag.VALID) === 0) return BAD_SLOT;
      const size = slotSize(rec, off);
      if (size < 16 || off + size > end) return BAD_SLOT;
      const address = page + (off - base);
      if (address >= to) return address;
      // `address + size > from`: a cursor inside a record (stale or foreign)
      // snaps back to that record's start, so it is never skipped.
      if (address + size > from && (flags & SKIP_INVALID) === 0) {
        result.records++;
        if (!visit(rec, off, address)) {
          result.stopped = true;
          return address + size;
        }
      }
      off += size;
    }
    return page + this.log.pageSize;
  }

  /** Walks device pages `[page, end)` from `from`; returns where to resume. */
  private async diskRange(
    page: number,
    end: number,
    from: number,
    to: number,
    options: IterateOptions,
    result: IterateResult,
  ): Promise<number> {
    const log = this.log;
    const P = log.pageSize;
    const summaries = options.summaries;
    const query = options.query;
    let runEnd = end;
    if (summaries !== undefined && query !== undefined) {
      // Read only a run of pages that may match; the next call starts past it.
      while (page < end && summaries.cannotMatch(page, query)) {
        result.skippedPages++;
        page += P;
      }
      if (page >= end) return end;
      const limit = Math.min(end, page + (this.mode.kind === 'single' ? 16 : 256) * P);
      runEnd = page + P;
      while (runEnd < limit && !summaries.cannotMatch(runEnd, query)) runEnd += P;
    }
    const pages = this.pagesFor(page, runEnd);
    /** A page or blob start was met in this run: pages follow each other from there. */
    let synced = false;
    for (;;) {
      try {
        if (!(pages.nextInFrame() ?? (await pages.next()))) break;
      } catch (e) {
        // Truncated by compaction while we read: resume at `begin`.
        if (log.begin > pages.position) return log.begin;
        throw e;
      }
      const pg = pages.address;
      if (pages.kind === LogPage.RECORDS || pages.kind === LogPage.BLOB) synced = true;
      if (pages.kind === LogPage.RECORDS) {
        const ctx = this.page;
        ctx.address = pg;
        ctx.rec = pages.rec;
        ctx.base = pages.base;
        ctx.used = pages.used;
        ctx.onDisk = true;
        result.diskPages++;
        summaries?.observe(ctx);
        const next =
          options.walker !== undefined
            ? options.walker.walkPage(ctx.rec, ctx.base, pg, ctx.used, from, to, result)
            : this.walk(ctx.rec, ctx.base, pg, ctx.used, from, to, options.onRecord, result);
        if (next === BAD_SLOT) {
          // Its checksum held but a slot does not: the rest of it is not walked.
          this.damaged(pg, 'bad record', result);
          continue;
        }
        if (options.onPage !== undefined) await options.onPage(ctx);
        if (result.stopped) return next;
        // A record at or past `to` ends the range.
        if (next < pg + P) return to;
      } else if (pages.kind === LogPage.BLOB) {
        // No records: skipped whole.
        summaries?.observeBlob(pg, pages.blobPages);
      } else if (pages.check === PageCheck.BLOB) {
        // A blob crossing the end of this run: the next run starts after it.
        summaries?.observeBlob(pg, pages.blobPages);
        return Math.max(pg + pages.blobPages * P, runEnd);
      } else if (pages.kind === LogPage.SHORT) {
        // The device ends inside this page (a truncated segment): nothing after it to read.
        this.damaged(pg, pages.reason ?? 'damaged page', result);
        return Math.max(pg + P, runEnd);
      } else if (!NOT_A_PAGE_START.has(pages.check) || synced) {
        // A damaged page is never served: skipped and reported, the walk goes
        // on after it. (Past a good page, pages follow each other: one
        // without a header there, zeros too, is damage, not a blob's inside.)
        this.damaged(pg, pages.reason ?? 'damaged page', result);
      }
      // Else not a page start (a foreign cursor inside a blob): skipped.
    }
    return Math.max(pages.position, runEnd);
  }

  private damaged(page: number, reason: string, result: IterateResult): void {
    result.damagedPages++;
    this.damage?.page(page, reason);
  }

  /** The device reader, moved to `[start, end)` (created on the first call). */
  private pagesFor(start: number, end: number): LogPages {
    if (this.pages === null) {
      this.pages = new LogPages({
        device: this.log.device,
        start,
        end,
        pageSize: this.log.pageSize,
        mode: this.mode,
        // A scan reads no blob's bytes; the reads of the values check them.
        verifyBlobs: false,
        // The walk checks each slot as it goes (BAD_SLOT).
        verifyRecords: false,
      });
    } else {
      this.pages.seek(start, end);
    }
    return this.pages;
  }

  /** Frames walked again without a read (a call resuming in the previous call's page). */
  get reusedFrames(): number {
    return this.pages?.reusedFrames ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pages = this.pages;
    this.pages = null;
    if (pages !== null) await pages.close();
  }
}

function badSlot(page: number): ScanError {
  return new ScanError('ERR_CORRUPT', `bad record at page ${page}`, { address: page });
}
