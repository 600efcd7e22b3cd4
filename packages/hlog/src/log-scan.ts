import type { Device } from '@strata/io';
import { type ReadMode, readMode } from '@strata/pagebuf';
import { LogPage, LogPages } from './log-pages.js';
import { PAGE_HEADER_SIZE, PageCheck } from './page-header.js';
import { type RecordSpace, slotSize } from './record-layout.js';

/**
 * Whole-log scan from the device: pages in order, each verified (magic,
 * own address, epoch never going down, checksum) before its records are
 * handed out. The scan ends at the device's end or at the first page that
 * fails; `cutAt` then says where the valid log stops, so the caller writes
 * over the bad page rather than ever serving it.
 *
 * The pages come from `LogPages`, the one reader that verifies them; this is
 * the recovery policy on top: epochs never going down, a cut at the first bad
 * page, a resync past the inside of a blob where a segment may start in one.
 */

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
  try {
    let lastPause = from;
    for (;;) {
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
        const notAPage =
          pages.check === PageCheck.NO_HEADER || pages.check === PageCheck.ADDRESS_MISMATCH;
        if (resync && result.pages === 0 && notAPage) continue;
        result.end = pages.address;
        // An empty page (never written) at the very end is the normal end.
        if (pages.check !== PageCheck.EMPTY || pages.address + P < to) {
          result.cutAt = pages.address;
          result.reason = pages.reason;
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

/** A page (or blob of `count` pages) was used: later pages must not be older. */
function accept(pages: LogPages, result: LogScanResult, count: number): void {
  result.pages += count;
  result.maxEpoch = pages.epoch;
  pages.minEpoch = pages.epoch;
}
