import { crc32 } from 'node:zlib';
import type { Device } from '@strata/io';
import { PageReader, type ReadMode, readMode } from '@strata/pagebuf';
import {
  checkPageHeader,
  PAGE_HEADER_SIZE,
  PageCheck,
  pageChecksumMatches,
  pageChecksumOf,
  pageEpochOf,
  pageUsedOf,
} from './page-header.js';
import {
  createRecordSpace,
  flagsOf,
  RecordFlag,
  type RecordSpace,
  slotSize,
} from './record-layout.js';

/**
 * Whole-log scan from the device: pages in order, each verified (magic,
 * own address, epoch never going down, checksum) before its records are
 * handed out. The scan ends at the device's end or at the first page that
 * fails; `cutAt` then says where the valid log stops, so the caller writes
 * over the bad page rather than ever serving it.
 *
 * Frames from pagebuf's reader (adaptive read-ahead by default) may end
 * mid-page; a page is assembled into one page-sized buffer (with aligned
 * u32/f64 views for the record accessors), which costs one memcpy per byte.
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

/** Why `checkPageHeader`'s failures stop a scan (STALE's reason names the epochs). */
const HEADER_FAILURES: Readonly<Record<PageCheck, string>> = {
  [PageCheck.RECORDS]: '',
  [PageCheck.BLOB]: '',
  [PageCheck.EMPTY]: 'empty page',
  [PageCheck.NO_HEADER]: 'no page header',
  [PageCheck.ADDRESS_MISMATCH]: 'page address mismatch',
  [PageCheck.STALE]: 'stale page',
  [PageCheck.BAD_LENGTH]: 'bad page length',
  [PageCheck.BAD_BLOB_LENGTH]: 'bad blob length',
};

const S_HEADER = 0;
const S_PAGE = 1;
const S_BLOB = 2;

class PageScanner {
  private readonly P: number;
  private readonly page: RecordSpace;
  private state = S_HEADER;
  /** Start of the page (or blob) being assembled. */
  pageStart: number;
  private have = 0;
  private need = PAGE_HEADER_SIZE;
  private blobCrc = 0;
  private blobExpected = 0;
  private blobRemaining = 0;
  private blobPages = 0;
  epoch: number;
  stopped = false;
  /** Set with `stopped` when a visitor stopped the scan: the next record's address. */
  visitorStop = -1;
  reason: string | null = null;
  pages = 0;
  records = 0;

  constructor(
    P: number,
    from: number,
    minEpoch: number,
    private readonly onRecord: RecordVisitor,
    private readonly onBlob: ((address: number) => void) | undefined,
    private readonly onPageEnd: ((space: RecordSpace) => void) | undefined,
  ) {
    this.P = P;
    this.page = createRecordSpace(P);
    this.pageStart = from;
    this.epoch = minEpoch;
  }

  /** Address of the next byte the scanner wants. */
  get cursor(): number {
    return this.state === S_BLOB
      ? this.pageStart + PAGE_HEADER_SIZE + (this.blobExpected - this.blobRemaining)
      : this.pageStart + this.have;
  }

  feed(buf: Uint8Array, off: number, address: number, length: number): void {
    let a = address;
    let o = off;
    const end = address + length;
    while (!this.stopped && a < end) {
      const want = this.cursor;
      if (want > a) {
        // Skip bytes we do not need (a page's unused tail).
        const skip = Math.min(want - a, end - a);
        a += skip;
        o += skip;
        continue;
      }
      if (this.state === S_BLOB) {
        const n = Math.min(this.blobRemaining, end - a);
        this.blobCrc = crc32(buf.subarray(o, o + n), this.blobCrc);
        this.blobRemaining -= n;
        a += n;
        o += n;
        if (this.blobRemaining === 0) this.endBlob();
        continue;
      }
      const n = Math.min(this.need - this.have, end - a);
      this.page.bytes.set(buf.subarray(o, o + n), this.have);
      this.have += n;
      a += n;
      o += n;
      if (this.have === this.need) {
        if (this.state === S_HEADER) this.onHeader();
        else this.onPage();
      }
    }
  }

  resync = false;
  verify = true;

  private stop(reason: string): void {
    if (
      this.resync &&
      this.pages === 0 &&
      this.state === S_HEADER &&
      (reason === 'no page header' || reason === 'page address mismatch')
    ) {
      // Not a page start yet (inside a blob): try the next page.
      this.next(this.pageStart + this.P);
      return;
    }
    this.stopped = true;
    this.reason = reason;
  }

  private onHeader(): void {
    const s = this.page;
    const check = checkPageHeader(s, 0, this.pageStart, this.epoch, this.P);
    if (check === PageCheck.STALE) {
      this.stop(`stale page (epoch ${pageEpochOf(s, 0)} < ${this.epoch})`);
      return;
    }
    if (check !== PageCheck.RECORDS && check !== PageCheck.BLOB) {
      this.stop(HEADER_FAILURES[check]);
      return;
    }
    const used = pageUsedOf(s, 0);
    this.pendingEpoch = pageEpochOf(s, 0);
    if (check === PageCheck.BLOB) {
      this.state = S_BLOB;
      this.blobExpected = used - PAGE_HEADER_SIZE;
      this.blobRemaining = this.blobExpected;
      this.blobPages = Math.ceil(used / this.P);
      this.blobCrc = crc32(s.bytes.subarray(8, PAGE_HEADER_SIZE));
      this.onBlob?.(this.pageStart);
      if (this.blobRemaining === 0) this.endBlob();
      return;
    }
    this.state = S_PAGE;
    this.need = used;
    if (this.have === this.need) this.onPage();
  }

  private pendingEpoch = 0;

  private endBlob(): void {
    if (this.blobCrc !== pageChecksumOf(this.page, 0)) {
      this.stop('blob checksum mismatch');
      return;
    }
    this.epoch = this.pendingEpoch;
    this.pages += this.blobPages;
    this.next(this.pageStart + this.blobPages * this.P);
  }

  private onPage(): void {
    const s = this.page;
    const used = this.need;
    if (this.verify && !pageChecksumMatches(s, 0)) {
      this.stop('page checksum mismatch');
      return;
    }
    // Structure first, so a page is applied whole or not at all.
    let off = PAGE_HEADER_SIZE;
    while (off < used) {
      if ((flagsOf(s, off) & RecordFlag.VALID) === 0) {
        this.stop('bad record');
        return;
      }
      const size = slotSize(s, off);
      if (size < 16 || size % 8 !== 0 || off + size > used) {
        this.stop('bad record size');
        return;
      }
      off += size;
    }
    off = PAGE_HEADER_SIZE;
    let more = true;
    while (more && off < used) {
      const size = slotSize(s, off);
      more = this.onRecord(s, off, this.pageStart + off);
      this.records++;
      off += size;
    }
    this.onPageEnd?.(s);
    this.epoch = this.pendingEpoch;
    this.pages++;
    if (!more) {
      this.stopped = true;
      this.visitorStop = this.pageStart + off;
      return;
    }
    this.next(this.pageStart + this.P);
  }

  private next(address: number): void {
    this.pageStart = address;
    this.state = S_HEADER;
    this.have = 0;
    this.need = PAGE_HEADER_SIZE;
  }

  get inBlob(): boolean {
    return this.state === S_BLOB;
  }

  /** At the end of the stream: is a page half read? */
  get midPage(): boolean {
    return this.have > 0 || this.state !== S_HEADER;
  }
}

/** Default read mode of whole-log work: adaptive read-ahead. */
export function defaultScanMode(pageSize: number): ReadMode {
  return readMode.adaptive({ minReadSize: Math.max(128 * 1024, pageSize) });
}

export async function scanLog(options: LogScanOptions): Promise<LogScanResult> {
  const { device, pageSize: P, from } = options;
  const to = options.to ?? device.endAddress;
  const scanner = new PageScanner(
    P,
    from,
    options.minEpoch ?? 0,
    options.onRecord,
    options.onBlob,
    options.onPageEnd,
  );
  scanner.resync = options.resync ?? false;
  scanner.verify = options.verify ?? true;
  let bytesRead = 0;
  if (to > from) {
    const reader = new PageReader({
      device,
      start: from,
      end: to,
      pageSize: P,
      mode: options.mode ?? defaultScanMode(P),
    });
    try {
      let lastPage = -1;
      for await (const frame of reader) {
        bytesRead += frame.length;
        scanner.feed(frame.buffer, frame.offset, frame.address, frame.length);
        if (scanner.stopped) break;
        if (options.onPage !== undefined && scanner.pageStart !== lastPage) {
          lastPage = scanner.pageStart;
          await options.onPage(scanner.pageStart);
        }
      }
    } finally {
      await reader.close();
    }
  }
  let cutAt: number | null = null;
  let reason = scanner.reason;
  if (scanner.visitorStop >= 0) {
    // Stopped by a visitor: the log is fine, the caller had enough.
  } else if (scanner.stopped) {
    // An empty page (never written) at the very end is the normal end.
    cutAt = reason === 'empty page' && scanner.pageStart + P >= to ? null : scanner.pageStart;
    if (cutAt === null) reason = null;
  } else if (scanner.inBlob && options.to !== undefined) {
    // A blob crossing the end of a bounded scan: nothing in it to visit.
  } else if (scanner.midPage) {
    cutAt = scanner.pageStart;
    reason = 'page cut short by the end of the device';
  }
  return {
    end: scanner.visitorStop >= 0 ? scanner.visitorStop : scanner.pageStart,
    stopped: scanner.visitorStop >= 0,
    cutAt,
    reason,
    pages: scanner.pages,
    records: scanner.records,
    maxEpoch: scanner.epoch,
    bytesRead,
  };
}
