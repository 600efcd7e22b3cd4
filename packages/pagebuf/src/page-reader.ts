import { type Address, type ByteCount, type Device, InvalidArgumentError } from '@strata/io';
import { AdaptiveReadahead } from './adaptive-readahead.js';
import { PageReadError, PoolExhaustedError, ReaderBusyError, ReaderClosedError } from './errors.js';
import type { Frame } from './frame.js';
import { FramePool } from './frame-pool.js';
import { checkReadMode, framesForMode, type ReadMode } from './read-mode.js';
import { ReadSlot } from './read-slot.js';

export interface PageReaderOptions {
  device: Device;
  /** First address to read. May be mid-page. */
  start: Address;
  /** One past the last address to read; default the device's end now. May be mid-page or past the device end. */
  end?: Address;
  /** Page size of the log on the device: a multiple of the device alignment. */
  pageSize: ByteCount;
  mode: ReadMode;
  /**
   * Frames to read into, shared with other readers (fixed modes only; frames
   * of at least `pageSize` bytes). Default: the reader's own pool, allocated
   * once, holding exactly the frames its mode needs.
   */
  pool?: FramePool;
}

/** Counters of one reader since it was created. */
export interface PageReaderStats {
  mode: ReadMode['kind'];
  /** Device reads issued. */
  reads: number;
  /** Bytes those reads asked for. */
  bytesRequested: ByteCount;
  /** Bytes the device returned, for yielded and dropped reads alike. */
  bytesRead: ByteCount;
  framesYielded: number;
  bytesYielded: ByteCount;
  /** Reads issued ahead and then dropped (seek, close, device end). */
  readsDropped: number;
  bytesDropped: ByteCount;
  /** Current read size: the page size, or the adaptive window. */
  window: ByteCount;
  /** Reads in flight right now. */
  inFlight: number;
  /** Bytes held by the frame pool now, and at most so far. */
  memoryBytes: ByteCount;
  memoryHighWater: ByteCount;
}

type ReaderState = 'open' | 'closed';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Reads `[start, end)` of a device as a sequence of frames, in order, with
 * reads for the next frames in flight while the caller works on the current
 * one (see `ReadMode`). Use it as an async iterator (`for await`; `break`
 * stops early and releases everything) or pull frames with `next()`.
 *
 * - In the fixed modes a frame is one page (or the part of it in range), laid
 *   out at its page offsets; in adaptive mode a frame is one read, ending on a
 *   page boundary unless the range ends first.
 * - A frame is valid until the next `next()`, `seek()` or `close()`.
 * - The stream ends at `end`, or at the first short read (the device's end).
 * - A failed read surfaces as a `PageReadError` (code `ERR_PAGE_READ`, with
 *   the read's address) from the `next()` that needed that frame, not
 *   earlier; the reader is then closed, its other reads drained.
 * - One call at a time: `next()` and `seek()` must not overlap.
 */
export class PageReader implements AsyncIterableIterator<Frame, undefined> {
  readonly device: Device;
  readonly pageSize: ByteCount;
  readonly mode: ReadMode;

  readonly #alignment: ByteCount;
  readonly #pool: FramePool;
  readonly #ownsPool: boolean;
  readonly #policy: AdaptiveReadahead | undefined;
  readonly #slots: ReadSlot[];
  readonly #capacity: number;
  /** Device reads allowed outstanding at once (`concurrentReads`, else every slot). */
  readonly #concurrent: number;
  /** Device reads outstanding now (slots in state `reading`). */
  #reading = 0;
  /** Reads in flight are being dropped: settling ones must not issue more. */
  #draining = false;
  /** Oldest read in flight; reads in flight occupy the next `#inFlight` slots in ring order. */
  #head = 0;
  #inFlight = 0;
  #current: ReadSlot | undefined = undefined;
  /** Where the next read will start. */
  #cursor: Address;
  #end: Address;
  /** A short read was seen: the device ends there, read nothing further. */
  #eof = false;
  #state: ReaderState = 'open';
  #pending: Promise<unknown> | undefined = undefined;
  #sequence = 0;

  #reads = 0;
  #bytesRequested = 0;
  #bytesRead = 0;
  #bytesYielded = 0;
  #readsDropped = 0;
  #bytesDropped = 0;

  constructor(options: PageReaderOptions) {
    const { device, pageSize } = options;
    const mode = checkReadMode(options.mode);
    const alignment = Math.max(1, device.alignment);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize % alignment !== 0) {
      throw new InvalidArgumentError(
        `pageSize must be a positive multiple of the device alignment (${alignment}), got ${pageSize}`,
      );
    }
    const end = options.end ?? device.endAddress;
    checkRange(options.start, end);
    this.device = device;
    this.pageSize = pageSize;
    this.mode = mode;
    this.#alignment = alignment;
    this.#cursor = options.start;
    this.#end = end;
    this.#capacity = framesForMode(mode);
    this.#concurrent =
      mode.kind === 'adaptive' ? (mode.concurrentReads ?? this.#capacity) : this.#capacity;

    if (mode.kind === 'adaptive') {
      if (options.pool !== undefined) {
        throw new InvalidArgumentError('adaptive mode sizes its own frames; it takes no pool');
      }
      if (mode.minReadSize % alignment !== 0 || mode.maxReadSize % alignment !== 0) {
        throw new InvalidArgumentError(
          `adaptive read sizes must be multiples of the device alignment (${alignment})`,
        );
      }
      this.#policy = new AdaptiveReadahead(mode, options.start);
      // Frames are allocated as the window needs them, one buffer each, so
      // that a reset can hand the big ones back individually.
      this.#pool = new FramePool({ frameSize: this.#policy.window, maxFrames: this.#capacity });
      this.#ownsPool = true;
    } else if (options.pool !== undefined) {
      if (options.pool.frameSize < pageSize) {
        throw new InvalidArgumentError(
          `pool frames (${options.pool.frameSize} bytes) are smaller than a page (${pageSize})`,
        );
      }
      this.#policy = undefined;
      this.#pool = options.pool;
      this.#ownsPool = false;
    } else {
      this.#policy = undefined;
      this.#pool = new FramePool({
        frameSize: pageSize,
        maxFrames: this.#capacity,
        preallocate: true,
      });
      this.#ownsPool = true;
    }
    this.#slots = Array.from({ length: this.#capacity }, () => new ReadSlot(this.#onReadSettled));
  }

  /** Address of the next frame `next()` will yield. */
  get position(): Address {
    return this.#inFlight > 0 ? this.#slots[this.#head]!.address : this.#cursor;
  }

  get end(): Address {
    return this.#end;
  }

  get closed(): boolean {
    return this.#state === 'closed';
  }

  /** Bytes the next sequential read asks for: the adaptive window, or the page size. */
  get window(): ByteCount {
    return this.#policy?.window ?? this.pageSize;
  }

  /** Bytes of frames this reader's pool holds now. */
  get memoryBytes(): ByteCount {
    return this.#pool.allocatedBytes;
  }

  get pool(): FramePool {
    return this.#pool;
  }

  stats(): PageReaderStats {
    return {
      mode: this.mode.kind,
      reads: this.#reads,
      bytesRequested: this.#bytesRequested,
      bytesRead: this.#bytesRead,
      framesYielded: this.#sequence,
      bytesYielded: this.#bytesYielded,
      readsDropped: this.#readsDropped,
      bytesDropped: this.#bytesDropped,
      window: this.window,
      inFlight: this.#inFlight,
      memoryBytes: this.#pool.allocatedBytes,
      memoryHighWater: this.#pool.highWaterBytes,
    };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next frame, or `{ done: true }` at the end of the range or the device. */
  next(): Promise<IteratorResult<Frame, undefined>> {
    if (this.#state === 'closed') return Promise.resolve(DONE);
    if (this.#pending !== undefined) return Promise.reject(new ReaderBusyError());
    return this.#track(this.#advance());
  }

  /**
   * Moves the reader to `address` (and optionally a new `end`). Reads in
   * flight are drained and dropped unless `address` is where the reader was
   * going next anyway. In adaptive mode a jump resets the window: the next
   * read is only what the caller needs, with nothing read ahead, until the
   * access proves sequential again.
   */
  seek(address: Address, end: Address = this.#end): Promise<void> {
    if (this.#state === 'closed') return Promise.reject(new ReaderClosedError());
    if (this.#pending !== undefined) return Promise.reject(new ReaderBusyError());
    try {
      checkRange(address, end);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#track(this.#seek(address, end));
  }

  /** Stops the reader: releases the current frame, drains and drops reads in flight. Idempotent. */
  async close(): Promise<void> {
    if (this.#state === 'closed' && this.#pending === undefined && this.#inFlight === 0) return;
    this.#state = 'closed';
    // Let a next()/seek() in progress finish its step first, so two drains
    // never walk the same slots; its own caller sees its outcome.
    const pending = this.#pending;
    if (pending !== undefined) await pending.catch(ignore);
    await this.#shutdown();
  }

  /** Early stop from `for await ... break`. */
  async return(): Promise<IteratorResult<Frame, undefined>> {
    await this.close();
    return DONE;
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#pending = work;
    // Clearing in a handler that swallows nothing: the caller still gets `work`'s rejection.
    work.then(this.#clearPending, this.#clearPending);
    return work;
  }

  readonly #clearPending = (): void => {
    this.#pending = undefined;
  };

  async #advance(): Promise<IteratorResult<Frame, undefined>> {
    this.#releaseCurrent();
    this.#fill();
    if (this.#inFlight === 0) return this.#ended();

    const slot = this.#slots[this.#head]!;
    if (slot.state === 'reading') await slot.settled;
    // close() came in while we waited: it drains this slot too.
    if (this.#state === 'closed') return DONE;
    this.#head = (this.#head + 1) % this.#capacity;
    this.#inFlight--;

    if (slot.state === 'failed') {
      const error = new PageReadError(slot.readAddress, slot.readLength, slot.error);
      this.#releaseSlot(slot);
      this.#state = 'closed';
      await this.#shutdown();
      throw error;
    }

    this.#bytesRead += slot.got;
    const gotEnd = slot.readAddress + slot.got;
    const short = slot.got < slot.readLength;
    if (this.#policy !== undefined) {
      const t = this.#policy.completed(slot.readLength, slot.got);
      // Buffers follow the window: grown ones are allocated as needed, and
      // after a reset every bigger frame is dropped as soon as it is free.
      if (t === 'grow' || t === 'reset-short') this.#pool.resize(this.#policy.window);
    }
    if (gotEnd < slot.validEnd) slot.validEnd = Math.max(slot.address, gotEnd);
    if (short) {
      // The device ends inside this read: anything read ahead lies beyond it.
      this.#eof = true;
      this.#cursor = slot.validEnd;
      await this.#dropInFlight();
    }
    if (slot.validEnd <= slot.address) {
      this.#releaseSlot(slot);
      return this.#ended();
    }
    slot.fillFrame(this.#sequence++);
    this.#bytesYielded += slot.validEnd - slot.address;
    this.#current = slot;
    return slot.result;
  }

  /** End of the stream (the reader stays open for `seek`). */
  #ended(): IteratorResult<Frame, undefined> {
    // Adaptive frames can be megabytes: hand them back rather than hold them
    // for a seek that may never come. Fixed frames are kept for reuse.
    if (this.#policy !== undefined) this.#pool.trim();
    return DONE;
  }

  async #seek(address: Address, end: Address): Promise<void> {
    this.#releaseCurrent();
    // Seeking to where the reader was going anyway keeps the reads in flight
    // (and the cursor, which is past them).
    if (address !== this.position || end !== this.#end) {
      await this.#dropInFlight();
      this.#cursor = address;
      this.#end = end;
    }
    this.#eof = false;
  }

  /**
   * A device read settled. With fewer concurrent reads than slots, the next
   * read ahead is issued now, not when the caller next asks: the reads stay
   * chained back to back while the caller works.
   */
  readonly #onReadSettled = (): void => {
    this.#reading--;
    if (this.#concurrent < this.#capacity && this.#state === 'open' && !this.#draining) {
      this.#fill(true);
    }
  };

  /**
   * Issues reads into free slots, as many as the mode allows, in address
   * order. `ahead`: only reads ahead of one already issued (from a settling
   * read), never the one the caller waits for, and never an error.
   */
  #fill(ahead = false): void {
    if (ahead && this.#inFlight === 0) return;
    // The caller's frame keeps its slot (the one before `#head`) until it asks again.
    const slots = this.#current === undefined ? this.#capacity : this.#capacity - 1;
    while (
      this.#inFlight < slots &&
      this.#reading < this.#concurrent &&
      !this.#eof &&
      this.#cursor < this.#end
    ) {
      // The first read is the one the caller waits for; the others are read-ahead,
      // which adaptive mode holds back after a jump.
      if (this.#inFlight > 0 && this.#policy !== undefined && !this.#policy.readsAhead) break;
      const slot = this.#slots[(this.#head + this.#inFlight) % this.#capacity]!;
      if (!this.#plan(slot)) break;
      this.#reading++;
      slot.start(this.device);
      this.#inFlight++;
      this.#reads++;
      this.#bytesRequested += slot.readLength;
    }
    if (!ahead && this.#inFlight === 0 && !this.#eof && this.#cursor < this.#end) {
      throw new PoolExhaustedError(
        `no free frame in the pool (${this.#pool.maxFrames} frames, all in use)`,
      );
    }
  }

  /** Sets `slot` up for the read at the cursor and advances the cursor; false when no frame is free. */
  #plan(slot: ReadSlot): boolean {
    const c = this.#cursor;
    const pageSize = this.pageSize;
    const alignment = this.#alignment;
    const pageBase = c - (c % pageSize);
    const pageEnd = pageBase + pageSize;
    const readAddress = c - (c % alignment);
    let validEnd: Address;
    let readEnd: Address;
    let bufferAddress: Address;
    let buffer: Buffer | undefined;

    const policy = this.#policy;
    if (policy === undefined) {
      buffer = this.#pool.acquire();
      if (buffer === undefined) return false;
      bufferAddress = pageBase;
      validEnd = Math.min(pageEnd, this.#end);
      readEnd = Math.min(alignUp(validEnd, alignment), pageEnd);
    } else {
      // What the caller needs next at least: the rest of this page, capped at
      // the minimum read so that huge pages do not defeat the reset.
      const demandEnd = Math.min(this.#end, pageEnd, c + policy.minReadSize);
      const size = policy.decide(c, demandEnd - c);
      if (policy.lastRequest === 'reset-non-sequential') this.#pool.resize(policy.window);
      buffer = this.#pool.acquire();
      if (buffer === undefined) return false;
      bufferAddress = readAddress;
      let target = c + size;
      // Whole pages per frame: a window that crosses a page boundary ends on one.
      if (target > pageEnd) target = Math.max(pageEnd, target - (target % pageSize));
      validEnd = Math.min(this.#end, target);
      readEnd = Math.min(alignUp(validEnd, alignment), readAddress + buffer.length);
      validEnd = Math.min(validEnd, readEnd);
      policy.issued(c, validEnd - c);
    }

    slot.buffer = buffer;
    slot.bufferAddress = bufferAddress;
    slot.address = c;
    slot.validEnd = validEnd;
    slot.readAddress = readAddress;
    slot.readLength = readEnd - readAddress;
    this.#cursor = validEnd;
    return true;
  }

  #releaseCurrent(): void {
    const slot = this.#current;
    if (slot === undefined) return;
    this.#current = undefined;
    this.#releaseSlot(slot);
  }

  #releaseSlot(slot: ReadSlot): void {
    const buffer = slot.buffer;
    slot.buffer = undefined;
    slot.state = 'idle';
    slot.error = undefined;
    slot.frame.clear();
    if (buffer !== undefined) this.#pool.release(buffer);
  }

  /** Waits for every read in flight (ignoring failures: nobody needs those frames) and frees its frame. */
  async #dropInFlight(): Promise<void> {
    this.#draining = true;
    try {
      await this.#dropAll();
    } finally {
      this.#draining = false;
    }
  }

  async #dropAll(): Promise<void> {
    while (this.#inFlight > 0) {
      const slot = this.#slots[this.#head]!;
      if (slot.state === 'reading') await slot.settled;
      if (slot.state === 'done') {
        this.#bytesRead += slot.got;
        this.#bytesDropped += slot.got;
      }
      this.#readsDropped++;
      this.#head = (this.#head + 1) % this.#capacity;
      this.#inFlight--;
      this.#releaseSlot(slot);
    }
  }

  async #shutdown(): Promise<void> {
    this.#releaseCurrent();
    await this.#dropInFlight();
    if (this.#ownsPool) this.#pool.trim();
  }
}

function checkRange(start: Address, end: Address): void {
  if (!Number.isSafeInteger(start) || start < 0) {
    throw new InvalidArgumentError(`start must be a non-negative integer address, got ${start}`);
  }
  if (!Number.isSafeInteger(end) || end < start) {
    throw new InvalidArgumentError(
      `end must be an integer address >= start (${start}), got ${end}`,
    );
  }
}

function alignUp(address: Address, alignment: ByteCount): Address {
  const r = address % alignment;
  return r === 0 ? address : address + alignment - r;
}

function ignore(): void {}
