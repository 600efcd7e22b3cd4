import {
  checkPageHeader,
  createRecordSpace,
  flagsOf,
  type HybridLog,
  PAGE_HEADER_SIZE,
  PageCheck,
  pageChecksumMatches,
  pageUsedOf,
  RecordFlag,
  type RecordSpace,
  type RecordVisitor,
  slotSize,
  spaceOverBytes,
} from '@strata/hlog';
import { type Frame, PageReader, type ReadMode, readMode } from '@strata/pagebuf';
import type { PageContext } from './page-context.js';
import type { PageSummaries, SummaryQuery } from './page-summaries.js';
import { ScanError } from './scan-error.js';

/**
 * Iterates the records of the log over `[from, to)`, wherever they live:
 * pages at or above `head` straight from the log's ring, older pages from
 * the device through a pagebuf `PageReader` (frames of whole pages, walked in
 * place: no copy, no page assembly). Each record goes to a visitor as
 * hlog's `RecordVisitor`: typed views over the ring or the frame, valid
 * during the call only, so nothing is allocated per record. Device pages are
 * checked with hlog's own page checks (`checkPageHeader`,
 * `pageChecksumMatches`), the ones its `scanLog` makes.
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
 * It never stops early.
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
}

export interface LogIteratorOptions {
  /** Device read mode. Default single buffering (bounded work); whole-log work passes `wholeLogMode`. */
  mode?: ReadMode;
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

export class LogIterator {
  readonly mode: ReadMode;
  /** The page being walked (one object, rewritten: no allocation per page). */
  readonly page: PageContext;
  private reader: PageReader | null = null;
  private views: RecordSpace | null = null;
  private viewsOf: Buffer | null = null;
  private scratch: RecordSpace | null = null;
  /** The reader's current frame, valid until the reader is called again. */
  private lastFrame: Frame | null = null;
  /** Frames walked again without a read (a call resuming in the previous call's page). */
  reusedFrames = 0;
  private closed = false;

  constructor(
    private readonly log: HybridLog,
    options: LogIteratorOptions = {},
  ) {
    this.mode = options.mode ?? readMode.single();
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
      if ((flags & RecordFlag.VALID) === 0) break;
      const size = slotSize(rec, off);
      if (size < 16) break;
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
    const reader = this.readerFor(page, runEnd);
    let skipUntil = 0;
    let a = page;
    // The frame of the previous call is still valid until the reader is
    // called again, and device pages never change: a call that resumes in
    // the page the last one stopped in (small COUNTs) walks it again unread.
    const last = this.lastFrame;
    let frame: Frame | null =
      last !== null && page >= last.address && page < last.end ? last : null;
    let seekTo = frame === null ? page : -1;
    let reused = frame !== null;
    for (;;) {
      if (frame === null) {
        this.lastFrame = null;
        let step: IteratorResult<Frame, undefined>;
        try {
          if (seekTo >= 0) {
            if (seekTo >= runEnd) break;
            await reader.seek(seekTo, runEnd);
            seekTo = -1;
          }
          step = await reader.next();
        } catch (e) {
          // Truncated by compaction while we read: resume at `begin`.
          if (log.begin > a) return log.begin;
          throw e;
        }
        if (step.done === true) break;
        frame = step.value;
        this.lastFrame = frame;
      } else {
        this.reusedFrames++;
      }
      const first = Math.max(frame.address, Math.floor(page / P) * P);
      for (let pg = first; pg < frame.end; pg += P) {
        a = pg + P;
        if (pg < skipUntil) continue;
        const avail = Math.min(P, frame.end - pg);
        const rec = this.viewsFor(frame, pg, avail);
        const base = rec === this.scratch ? 0 : frame.offset + (pg - frame.address);
        if (avail < PAGE_HEADER_SIZE) continue;
        const check = checkPageHeader(rec, base, pg, 0, avail);
        // A page without our header (a foreign cursor inside a blob) is skipped.
        if (
          check === PageCheck.EMPTY ||
          check === PageCheck.NO_HEADER ||
          check === PageCheck.ADDRESS_MISMATCH
        ) {
          continue;
        }
        const used = pageUsedOf(rec, base);
        if (check === PageCheck.BLOB || check === PageCheck.BAD_BLOB_LENGTH) {
          summaries?.observeBlob(pg, Math.ceil(used / P));
          skipUntil = pg + Math.ceil(used / P) * P;
          a = skipUntil;
          continue;
        }
        if (check !== PageCheck.RECORDS) {
          throw new ScanError('ERR_CORRUPT', `bad page length at ${pg}`, { address: pg });
        }
        if (!pageChecksumMatches(rec, base)) {
          throw new ScanError('ERR_CORRUPT', `page checksum mismatch at ${pg}`, { address: pg });
        }
        const ctx = this.page;
        ctx.address = pg;
        ctx.rec = rec;
        ctx.base = base;
        ctx.used = used;
        ctx.onDisk = true;
        result.diskPages++;
        summaries?.observe(ctx);
        const next =
          options.walker !== undefined
            ? options.walker.walkPage(rec, base, pg, used, from, to, result)
            : this.walk(rec, base, pg, used, from, to, options.onRecord, result);
        if (options.onPage !== undefined) await options.onPage(ctx);
        if (result.stopped) return next;
        // A record at or past `to` ends the range.
        if (next < pg + P) return to;
      }
      // After a reused frame the reader (positioned for the last call's
      // range) is moved to where this call goes on.
      if (reused) seekTo = a;
      reused = false;
      frame = null;
    }
    return Math.max(a, runEnd);
  }

  private readerFor(start: number, end: number): PageReader {
    if (this.reader === null) {
      this.reader = new PageReader({
        device: this.log.device,
        start,
        end,
        pageSize: this.log.pageSize,
        mode: this.mode,
      });
    }
    return this.reader;
  }

  /** Typed views over the frame's buffer (cached per buffer), or an aligned copy of the page. */
  private viewsFor(frame: Frame, pg: number, avail: number): RecordSpace {
    if (this.viewsOf !== frame.buffer) {
      this.views = spaceOverBytes(frame.buffer);
      this.viewsOf = frame.buffer;
    }
    if (this.views !== null) return this.views;
    // Frames come from 8-aligned slabs, so this is a fallback only.
    if (this.scratch === null) this.scratch = createRecordSpace(this.log.pageSize);
    const off = frame.offset + (pg - frame.address);
    frame.buffer.copy(this.scratch.bytes, 0, off, off + avail);
    return this.scratch;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.lastFrame = null;
    const reader = this.reader;
    this.reader = null;
    if (reader !== null) await reader.close();
  }
}
