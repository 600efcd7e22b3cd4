import { crc32 } from 'node:zlib';
import type { Device } from '@strata/io';
import { type Frame, PageReader, type ReadMode } from '@strata/pagebuf';
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
  spaceOverBytes,
} from './record-layout.js';

/**
 * The one reader of device pages: every pass over the log on disk
 * (recovery, compaction, the key recount, @strata/scan's iterator) takes its
 * pages from here, so what "a verified page" means is written once. Each
 * page is checked before anything in it is handed out: magic, its own
 * address, an epoch not below `minEpoch`, its used length, its checksum, and
 * the structure of its records (so a page is used whole or not at all;
 * `verifyRecords: false` leaves that to a caller whose walk checks each slot). A
 * blob's checksum spans all its pages and is checked across frames.
 *
 * Pages are walked in place in pagebuf's frames (typed views over the
 * frame's buffer, cached per buffer): no copy, nothing allocated per page.
 * Only a page split across two frames (a mode whose reads end mid-page) is
 * assembled into one page-sized buffer.
 *
 * What a failure means is the caller's policy: recovery cuts the log at the
 * first bad page; a scan skips pages that are not page starts and throws on
 * a corrupt one. So a bad page is reported, not thrown, and `next()` goes on
 * at the page after it.
 */

/** What the page at `LogPages.address` is. */
export const LogPage = {
  /** A records page that passed every check: `rec[base, base + used)` holds it. */
  RECORDS: 0,
  /** A blob of `blobPages` pages (its checksum checked unless `verifyBlobs` is false); not handed out. */
  BLOB: 1,
  /** A page that failed a check: `check` and `reason` say which. */
  BAD: 2,
  /** The range ends inside this page or blob (a torn end, or a bound mid-blob). */
  SHORT: 3,
} as const;

/** One of LogPage's values. */
export type LogPage = (typeof LogPage)[keyof typeof LogPage];

export interface LogPagesOptions {
  device: Device;
  pageSize: number;
  /** Page-aligned start. */
  start: number;
  /** One past the last address (default: the device's end). */
  end?: number;
  mode: ReadMode;
  /**
   * Check records pages' checksums and record structure (default true).
   * False only for a range this process verified already and that is never
   * written again.
   */
  verify?: boolean;
  /** Read through each blob and check its checksum (default true); false skips its bytes unchecked. */
  verifyBlobs?: boolean;
  /**
   * Check each records page's record structure (default: `verify`). False
   * for a reader that walks every slot itself and reports a bad one.
   */
  verifyRecords?: boolean;
}

/** Why a page failed (`checkPageHeader`'s failures; STALE's reason names the epochs). */
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

/** `rec` before the first page. */
const NO_PAGE = createRecordSpace(8);

export class LogPages {
  readonly pageSize: number;
  private readonly reader: PageReader;
  private readonly verify: boolean;
  private readonly verifyBlobs: boolean;
  private readonly verifyRecords: boolean;
  private end: number;
  /** Address of the next page to report. */
  private cursor: number;
  /** The reader's current frame (valid until the reader is called again). */
  private frame: Frame | null = null;
  /** Where the reader must be moved before its next read (-1: it reads on from where it is). */
  private seekTo = -1;
  private views: RecordSpace | null = null;
  private viewsOf: Buffer | null = null;
  private scratch: RecordSpace | null = null;

  /** Pages of a lower epoch are STALE (from before a cut). The caller raises it as it accepts pages. */
  minEpoch = 0;

  // The page reported by the last `next()`:
  address = 0;
  kind: LogPage = LogPage.BAD;
  /** RECORDS: the page is `rec[base, base + used)`, valid until the next `next()`/`seek()`. */
  rec: RecordSpace;
  base = 0;
  /** RECORDS and BLOB: bytes in use, header included. */
  used = 0;
  epoch = 0;
  /** BLOB: pages it occupies. */
  blobPages = 0;
  /**
   * BAD: the header check that failed (RECORDS when the header was fine and
   * the body was not). SHORT: BLOB when the range ended inside a blob.
   */
  check: PageCheck = PageCheck.RECORDS;
  reason: string | null = null;

  /** Bytes the device handed over so far. */
  bytesRead = 0;
  /** Pages handed out again from a frame already in hand (a seek back into it). */
  reusedFrames = 0;

  constructor(options: LogPagesOptions) {
    this.pageSize = options.pageSize;
    this.verify = options.verify ?? true;
    this.verifyBlobs = options.verifyBlobs ?? true;
    this.verifyRecords = options.verifyRecords ?? this.verify;
    this.cursor = options.start;
    this.end = options.end ?? options.device.endAddress;
    this.reader = new PageReader({
      device: options.device,
      start: options.start,
      end: this.end,
      pageSize: options.pageSize,
      mode: options.mode,
    });
    this.rec = NO_PAGE;
  }

  /** Where the next `next()` starts: the page after the last one reported. */
  get position(): number {
    return this.cursor;
  }

  /** Is the next page beyond the frame in hand (the next `next()` reads the device)? */
  get frameDone(): boolean {
    const f = this.frame;
    return f === null || this.cursor >= f.end;
  }

  /**
   * Goes on at page `address`, reading up to `end`. A page of the frame in
   * hand is handed out again without a read (device pages never change).
   */
  seek(address: number, end: number): void {
    this.end = end;
    const f = this.frame;
    if (f !== null && address >= f.address && address < f.end) {
      this.reusedFrames++;
      // The reader was set up for the last range: move it on after this frame.
      this.seekTo = f.end;
    } else {
      this.frame = null;
      this.seekTo = address;
    }
    this.cursor = address;
  }

  /** Reports the next page (its fields above); false at the end of the range. */
  async next(): Promise<boolean> {
    for (;;) {
      const inFrame = this.nextInFrame();
      if (inFrame !== null) return inFrame;
      const pg = this.cursor;
      const f = this.frame;
      if (f === null || pg < f.address || pg >= f.end) {
        if (!(await this.read())) return this.short(pg);
        continue;
      }
      // A blob whose header `nextInFrame` checked: its checksum reads on.
      if (pg + this.pageSize <= f.end) return this.verifyBlob(pg, this.rec, this.base);
      // The page is cut by the frame's end: the range ends in it, or a read split it.
      let rec: RecordSpace;
      let avail: number;
      if (f.end < this.end) {
        rec = this.scratchSpace();
        avail = await this.assemble(pg, this.pageSize);
      } else {
        avail = f.end - pg;
        rec = this.viewsOver(f, pg, avail);
      }
      if (avail < PAGE_HEADER_SIZE) return this.short(pg);
      const base = rec === this.scratch ? 0 : f.offset + (pg - f.address);
      return this.classify(pg, rec, base, avail) ?? this.verifyBlob(pg, rec, base);
    }
  }

  /**
   * `next()` without a wait when the next page is whole in the frame in
   * hand (most pages: a whole-log pass then costs no promise per page);
   * null when it needs the device, and the caller awaits `next()`.
   */
  nextInFrame(): boolean | null {
    const P = this.pageSize;
    const pg = this.cursor;
    if (pg >= this.end) return false;
    const f = this.frame;
    if (f === null || pg < f.address || pg + P > f.end) return null;
    const rec = this.viewsOver(f, pg, P);
    const base = rec === this.scratch ? 0 : f.offset + (pg - f.address);
    // A blob to verify (null): nothing consumed yet, `next()` checks it again and reads it.
    return this.classify(pg, rec, base, P);
  }

  async close(): Promise<void> {
    this.frame = null;
    await this.reader.close();
  }

  /**
   * Checks the page at `rec[base]` (`avail` of its bytes in hand) and
   * reports it; null for a blob whose checksum is still to be read.
   */
  private classify(pg: number, rec: RecordSpace, base: number, avail: number): boolean | null {
    const P = this.pageSize;
    this.address = pg;
    this.rec = rec;
    this.base = base;
    this.reason = null;
    const check = checkPageHeader(rec, base, pg, this.minEpoch, P);
    this.check = check;
    if (check !== PageCheck.RECORDS && check !== PageCheck.BLOB) {
      this.reason =
        check === PageCheck.STALE
          ? `stale page (epoch ${pageEpochOf(rec, base)} < ${this.minEpoch})`
          : HEADER_FAILURES[check];
      return this.report(LogPage.BAD, pg + P);
    }
    const used = pageUsedOf(rec, base);
    this.used = used;
    this.epoch = pageEpochOf(rec, base);
    if (check === PageCheck.BLOB) {
      const pages = Math.ceil(used / P);
      this.blobPages = pages;
      if (pg + pages * P > this.end) return this.short(pg, PageCheck.BLOB);
      if (!this.verifyBlobs) return this.report(LogPage.BLOB, pg + pages * P);
      return null;
    }
    if (used > avail) return this.short(pg);
    if (this.verify) {
      if (!pageChecksumMatches(rec, base)) return this.bad(pg, 'page checksum mismatch');
      const why = this.verifyRecords ? recordsProblem(rec, base, used) : null;
      if (why !== null) return this.bad(pg, why);
    }
    return this.report(LogPage.RECORDS, pg + P);
  }

  /** Runs the blob's checksum over its bytes (header fields, then the body across frames). */
  private async verifyBlob(pg: number, rec: RecordSpace, base: number): Promise<boolean> {
    const used = this.used;
    const pages = this.blobPages;
    const expected = pageChecksumOf(rec, base);
    let crc = crc32(rec.bytes.subarray(base + 8, base + PAGE_HEADER_SIZE));
    let a = pg + PAGE_HEADER_SIZE;
    const blobEnd = pg + used;
    while (a < blobEnd) {
      const f = this.frame;
      if (f === null || a < f.address || a >= f.end) {
        if (!(await this.read())) return this.short(pg, PageCheck.BLOB);
        continue;
      }
      const n = Math.min(blobEnd, f.end) - a;
      const o = f.offset + (a - f.address);
      crc = crc32(f.buffer.subarray(o, o + n), crc);
      a += n;
    }
    this.address = pg;
    if (crc !== expected) return this.bad(pg, 'blob checksum mismatch');
    return this.report(LogPage.BLOB, pg + pages * this.pageSize);
  }

  /** Copies page `pg`'s bytes into the scratch page across frames; returns how many it got. */
  private async assemble(pg: number, P: number): Promise<number> {
    const out = this.scratchSpace().bytes;
    let have = 0;
    let need = P;
    while (have < need) {
      const a = pg + have;
      const f = this.frame;
      if (f === null || a < f.address || a >= f.end) {
        if (!(await this.read())) break;
        continue;
      }
      const n = Math.min(need - have, f.end - a);
      const o = f.offset + (a - f.address);
      f.buffer.copy(out, have, o, o + n);
      have += n;
      if (have >= PAGE_HEADER_SIZE && need === P) {
        // Only the used part of a records page is needed.
        const used = out.readUInt32LE(8);
        if (used >= PAGE_HEADER_SIZE && used < P) need = Math.max(have, used);
      }
    }
    return have;
  }

  /** Pulls the next frame; false at the end of the device or range. */
  private async read(): Promise<boolean> {
    const reader = this.reader;
    this.frame = null;
    if (this.seekTo >= 0) {
      const to = this.seekTo;
      this.seekTo = -1;
      if (to >= this.end) return false;
      await reader.seek(to, this.end);
    }
    const step = await reader.next();
    if (step.done === true) return false;
    this.frame = step.value;
    this.bytesRead += step.value.length;
    return true;
  }

  private report(kind: LogPage, next: number): boolean {
    this.kind = kind;
    this.cursor = next;
    return true;
  }

  private bad(pg: number, reason: string): boolean {
    this.address = pg;
    this.reason = reason;
    this.check = PageCheck.RECORDS;
    return this.report(LogPage.BAD, pg + this.pageSize);
  }

  /** The range ended inside page `pg` (`check`: BLOB inside a blob): reported once, then the end. */
  private short(pg: number, check: PageCheck = PageCheck.RECORDS): boolean {
    if (pg >= this.end) return false;
    this.address = pg;
    this.check = check;
    this.reason = 'page cut short by the end of the device';
    this.kind = LogPage.SHORT;
    this.end = pg;
    return true;
  }

  /** Typed views over the frame's buffer (cached per buffer), or an aligned copy of the page. */
  private viewsOver(f: Frame, pg: number, avail: number): RecordSpace {
    if (this.viewsOf !== f.buffer) {
      this.views = spaceOverBytes(f.buffer);
      this.viewsOf = f.buffer;
    }
    if (this.views !== null) return this.views;
    // Frames come from 8-aligned slabs, so this is a fallback only.
    const scratch = this.scratchSpace();
    const off = f.offset + (pg - f.address);
    f.buffer.copy(scratch.bytes, 0, off, off + avail);
    return scratch;
  }

  private scratchSpace(): RecordSpace {
    this.scratch ??= createRecordSpace(this.pageSize);
    return this.scratch;
  }
}

/** Why the records of a checked page cannot be walked, or null: every slot valid and in bounds. */
function recordsProblem(rec: RecordSpace, base: number, used: number): string | null {
  let off = base + PAGE_HEADER_SIZE;
  const end = base + used;
  while (off < end) {
    if ((flagsOf(rec, off) & RecordFlag.VALID) === 0) return 'bad record';
    const size = slotSize(rec, off);
    if (size < 16 || size % 8 !== 0 || off + size > end) return 'bad record size';
    off += size;
  }
  return null;
}
