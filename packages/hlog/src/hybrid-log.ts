import { type AnyStrataError, type Device, isStrataError } from '@strata/io';
import { chunkTableSize, DEFAULT_BLOB_CHUNK_SHIFT, writeChunkTable } from './blob-layout.js';
import { HlogError } from './errors.js';
import {
  BLOB_PREFIX_SIZE,
  blobChecksum,
  PAGE_HEADER_SIZE,
  PAGE_MAGIC,
  PageFlag,
  pageUsedOf,
  sealPageChecksum,
  setBlobChecksum,
  writeBlobPrefix,
  writePageHeader,
} from './page-header.js';
import { sealRecordChecksums } from './record-checksum.js';
import { align8, createRecordSpace, type RecordSpace } from './record-layout.js';

/**
 * The hybrid log: one logical address space, low to high
 * `begin <= head <= readOnly <= tail`, plus `flushedUntil`.
 *
 * - `[readOnly, tail)` mutable, in memory (updates in place);
 * - `[head, readOnly)` read-only, in memory (updates copy to the tail);
 * - `[begin, head)` on the device only.
 *
 * Memory is a ring of `memory / pageSize` frames; page p lives in frame
 * p mod frames, so an address maps to its ring offset with one `%`. The
 * ring is one zeroed buffer the OS maps lazily: a frame becomes resident
 * when the tail first reaches it, so memory grows with the data up to the
 * budget. `setMemory` changes the budget of an open log: a new ring of the
 * new size takes the pages that stay in memory (a shrink first flushes the
 * pages that will not fit, asynchronously, while the log keeps serving).
 * Opening a page at the tail is O(1): seal the previous page's header, move
 * `readOnly` by whole pages, and hand the newly read-only pages to a flush
 * worker that runs off the caller's stack (a microtask) to checksum and
 * write them. `head` moves only over flushed pages, and only when a frame is
 * needed again; when the frame is still being flushed, allocation fails and
 * the caller waits for `waitForProgress()` (backpressure: never overwrite).
 * Most of that is done ahead, in small steps on the inserts of a page's last
 * eighth (`armNextFrame`), so the insert that opens a page usually only
 * switches to a prepared frame.
 *
 * Blobs (values too large for a page) take whole pages at the tail with no
 * frame: they are written straight from the caller's buffer.
 *
 * A failed page or blob write (or sync) is not fatal: it becomes
 * `writeError` (and `onWriteError` is called); the range stays unflushed, so
 * its frame is kept and `flushedUntil` stops before it, and whoever waits for
 * flush progress is rejected with the error rather than left hanging.
 * `retryWrites()` writes the failed ranges again; once they and a later sync
 * succeed, `writeError` is null again.
 */

export interface HybridLogOptions {
  device: Device;
  /** Bytes of page frames; a multiple of `pageSize`, at least 2 pages. */
  memory: number;
  pageSize: number;
  /** Share of the frames that stays mutable (at least one page, at most all but one). */
  mutableFraction: number;
  /** Session number written into every page header. */
  epoch: number;
  /** First page to write (page aligned): where recovery found the log's end. */
  tailAddress?: number;
  /** Lowest live address (page aligned), default `tailAddress`. */
  beginAddress?: number;
  /**
   * Bytes per checksummed chunk of a blob (a power of two, 512 to 16 MiB;
   * default 64 KiB): a read of part of a large value loads and verifies
   * whole chunks (blob-layout.ts).
   */
  blobChunkSize?: number;
}

export interface HybridLogStats {
  begin: number;
  head: number;
  readOnly: number;
  tail: number;
  flushedUntil: number;
  pageSize: number;
  frames: number;
  /** Bytes of page frames: the log's memory budget (`setMemory` changes it). */
  memoryBytes: number;
  /** Bytes of frames the tail has reached since the ring was made: what of the budget is resident. */
  residentBytes: number;
  pagesFlushed: number;
  blobsWritten: number;
  allocationWaits: number;
}

/** Settled once: `RESOLVED.then(f)` queues `f` as a microtask. */
const RESOLVED: Promise<void> = Promise.resolve();

interface FlushRange {
  start: number;
  end: number;
  done: boolean;
  /** Writes the range (again, after a failure). */
  write: () => Promise<unknown>;
}

export class HybridLog {
  readonly device: Device;
  readonly pageSize: number;
  /** Frames in the ring (changes with `setMemory`, between operations). */
  frameCount: number;
  ringBytes: number;
  /** The frames; replaced by `setMemory` (then `onRingChange` runs): re-read it after any await. */
  ring: RecordSpace;
  /** Called when `setMemory` replaced `ring` (the store core re-reads its views). */
  onRingChange: (() => void) | null = null;
  readonly epoch: number;
  /** log2 of the chunk size of the blobs this log writes. */
  readonly blobChunkShift: number;
  begin: number;
  head: number;
  readOnly: number;
  tail: number;
  flushedUntil: number;
  /** Set when the log was halted (simulated crash): it accepts no more writes. */
  failure: Error | undefined;
  /** The first write or sync failure not overcome yet (see retryWrites), or null. */
  writeError: AnyStrataError | null = null;
  /** Called on every failed write or sync. */
  onWriteError: ((error: AnyStrataError) => void) | null = null;
  /**
   * While a write error stands, an operation that needs room at the tail
   * (or a blob write that failed) waits for the failed pages to be written
   * again instead of failing. Set by a caller that retries them (the
   * server's StoreHealth, every second): an operation that has begun then
   * always completes, so a command writing several keys is never left half
   * applied behind an error reply. Off by default: an embedded caller gets
   * the error at once.
   */
  waitOutWriteErrors = false;

  private tailPage: number;
  private tailPageEnd: number;
  private tailIsBlob = false;
  /** Index in `ring.u32` of the tail page's used-bytes header word. */
  private tailUsedWord = 0;
  /** An insert ending past this address pre-arms the next frame (`armNextFrame`). */
  private armAt = Number.POSITIVE_INFINITY;
  /** The page whose frame `armNextFrame` prepared (header written), or -1. */
  private armedPage = -1;
  /** The next step of `armNextFrame` (0 at each page's opening). */
  private armStep = 0;
  private flushIssuedUntil: number;
  private framePage: Float64Array;
  private mutablePages: number;
  private readonly mutableFraction: number;
  /** 1 for each frame of the current ring a page was opened in (written: resident since). */
  private touched: Uint8Array;
  /** Frames marked in `touched`. */
  private touchedFrames = 0;
  /** Bumped by each `setMemory`: a shrink still waiting for flushes gives way to a later call. */
  private memoryGeneration = 0;
  private readonly inflight: FlushRange[] = [];
  /** Ranges whose write failed, not being retried. */
  private failed: FlushRange[] = [];
  private syncFailed = false;
  private waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  /** `waitForSpace` callers while a write error stands: woken by any completed write, rejected only by `fail`. */
  private outlasting: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private flushScheduled = false;
  private pagesFlushed = 0;
  private blobsWritten = 0;
  allocationWaits = 0;

  constructor(options: HybridLogOptions) {
    const { device, memory, pageSize } = options;
    if (!Number.isInteger(pageSize) || pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'pageSize must be a power of two >= 512');
    }
    checkMemory(memory, pageSize);
    if (device.segmentSize % pageSize !== 0) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'segmentSize must be a multiple of pageSize');
    }
    if (pageSize % device.alignment !== 0) {
      throw new HlogError(
        'ERR_INVALID_ARGUMENT',
        'pageSize must be a multiple of the device alignment',
      );
    }
    this.device = device;
    this.pageSize = pageSize;
    this.frameCount = memory / pageSize;
    this.ringBytes = memory;
    // A fresh buffer is zeroed and mapped lazily by the OS: the ring becomes
    // resident as the tail first goes round it, so memory grows with the
    // data up to the budget (the first write into each OS page of a frame
    // takes a page fault, once).
    this.ring = createRecordSpace(memory);
    this.epoch = options.epoch;
    const chunk = options.blobChunkSize ?? 2 ** DEFAULT_BLOB_CHUNK_SHIFT;
    if (!Number.isInteger(chunk) || chunk < 512 || chunk > 1 << 24 || (chunk & (chunk - 1)) !== 0) {
      throw new HlogError(
        'ERR_INVALID_ARGUMENT',
        'blobChunkSize must be a power of two from 512 to 16 MiB',
      );
    }
    this.blobChunkShift = Math.log2(chunk);
    this.framePage = new Float64Array(this.frameCount).fill(-1);
    this.mutableFraction = options.mutableFraction;
    this.mutablePages = mutablePagesOf(this.frameCount, this.mutableFraction);
    const start = options.tailAddress ?? 0;
    if (start % pageSize !== 0)
      throw new HlogError('ERR_INVALID_ARGUMENT', 'tail not page aligned');
    this.begin = Math.min(options.beginAddress ?? start, start);
    this.head = start;
    this.readOnly = start;
    this.flushedUntil = start;
    this.flushIssuedUntil = start;
    this.tailPage = start / pageSize;
    this.touched = new Uint8Array(this.frameCount);
    this.touchFrame(this.tailPage % this.frameCount);
    this.framePage[this.tailPage % this.frameCount] = this.tailPage;
    this.tail = start + PAGE_HEADER_SIZE;
    this.tailPageEnd = start + pageSize;
    this.writeOpenHeader(this.tailPage);
  }

  /**
   * Writes the header of page `p`, opening (empty) at the tail: allocations
   * keep its used bytes current from then on. `reserve` does the same inline.
   */
  private writeOpenHeader(p: number): void {
    const off = (p % this.frameCount) * this.pageSize;
    const u32 = this.ring.u32;
    const w = off >>> 2;
    u32[w] = PAGE_MAGIC;
    u32[w + 1] = 0;
    u32[w + 2] = PAGE_HEADER_SIZE;
    u32[w + 3] = 0;
    this.ring.f64[(off + 16) >>> 3] = p * this.pageSize;
    u32[w + 6] = this.epoch;
    u32[w + 7] = 0;
    this.tailUsedWord = w + 2;
  }

  /** Offset of an in-memory address (`head <= address < tail`) in `ring`. */
  offsetOf(address: number): number {
    // Not `address % ringBytes`: on a double that is a call to fmod.
    return address - Math.floor(address / this.ringBytes) * this.ringBytes;
  }

  /** Start of the page holding the tail. */
  get tailPageStart(): number {
    return this.tailPageEnd - this.pageSize;
  }

  /** Largest record that fits a page. */
  get maxRecordSize(): number {
    return this.pageSize - PAGE_HEADER_SIZE;
  }

  /**
   * Reserves `size` bytes (8-aligned, <= maxRecordSize) at the tail and
   * returns their address, or 0 when a frame is still being flushed: wait
   * for `waitForProgress()` and try again.
   */
  allocate(size: number): number {
    return this.reserve(size, false);
  }

  /**
   * `allocate`, or with `fold` (and `size` 0) only opening the next page.
   *
   * Opening a page is written out here, in the function every insert runs,
   * rather than in methods of its own: it happens once per page, far too
   * rarely for V8 to optimize (or inline) a separate function, which then
   * runs interpreted, with cold caches, on each page-opening insert. Here
   * it is compiled with the allocation fast path.
   */
  private reserve(size: number, fold: boolean): number {
    const address = this.tail;
    const end = address + size;
    if (end <= this.tailPageEnd && !fold) {
      this.tail = end;
      // The tail page's header keeps its used bytes current: one store to a
      // line every insert keeps warm, so that sealing the page does not
      // touch a line (and OS page) gone cold while it filled, a TLB miss
      // that costs microseconds in a VM.
      this.ring.u32[this.tailUsedWord] = end - this.tailPageEnd + this.pageSize;
      if (end > this.armAt) this.armNextFrame();
      return address;
    }
    const P = this.pageSize;
    const next = this.tailPage + 1;
    const needHead = (next - this.frameCount + 1) * P;
    if (this.failure !== undefined || (needHead > this.head && this.flushedUntil < needHead)) {
      // The frame is still being flushed. (After a blob the pages before it
      // may not be read-only yet: make them so.)
      if (this.failure === undefined) this.shiftReadOnly(needHead);
      if (!fold) this.allocationWaits++;
      return 0;
    }
    if (needHead > this.head) this.head = Math.max(needHead, this.begin);
    const u32 = this.ring.u32;
    if (!this.tailIsBlob) {
      // Seal the page being left: its header was written when it opened
      // and its used bytes kept current since (above).
      u32[this.tailUsedWord] = address - (this.tailPageEnd - P);
    }
    this.tailIsBlob = false;
    this.tailPage = next;
    const nextStart = next * P;
    const frame = next % this.frameCount;
    const w = (frame * P) >>> 2;
    if (this.touched[frame] === 0) this.touchFrame(frame);
    if (this.armedPage !== next) {
      this.framePage[frame] = next;
      // The new page's header (writeOpenHeader, inline): the same cache
      // line as the page's first record. Usually written already, near the
      // end of the previous page (armNextFrame).
      u32[w] = PAGE_MAGIC;
      u32[w + 1] = 0;
      u32[w + 3] = 0;
      this.ring.f64[(w >>> 1) + 2] = nextStart;
      u32[w + 6] = this.epoch;
      u32[w + 7] = 0;
    }
    u32[w + 2] = PAGE_HEADER_SIZE + size;
    this.tailUsedWord = w + 2;
    this.tail = nextStart + PAGE_HEADER_SIZE + size;
    this.tailPageEnd = nextStart + P;
    this.armAt = this.tailPageEnd - (P >>> 3);
    this.armStep = 0;
    // shiftReadOnly, inline; usually done already (armNextFrame's first
    // step). (The writes of the newly read-only pages are issued at once,
    // next to those in flight: waiting for a completion would serialize them
    // behind the device's latency.)
    const readOnly = (next + 1 - this.mutablePages) * P;
    if (readOnly > this.readOnly) {
      this.readOnly = Math.min(readOnly, nextStart);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        RESOLVED.then(this.runFlushesBound);
      }
    }
    return nextStart + PAGE_HEADER_SIZE;
  }

  /**
   * Prepares the next page while the current one still has room, in small
   * steps, one per insert from the page's last eighth on, so that no insert
   * pays for much of it: (0) make read-only what the next page's opening
   * would, and queue its flush; (1) when the next frame's old page is
   * flushed, move `head` over it and write the next page's header;
   * (2..) read the lines the first records go to, a few per step, so they
   * and their TLB entry are warm. The insert that opens the page then finds
   * its frame ready and only switches to it. Each step touches one or a few
   * lines that have gone cold; a page too full for the steps to finish
   * (large records) is opened by the insert that needs it, doing what is left.
   */
  private armNextFrame(): void {
    if (this.tailIsBlob || this.failure !== undefined) {
      this.armAt = Number.POSITIVE_INFINITY;
      return;
    }
    const P = this.pageSize;
    const next = this.tailPage + 1;
    const step = this.armStep;
    // The next step runs on the next insert.
    this.armAt = this.tail;
    if (step === 0) {
      this.armStep = 1;
      const readOnly = Math.min((next + 1 - this.mutablePages) * P, this.tailPageStart);
      if (readOnly > this.readOnly) {
        this.readOnly = readOnly;
        if (!this.flushScheduled) {
          this.flushScheduled = true;
          RESOLVED.then(this.runFlushesBound);
        }
      }
      return;
    }
    const u32 = this.ring.u32;
    const w = ((next % this.frameCount) * P) >>> 2;
    if (step === 1) {
      const needHead = (next - this.frameCount + 1) * P;
      if (needHead > this.head) {
        if (this.flushedUntil < needHead) {
          // Still being flushed: look again a little later.
          this.armAt = this.tail + (P >>> 6);
          return;
        }
        this.head = Math.max(needHead, this.begin);
      }
      this.touchFrame(next % this.frameCount);
      u32[w] = PAGE_MAGIC;
      u32[w + 1] = 0;
      u32[w + 2] = PAGE_HEADER_SIZE;
      u32[w + 3] = 0;
      this.ring.f64[(w >>> 1) + 2] = next * P;
      u32[w + 6] = this.epoch;
      u32[w + 7] = 0;
      this.armStep = 2;
      return;
    }
    if (step === 2) {
      this.framePage[next % this.frameCount] = next;
      this.armedPage = next;
      this.armStep = 3;
      return;
    }
    // The lines the first records go to (the header's is written): read
    // now, written soon. Four lines (64 words) a step, the first KiB, never
    // past the page (a page under 1 KiB ends in the next frame's words).
    const from = w + 16 + (step - 3) * 64;
    const end = Math.min(from + 64, w + (P >>> 2));
    let touch = 0;
    for (let i = from; i < end; i += 16) touch |= u32[i]!;
    this.armTouch = touch;
    if (step === 6 || end < from + 64) this.armAt = Number.POSITIVE_INFINITY;
    else this.armStep = step + 1;
  }

  /** @internal What the pre-arm read (a field, so the reads are not optimized away). */
  armTouch = 0;

  /** Opens the next page (the tail page keeps what it holds). */
  private openNextPage(): boolean {
    return this.reserve(0, true) !== 0;
  }

  private sealTailPage(): void {
    // The header of page-header.ts, written through the ring's typed views
    // (pages are 8-aligned): the page-opening insert stays cheap.
    const start = this.tailPageStart;
    const off = this.offsetOf(start);
    const u32 = this.ring.u32;
    const w = off >>> 2;
    u32[w] = PAGE_MAGIC;
    u32[w + 1] = 0;
    u32[w + 2] = this.tail - start;
    u32[w + 3] = 0;
    this.ring.f64[(off + 16) >>> 3] = start;
    u32[w + 6] = this.epoch;
    u32[w + 7] = 0;
  }

  /** Makes everything below `address` (page aligned) read-only and queues its flush. */
  shiftReadOnly(address: number): void {
    const limit = Math.min(address, this.tailPageStart);
    if (limit <= this.readOnly) return;
    this.readOnly = limit;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // A microtask of a pre-bound function: it runs as soon as the caller's
      // synchronous work yields. Scheduled as a reaction on a settled promise
      // (a V8 builtin: one small reaction object), not with Node's
      // `queueMicrotask`, which builds an AsyncResource and a bound function
      // in JavaScript that, called once per page, never gets optimized.
      RESOLVED.then(this.runFlushesBound);
    }
  }

  private readonly runFlushesBound = (): void => {
    try {
      this.runFlushes();
    } catch (e) {
      this.fail(e);
    }
  };

  /** Checksums and writes the pages that became read-only (flush worker). */
  private runFlushes(): void {
    this.flushScheduled = false;
    if (this.failure !== undefined) return;
    const P = this.pageSize;
    while (this.flushIssuedUntil < this.readOnly) {
      const p = this.flushIssuedUntil / P;
      if (this.framePage[p % this.frameCount] === p) this.issuePageWrite(p);
      this.flushIssuedUntil += P;
    }
  }

  private issuePageWrite(p: number): void {
    const off = (p % this.frameCount) * this.pageSize;
    const bytes = this.ring.bytes;
    // The records' checksums first: the page's covers them.
    sealRecordChecksums(this.ring, off);
    sealPageChecksum(bytes, off);
    const used = pageUsedOf(this.ring, off);
    const a = this.device.alignment;
    const len = Math.min(this.pageSize, Math.ceil(used / a) * a);
    // The frame stays the page's until it is flushed (head never passes an
    // unflushed page), so a retry writes the same bytes.
    const page = bytes.subarray(off, off + len);
    const range = this.track(p * this.pageSize, (p + 1) * this.pageSize, () =>
      this.device.write(p * this.pageSize, page).then(() => {
        this.pagesFlushed++;
      }),
    );
    this.issue(range);
  }

  /** Writes `range`; resolves false when it failed (it is then in `failed`). */
  private issue(range: FlushRange): Promise<boolean> {
    return range.write().then(
      () => {
        this.complete(range);
        return true;
      },
      (e: unknown) => {
        this.writeFailed(range, e);
        return false;
      },
    );
  }

  private writeFailed(range: FlushRange, e: unknown): void {
    this.failed.push(range);
    if (this.flushIssuedUntil < this.readOnly && !this.flushScheduled) {
      this.flushScheduled = true;
      RESOLVED.then(this.runFlushesBound);
    }
    this.noteWriteError(e);
    // Waiters for flush progress would wait for this range forever.
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(this.writeError!);
  }

  private noteWriteError(e: unknown): void {
    const error = isStrataError(e)
      ? e
      : new HlogError('ERR_IO', `log write failed: ${String(e)}`, { cause: e });
    this.writeError ??= error;
    try {
      this.onWriteError?.(error);
    } catch {
      // A throwing listener must not break the flush path.
    }
  }

  /**
   * Writes every failed range again; resolves when they are all on the
   * device (writeError clears unless a sync failure is still outstanding),
   * rejects with the error if one fails again.
   */
  async retryWrites(): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const ranges = this.failed;
    this.failed = [];
    const written = await Promise.all(ranges.map((r) => this.issue(r)));
    if (written.includes(false)) throw this.writeError!;
    this.clearWriteError();
  }

  /** Syncs the device; a failure becomes writeError (and is thrown). */
  async sync(): Promise<void> {
    try {
      await this.device.sync();
    } catch (e) {
      this.syncFailed = true;
      this.noteWriteError(e);
      throw this.writeError;
    }
    this.syncFailed = false;
    this.clearWriteError();
  }

  private clearWriteError(): void {
    if (this.failed.length === 0 && !this.syncFailed) this.writeError = null;
  }

  /**
   * Reserves whole pages at the tail for a blob (`key` and `value`) and
   * writes it; resolves with its address once it is on the device. The
   * caller keeps `value` unchanged until then. Returns null once the log
   * has failed.
   */
  writeBlob(key: Uint8Array, value: Uint8Array): Promise<number> | null {
    if (this.failure !== undefined) return null;
    if (this.device.alignment > 1) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'large values need a device with alignment 1');
    }
    const P = this.pageSize;
    const shift = this.blobChunkShift;
    const prefixLength = BLOB_PREFIX_SIZE + key.length + chunkTableSize(value.length, shift);
    const total = PAGE_HEADER_SIZE + prefixLength + value.length;
    const pages = Math.ceil(total / P);
    if (!this.tailIsBlob) this.sealTailPage();
    const start = this.tailPageEnd;
    if (this.armedPage >= start / P) {
      // The frame armed for the next page gets no page: the blob has none.
      this.framePage[this.armedPage % this.frameCount] = -1;
      this.armedPage = -1;
    }
    this.armAt = Number.POSITIVE_INFINITY;
    this.tailIsBlob = true;
    this.tailPage = start / P + pages - 1;
    this.tailPageEnd = start + pages * P;
    this.tail = this.tailPageEnd;
    const head = Buffer.alloc(PAGE_HEADER_SIZE + prefixLength);
    writePageHeader(head, 0, total, PageFlag.BLOB, start, this.epoch);
    writeBlobPrefix(head, key.length, shift);
    head.set(key, PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE);
    writeChunkTable(head, value);
    setBlobChecksum(head, blobChecksum(head, head.subarray(PAGE_HEADER_SIZE), value));
    let body = value;
    const range = this.track(start, start + pages * P, () =>
      Promise.all([this.device.write(start + head.length, body), this.device.write(start, head)]),
    );
    this.blobsWritten++;
    return range.write().then(
      () => {
        this.complete(range);
        return start;
      },
      (e: unknown) => {
        if (this.waitOutWriteErrors) {
          // The caller keeps its buffer until this resolves: the retry
          // writes it, then the blob is the caller's as if written at once.
          this.writeFailed(range, e);
          return this.outlast(range).then(() => start);
        }
        // The caller's buffer is theirs again once this rejects: a retry
        // writes a copy (the blob is then orphaned, skipped by scans).
        body = Buffer.from(value);
        this.writeFailed(range, e);
        throw this.writeError;
      },
    );
  }

  private track(start: number, end: number, write: () => Promise<unknown>): FlushRange {
    const range = { start, end, done: false, write };
    let i = this.inflight.length;
    while (i > 0 && this.inflight[i - 1]!.start > start) i--;
    this.inflight.splice(i, 0, range);
    return range;
  }

  /** Resolves once `range` is written (after retries); rejects only when the log fails. */
  private async outlast(range: FlushRange): Promise<void> {
    while (!range.done) {
      if (this.failure !== undefined) throw this.failure;
      await new Promise<void>((resolve, reject) => this.outlasting.push({ resolve, reject }));
    }
  }

  private complete(range: FlushRange): void {
    range.done = true;
    if (this.outlasting.length > 0) {
      const outlasting = this.outlasting;
      this.outlasting = [];
      for (const w of outlasting) w.resolve();
    }
    let moved = false;
    for (;;) {
      const first = this.inflight[0];
      if (first === undefined || !first.done || first.start !== this.flushedUntil) break;
      this.flushedUntil = first.end;
      this.inflight.shift();
      moved = true;
    }
    // Pages that became read-only while writes were in flight.
    if (this.flushIssuedUntil < this.readOnly && !this.flushScheduled) {
      this.flushScheduled = true;
      RESOLVED.then(this.runFlushesBound);
    }
    if (moved) {
      this.clearWriteError();
      this.wake();
    }
  }

  private fail(e: unknown): void {
    this.failure ??= e instanceof Error ? e : new HlogError('ERR_IO', String(e));
    const waiters = [...this.waiters, ...this.outlasting];
    this.waiters = [];
    this.outlasting = [];
    for (const w of waiters) w.reject(this.failure);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve();
  }

  /** Stops all further flushing (simulated crash); waiters reject. */
  halt(): void {
    this.fail(new HlogError('ERR_STORE_CLOSED', 'log halted'));
  }

  /** Resolves when the flush front moves (rejects after a failed write, until retried). */
  waitForProgress(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.failed.length > 0) return Promise.reject(this.writeError);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * `waitForProgress` for an operation that needs room at the tail: with
   * `waitOutWriteErrors` it resolves on any completed write and a failed
   * one does not reject it (the operation tries again, and waits again
   * until the failed pages are written again).
   */
  waitForSpace(): Promise<void> {
    if (!this.waitOutWriteErrors || this.failure !== undefined) return this.waitForProgress();
    // Woken by any completed write (progress, or a retried page), never by a failed one.
    return new Promise((resolve, reject) => this.outlasting.push({ resolve, reject }));
  }

  /** Waits until everything below `address` is on the device. */
  async waitFlushed(address: number): Promise<void> {
    while (this.flushedUntil < address) await this.waitForProgress();
  }

  /**
   * Fold-over, synchronous part: seals the tail page (opening the next one)
   * and makes everything below the new tail page read-only. Returns that
   * page's address, or null when a frame must be flushed first (wait and
   * retry). Records below the point never change again; once it is flushed
   * it is what a checkpoint captures.
   */
  sealTail(): number | null {
    if (this.tail > this.tailPageStart + PAGE_HEADER_SIZE || this.tailIsBlob) {
      if (!this.openNextPage()) return null;
    }
    const point = this.tailPageStart;
    this.shiftReadOnly(point);
    return point;
  }

  /** Seals the tail and waits until everything below the returned point is flushed. */
  async sealAndFlush(): Promise<number> {
    let point = this.sealTail();
    while (point === null) {
      await this.waitForProgress();
      point = this.sealTail();
    }
    await this.waitFlushed(point);
    return point;
  }

  /**
   * Logically drops everything below `address` (a page start, flushed):
   * reads below it find nothing. The device keeps the bytes until
   * `truncateDevice` drops whole segments.
   */
  dropUntil(address: number): void {
    if (address <= this.begin) return;
    if (address > this.flushedUntil) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'cannot drop unflushed log');
    }
    this.begin = address;
    if (this.head < address) this.head = address;
  }

  /** Frees the device's whole segments below `begin`. */
  async truncateDevice(): Promise<void> {
    const S = this.device.segmentSize;
    await this.device.truncateUntil(Math.floor(this.begin / S) * S);
  }

  /** Is `address` (a page start) a blob page, i.e. in memory but frameless? */
  isFramedPage(page: number): boolean {
    return this.framePage[page % this.frameCount] === page;
  }

  /**
   * Bytes of the frames of the ring that pages were opened in since it was
   * made (a blob's pages take none). The rest of the budget was never
   * written, so the OS has not made it resident.
   */
  get residentBytes(): number {
    return this.touchedFrames * this.pageSize;
  }

  /** Notes that a page was opened in `frame` (once per page: off the per-record path). */
  private touchFrame(frame: number): void {
    if (this.touched[frame] === 0) {
      this.touched[frame] = 1;
      this.touchedFrames++;
    }
  }

  /** The memory budget: bytes of page frames. */
  get memoryBytes(): number {
    return this.ringBytes;
  }

  /**
   * Changes the memory budget of the open log to `memory` bytes of frames
   * (a multiple of `pageSize`, at least 2 pages). Growing takes effect at
   * once: the pages in memory move to a larger ring, and the tail fills the
   * new frames as it reaches them. Shrinking first makes read-only, and
   * flushes, the pages that will not fit below the new bound (device writes
   * in flight, the log serving meanwhile: nothing runs long on the loop),
   * then moves the pages that stay. The one synchronous step is the copy
   * of the pages that stay in memory (at most the smaller budget; about
   * 10 ms for 64 MiB). The old ring is garbage once the writes issued from
   * it complete, which this waits for. Resolves true once applied (a write
   * failure meanwhile is `writeError`'s), false when a later call
   * superseded it; rejects when the log failed or a flush failed
   * (`writeError`: the budget is then unchanged, `retryWrites` and call
   * again).
   */
  async setMemory(memory: number): Promise<boolean> {
    checkMemory(memory, this.pageSize);
    const generation = ++this.memoryGeneration;
    const P = this.pageSize;
    const frames = memory / P;
    const mutable = mutablePagesOf(frames, this.mutableFraction);
    if (frames < this.frameCount) {
      // The new ring's mutable share from now on: the pages past it start
      // their flush now.
      this.mutablePages = Math.min(this.mutablePages, mutable);
      for (;;) {
        if (generation !== this.memoryGeneration) return false;
        if (this.failure !== undefined) throw this.failure;
        // The lowest page the new ring holds, were it made now.
        const first = (this.tailPage - frames + 1) * P;
        if (first <= this.head || first <= this.flushedUntil) break;
        this.shiftReadOnly((this.tailPage + 1 - this.mutablePages) * P);
        await this.waitForProgress();
      }
    }
    if (frames === this.frameCount) {
      this.mutablePages = mutable;
      return true;
    }
    // Writes issued from the old ring hold it until they complete.
    const issued = this.flushIssuedUntil;
    this.moveToRing(frames, mutable);
    await this.waitFlushed(issued).catch(() => undefined);
    return true;
  }

  /** Moves the pages in memory that fit to a new ring of `frames` frames (synchronous). */
  private moveToRing(frames: number, mutable: number): void {
    const P = this.pageSize;
    const bytes = frames * P;
    let ring: RecordSpace;
    try {
      ring = createRecordSpace(bytes);
    } catch (e) {
      throw new HlogError('ERR_INVALID_ARGUMENT', `cannot allocate ${bytes} bytes of log memory`, {
        cause: e,
      });
    }
    const framePage = new Float64Array(frames).fill(-1);
    const first = Math.max(Math.floor(this.head / P), this.tailPage - frames + 1);
    const from = this.ring.bytes;
    for (let p = first; p <= this.tailPage; p++) {
      const f = p % this.frameCount;
      // A blob's pages have no frame.
      if (this.framePage[f] !== p) continue;
      const off = f * P;
      // Only the used bytes: the rest of the new frame stays untouched (not resident).
      const used =
        p === this.tailPage && !this.tailIsBlob
          ? this.tail - this.tailPageStart
          : pageUsedOf(this.ring, off);
      from.copy(ring.bytes, (p % frames) * P, off, off + Math.min(P, align8(used)));
      framePage[p % frames] = p;
    }
    this.ring = ring;
    this.frameCount = frames;
    this.ringBytes = bytes;
    this.framePage = framePage;
    this.mutablePages = mutable;
    this.touched = new Uint8Array(frames);
    this.touchedFrames = 0;
    for (let f = 0; f < frames; f++) if (framePage[f] !== -1) this.touchFrame(f);
    if (first * P > this.head) this.head = first * P;
    this.tailUsedWord = (((this.tailPage % frames) * P) >>> 2) + 2;
    // The frame armed for the next page was not moved: arm it again.
    this.armedPage = -1;
    this.armStep = 0;
    this.armAt = this.tailIsBlob ? Number.POSITIVE_INFINITY : this.tailPageEnd - (P >>> 3);
    this.onRingChange?.();
    // A caller waiting for a frame may find one now.
    this.wake();
  }

  stats(): HybridLogStats {
    return {
      begin: this.begin,
      head: this.head,
      readOnly: this.readOnly,
      tail: this.tail,
      flushedUntil: this.flushedUntil,
      pageSize: this.pageSize,
      frames: this.frameCount,
      memoryBytes: this.ringBytes,
      residentBytes: this.residentBytes,
      pagesFlushed: this.pagesFlushed,
      blobsWritten: this.blobsWritten,
      allocationWaits: this.allocationWaits,
    };
  }
}

function checkMemory(memory: number, pageSize: number): void {
  if (!Number.isInteger(memory) || memory % pageSize !== 0 || memory / pageSize < 2) {
    throw new HlogError(
      'ERR_INVALID_ARGUMENT',
      'memory must be a multiple of pageSize, >= 2 pages',
    );
  }
}

/** Frames that stay mutable: at least one page, at most all but one. */
function mutablePagesOf(frames: number, fraction: number): number {
  return Math.max(1, Math.min(frames - 1, Math.floor(frames * fraction)));
}
