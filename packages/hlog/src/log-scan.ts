import type { Device } from '@strata/io';
import { type ReadMode, readMode } from '@strata/pagebuf';
import { LogPage, LogPages } from './log-pages.js';
import { PAGE_HEADER_SIZE, PageCheck } from './page-header.js';
import { type RecordSpace, slotSize } from './record-layout.js';

/**
 * Whole-log scan from the device: pages in order, each verified (magic,
 * own address, epoch never going down, checksum) before its records are
 * handed out. The scan ends at the device's end or at a torn tail: bad
 * pages after which the log holds nothing valid that a crash could not have
 * left there; `cutAt` then says where the valid log stops, so the caller
 * writes over the bad pages rather than ever serving them.
 *
 * Bad pages followed by valid ones are damage in the middle of the log, not
 * a torn tail. With `damage: 'cut'` (the default: compaction, which must not
 * drop what it could not read) the scan stops there as at a torn tail; with
 * `damage: 'skip'` (recovery) the bad pages are passed over, reported in
 * `skipped`, and the scan goes on with the records after them.
 *
 * What a crash can leave: page writes are issued in order but several are in
 * flight at once (libuv's pool runs 4 by default), so the last pages written
 * may be torn or missing with a few valid ones after them, all of the last
 * session's epoch. Bad pages are a torn tail when every valid page after
 * them is of the same epoch and within `TORN_TAIL_PAGES` of the first bad
 * one; a valid page further on, or of a later session, makes them damage.
 *
 * The pages come from `LogPages`, the one reader that verifies them; this is
 * the recovery policy on top: epochs never going down, a torn tail cut, mid-log
 * damage skipped or cut, a resync past the inside of a blob where a segment
 * may start in one.
 */

/** Pages after a bad one within which valid pages of the same epoch can still be a torn tail. */
export const TORN_TAIL_PAGES = 16;

/** A run of bad pages in the middle of the log, passed over by a scan. */
export interface SkippedPages {
  /** Address of the first bad page. */
  address: number;
  /** Pages in the run (the run is `[address, address + pages * pageSize)`). */
  pages: number;
  /** Why its first page failed. */
  reason: string;
}

/**
 * A record, handed out in place: `space` views the bytes that hold it (a
 * page buffer, the log's ring, a pagebuf frame), valid during the call only,
 * and `offset` is where it starts in them. Return false to stop after it.
 * Every log reader (`scanLog`, @strata/scan's `LogIterator`) takes this type.
 */
export type RecordVisitor = (space: RecordSpace, offset: number, address: number) => boolean;

export interface LogScanOptions {
  device: Device;
  pageSize: number;
  /** Page-aligned start. */
  from: number;
  /** Default: the device's end. */
  to?: number;
  mode?: ReadMode;
  /** Skip pages until the first valid header (a scan starting inside a blob). */
  resync?: boolean;
  /** Pages with a lower epoch are stale (from before a cut). */
  minEpoch?: number;
  /**
   * Check each records page's checksum (default true). False only for a
   * range this process verified already and that is never written again.
   */
  verify?: boolean;
  /**
   * Bad pages followed by valid ones (see above): 'cut' ends the scan at
   * them (default), 'skip' passes over them and reports them in `skipped`.
   */
  damage?: 'cut' | 'skip';
  /** Below this address no page is a torn tail (the log there was synced): bad ones are skipped. */
  durableUntil?: number;
  /** Runs to pass over unread (found bad by an earlier scan of the same range), in address order. */
  skip?: readonly SkippedPages[];
  onRecord: RecordVisitor;
  /**
   * Called after the records of a page were visited, while the page's bytes
   * are still valid (a visitor that batches per page finishes the batch).
   */
  onPageEnd?: (space: RecordSpace) => void;
  /** Called with the address of each blob met (its checksum is checked later, at its end). */
  onBlob?: (address: number) => void;
  /** Called between pages; a promise pauses the scan (back-pressure, yielding). */
  onPage?: (address: number) => void | Promise<void>;
}

export interface LogScanResult {
  /**
   * First page address after the valid log: where writing resumes. After a
   * visitor stopped the scan: the address after that record.
   */
  end: number;
  /** A visitor returned false (the scan ended there; no cut). */
  stopped: boolean;
  /** Set when a bad page stopped the scan before the device's end. */
  cutAt: number | null;
  reason: string | null;
  /** Runs of bad pages passed over (`damage: 'skip'`, and the `skip` option's), in address order. */
  skipped: SkippedPages[];
  pages: number;
  records: number;
  maxEpoch: number;
  bytesRead: number;
}

/** Default read mode of whole-log work: adaptive read-ahead. */
export function defaultScanMode(pageSize: number): ReadMode {
  return readMode.adaptive({ minReadSize: Math.max(128 * 1024, pageSize) });
}

export async function scanLog(options: LogScanOptions): Promise<LogScanResult> {
  const { device, pageSize: P, from, onRecord, onPageEnd, onBlob, onPage } = options;
  const to = options.to ?? device.endAddress;
  const resync = options.resync ?? false;
  const result: LogScanResult = {
    end: from,
    stopped: false,
    cutAt: null,
    reason: null,
    skipped: [],
    pages: 0,
    records: 0,
    maxEpoch: options.minEpoch ?? 0,
    bytesRead: 0,
  };
  if (to <= from) return result;
  const pages = new LogPages({
    device,
    pageSize: P,
    start: from,
    end: to,
    mode: options.mode ?? defaultScanMode(P),
    verify: options.verify ?? true,
  });
  pages.minEpoch = result.maxEpoch;
  const skip = options.skip ?? [];
  let skipAt = 0;
  /** Bad pages below this address are known to be followed by valid ones. */
  let damagedUntil = from;
  try {
    let lastPause = from;
    for (;;) {
      while (skipAt < skip.length && pages.position >= skip[skipAt]!.address) {
        const run = skip[skipAt++]!;
        const after = run.address + run.pages * P;
        if (pages.position < after) {
          noteSkipped(result.skipped, pages.position, (after - pages.position) / P, run.reason, P);
          pages.seek(after, to);
        }
      }
      if (onPage !== undefined && pages.frameDone && pages.position !== lastPause) {
        lastPause = pages.position;
        await onPage(pages.position);
      }
      if (!(pages.nextInFrame() ?? (await pages.next()))) {
        result.end = pages.position;
        break;
      }
      const kind = pages.kind;
      if (kind === LogPage.RECORDS) {
        const { rec, base } = pages;
        const end = base + pages.used;
        let off = base + PAGE_HEADER_SIZE;
        let more = true;
        while (more && off < end) {
          const size = slotSize(rec, off);
          more = onRecord(rec, off, pages.address + (off - base));
          result.records++;
          off += size;
        }
        onPageEnd?.(rec);
        accept(pages, result, 1);
        if (!more) {
          result.stopped = true;
          result.end = pages.address + (off - base);
          break;
        }
      } else if (kind === LogPage.BLOB) {
        onBlob?.(pages.address);
        accept(pages, result, pages.blobPages);
      } else if (kind === LogPage.BAD) {
        // Not a page start yet (a first segment starting inside a blob): try the next page.
        const at = pages.address;
        const check = pages.check;
        const reason = pages.reason ?? 'bad page';
        const notAPage = check === PageCheck.NO_HEADER || check === PageCheck.ADDRESS_MISMATCH;
        if (resync && result.pages === 0 && notAPage) continue;
        if (options.damage === 'skip') {
          if (at < damagedUntil) {
            noteSkipped(result.skipped, at, 1, reason, P);
            continue;
          }
          const durable = options.durableUntil ?? 0;
          const valid =
            at < durable ? durable : await validPageAfter(pages, at, result.maxEpoch, to);
          if (valid !== null) {
            // Damage, not a torn tail (valid pages follow, or the log was
            // synced there): go on after the bad page (the pages up to
            // `valid` are read again; some of them may be good).
            damagedUntil = valid;
            noteSkipped(result.skipped, at, 1, reason, P);
            pages.seek(at + P, to);
            continue;
          }
        }
        result.end = at;
        // An empty page (never written) at the very end is the normal end.
        if (check !== PageCheck.EMPTY || at + P < to) {
          result.cutAt = at;
          result.reason = reason;
        }
        break;
      } else {
        result.end = pages.address;
        // A blob crossing the end of a bounded scan: nothing in it to visit.
        if (!(pages.check === PageCheck.BLOB && options.to !== undefined)) {
          result.cutAt = pages.address;
          result.reason = pages.reason;
        }
        break;
      }
    }
  } finally {
    result.bytesRead = pages.bytesRead;
    await pages.close();
  }
  return result;
}

/**
 * Looks past the bad page at `bad` for a valid page that a crash could not
 * have left after a torn tail: one of a later epoch than `epoch` (the last
 * accepted page's), or one at least `TORN_TAIL_PAGES` further on. Returns its
 * address, or null when there is none before `to` (a torn tail). Moves
 * `pages` on; the caller seeks it back.
 */
async function validPageAfter(
  pages: LogPages,
  bad: number,
  epoch: number,
  to: number,
): Promise<number | null> {
  const far = bad + TORN_TAIL_PAGES * pages.pageSize;
  while (pages.position < to && (pages.nextInFrame() ?? (await pages.next()))) {
    const kind = pages.kind;
    if (kind === LogPage.SHORT) return null;
    if (kind !== LogPage.RECORDS && kind !== LogPage.BLOB) continue;
    if (pages.epoch > epoch || pages.address >= far) return pages.address;
  }
  return null;
}

/** Adds `count` bad pages at `address` to `skipped`, joining the run they continue. */
function noteSkipped(
  skipped: SkippedPages[],
  address: number,
  count: number,
  reason: string,
  pageSize: number,
): void {
  const last = skipped[skipped.length - 1];
  if (last !== undefined && last.address + last.pages * pageSize === address) last.pages += count;
  else skipped.push({ address, pages: count, reason });
}

/** A page (or blob of `count` pages) was used: later pages must not be older. */
function accept(pages: LogPages, result: LogScanResult, count: number): void {
  result.pages += count;
  result.maxEpoch = pages.epoch;
  pages.minEpoch = pages.epoch;
}
