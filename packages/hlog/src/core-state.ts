import type { AnyStrataError, Device } from '@strata/io';
import { AccessClock } from './access-clock.js';
import { EarlyReads } from './early-reads.js';
import { HlogError } from './errors.js';
import { HashIndex, type HashIndexStats } from './hash-index.js';
import { HybridLog, type HybridLogStats } from './hybrid-log.js';
import { KeyCount } from './key-count.js';
import { DamageLog } from './record-damage.js';
import {
  EXPIRY_SIZE,
  expiresAtOf,
  flagsOf,
  keyEquals,
  keyLengthOf,
  keyOffsetOf,
  previousAddress,
  RECORD_HEADER_SIZE,
  RecordFlag,
  type RecordSpace,
  RecordType,
  recordSize,
  valueLengthOf,
  valueOffsetOf,
  writeRecordHeader,
} from './record-layout.js';
import { ResolutionBatch } from './resolution-batch.js';
import {
  type Hint,
  K_ABSENT,
  K_EXPIRING,
  K_PLAIN,
  K_UNRESOLVED,
  L_DISK,
  L_FOUND,
  L_NONE,
  R_NEED_SPACE,
  R_OK,
} from './step-codes.js';
import type {
  FoundView,
  NotFoundView,
  NotSetView,
  RangeView,
  UpdatedView,
  ValueView,
  WrittenView,
  WrongTypeView,
} from './store-types.js';

export interface StoreCoreOptions {
  device: Device;
  /** Bytes of log page frames (the log's memory budget). Default 64 MiB. */
  memory?: number;
  /** Page size, a power of two. Default 1 MiB. */
  pageSize?: number;
  /** Initial hash index buckets (64 bytes each, ~5.5 keys each). Default 65536. */
  indexBuckets?: number;
  /** Share of the in-memory log updated in place. Default 0.9. */
  mutableFraction?: number;
  /** Values longer than this go to a blob (whole pages). Default pageSize / 4. */
  largeValueThreshold?: number;
  /**
   * Bytes per checksummed chunk of a blob (a power of two, 512 to 16 MiB;
   * default 64 KiB): what a ranged read of a large value loads at least.
   */
  blobChunkSize?: number;
  /** Clock in ms since the epoch (tests). Default Date.now. */
  clock?: () => number;
  /**
   * Called when the device fails a log write or sync (see `writeError`).
   * The store keeps the data in memory and retries on `retryWrites()` or
   * the next checkpoint.
   */
  onWriteError?: (error: AnyStrataError) => void;
}

export class MutableFound implements FoundView {
  readonly status = 'found' as const;
  bytes: Buffer = Buffer.alloc(0);
  offset = 0;
  length = 0;
  expiresAt = 0;
  type: RecordType = RecordType.STRING;
}

export class MutableRange implements RangeView {
  readonly status = 'found' as const;
  bytes: Buffer = Buffer.alloc(0);
  offset = 0;
  length = 0;
  from = 0;
  totalLength = 0;
  expiresAt = 0;
  blob = -1;
}

export class MutableWrongType implements WrongTypeView {
  readonly status = 'wrongType' as const;
  type: RecordType = RecordType.STRING;
  readonly old = null;
}

export class MutableUpdated implements UpdatedView {
  readonly status = 'ok' as const;
  bytes: Buffer = Buffer.alloc(0);
  offset = 0;
  length = 0;
  created = false;
}

export const EMPTY = Buffer.alloc(0);
export const NOT_FOUND: NotFoundView = Object.freeze({ status: 'notFound' as const });
export const DELETED = Object.freeze({ status: 'deleted' as const });
export const EXPIRY_OK = Object.freeze({ status: 'ok' as const });
export const EXPIRY_NOT_SET = Object.freeze({ status: 'notSet' as const });

/**
 * The state of the store core: the hash index over the hybrid log, with the operations
 * by region (DESIGN.md). Each operation is a synchronous *step* that either
 * finishes (records in memory: no promise, no allocation) or says what it
 * needs (a device read along the chain, a free frame, a blob read or write).
 * The async driver gets that, then runs the step again with what it learned
 * (`Hint`). A step re-reads the index every time and uses a disk result only
 * if the chain it came from is unchanged, so a pending operation that raced
 * a newer write retries: every key stays linearizable.
 */
export class CoreState {
  readonly log: HybridLog;
  index: HashIndex;
  /** The log's ring (re-read when `setMemory` replaces it: `onRingChange`). */
  ring: RecordSpace;
  readonly largeValueThreshold: number;
  readonly maxKeyLength: number;
  readonly clock: () => number;
  /**
   * The keys' access clock (Redis's LRU/LFU field, per index entry): its
   * owner ticks it and sets `touching` around each command that may touch.
   */
  access: AccessClock;
  closed = false;
  /**
   * While checkpoint hooks run: the promises of the operations they start
   * that go pending (the checkpoint waits for them before its mark).
   */
  pendingCapture: Promise<unknown>[] | null = null;

  // Scratch of the current step (valid until the next step).
  entry = 0;
  diskStart = 0;
  locSpace: RecordSpace;
  locOff = 0;
  locAddress = 0;
  locMutable = false;
  /** Flags of the located record when located (in-place changes re-read them). */
  locFlags = 0;
  locValueOff = 0;
  vBytes: Buffer;
  vOff = 0;
  vLen = 0;
  blobAddress = 0;
  blobLength = 0;
  blobKeyLength = 0;
  /** The part of the blob a ranged read needs (R_NEED_BLOB_RANGE). */
  rangeFrom = 0;
  rangeTo = 0;
  pendingBlob: Buffer | null = null;
  pendingBlobFor: unknown = null;
  pendingBlobOld = 0;
  oldScratch = Buffer.alloc(256);
  copyScratch = Buffer.alloc(256);
  readonly found = new MutableFound();
  readonly range = new MutableRange();
  readonly updated = new MutableUpdated();
  readonly oldView: ValueView = { bytes: this.oldScratch, offset: 0, length: 0 };
  readonly written: WrittenView = { status: 'ok', old: null };
  readonly notSet: NotSetView = { status: 'notSet', old: null };
  readonly wrongType = new MutableWrongType();
  /** The live-key count. */
  readonly count: KeyCount;
  /** Where the expiry cycle continues (a bucket). */
  expiryCursor = 0;
  /** Damage met on the device: records that failed verification, pages skipped (record-damage.ts). */
  readonly damage = new DamageLog();
  /** Pages of records without checksums whose page checksum was verified this session (legacy-page-check.ts). */
  readonly verifiedPages = new Set<number>();
  /** Device reads a pipelined run's prefetch started for the operations to come (early-reads.ts). */
  readonly earlyReads = new EarlyReads();
  readonly counters = {
    reads: 0,
    hits: 0,
    misses: 0,
    writes: 0,
    inPlace: 0,
    copies: 0,
    pending: 0,
    retries: 0,
    diskReads: 0,
    expired: 0,
  };

  constructor(options: StoreCoreOptions, log?: HybridLog, index?: HashIndex) {
    const pageSize = options.pageSize ?? 1 << 20;
    this.log =
      log ??
      new HybridLog({
        device: options.device,
        memory: options.memory ?? 64 << 20,
        pageSize,
        mutableFraction: options.mutableFraction ?? 0.9,
        epoch: 1,
        ...(options.blobChunkSize === undefined ? {} : { blobChunkSize: options.blobChunkSize }),
      });
    this.index = index ?? new HashIndex({ initialBuckets: options.indexBuckets ?? 1 << 16 });
    if (options.onWriteError !== undefined) this.log.onWriteError = options.onWriteError;
    this.ring = this.log.ring;
    this.locSpace = this.ring;
    this.vBytes = this.ring.bytes;
    this.log.onRingChange = () => {
      // Between operations: the scratch views of the last step go with the old ring.
      this.ring = this.log.ring;
      this.locSpace = this.ring;
      this.vBytes = this.ring.bytes;
      // Views of the last read must not keep the old ring alive.
      this.found.bytes = EMPTY;
      this.range.bytes = EMPTY;
      this.updated.bytes = EMPTY;
    };
    this.clock = options.clock ?? Date.now;
    this.access = new AccessClock(this.clock);
    // Outside a command nothing touches (write-backs, compaction, recounts).
    this.access.touching = false;
    this.index.clock = this.access;
    if (!this.index.accessLoaded) this.index.fillAccess(this.access.fresh);
    // Chain reads of the count batched per page (one read serves many).
    const batch = new ResolutionBatch(this);
    this.count = new KeyCount(this.clock, (key, start) => batch.read(key, start));
    this.maxKeyLength = Math.min(64 * 1024, Math.floor(this.log.pageSize / 4) - 64);
    const threshold = options.largeValueThreshold ?? Math.floor(this.log.pageSize / 4);
    // An inline record (header, expiry, key, value) must fit one page.
    this.largeValueThreshold = Math.min(threshold, this.log.maxRecordSize - 32 - this.maxKeyLength);
  }

  /**
   * Finds the newest record of `key`: in memory (L_FOUND, loc* set), not at
   * all (L_NONE), or behind an on-device address (L_DISK, diskStart set) —
   * unless `hint` already walked that same chain from the device.
   */
  locate(key: Uint8Array, h: number, hint: Hint | null): number {
    const entry = this.index.find(h);
    this.entry = entry;
    const log = this.log;
    const s = this.ring;
    const ringBytes = log.ringBytes;
    const begin = log.begin;
    const head = log.head;
    const keyLength = key.length;
    let a = entry;
    while (a !== 0) {
      if (a < begin) return L_NONE;
      if (a < head) break;
      const off = a - Math.floor(a / ringBytes) * ringBytes;
      const flags = flagsOf(s, off);
      if ((flags & RecordFlag.INVALID) === 0 && keyLengthOf(s, off) === keyLength) {
        const ko =
          off + RECORD_HEADER_SIZE + ((flags & RecordFlag.HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0);
        if (keyEquals(s.bytes, ko, keyLength, key)) {
          this.locSpace = s;
          this.locOff = off;
          this.locFlags = flags;
          this.locValueOff = ko + keyLength;
          this.locAddress = a;
          this.locMutable = a >= log.readOnly;
          return L_FOUND;
        }
      }
      a = previousAddress(s, off);
    }
    if (a === 0) return L_NONE;
    this.diskStart = a;
    if (
      hint?.walked &&
      hint.entry === entry &&
      hint.start === a &&
      (!hint.found || hint.address >= log.begin)
    ) {
      if (!hint.found) return L_NONE;
      const hs = hint.space!;
      this.locSpace = hs;
      this.locOff = 0;
      this.locFlags = flagsOf(hs, 0);
      this.locValueOff = valueOffsetOf(hs, 0);
      this.locAddress = hint.address;
      this.locMutable = false;
      return L_FOUND;
    }
    return L_DISK;
  }

  /**
   * Makes `clock` this store's access clock (a server shares one among its
   * databases: one policy, one tick, one `touching` per command).
   */
  useAccessClock(clock: AccessClock): void {
    this.access = clock;
    this.index.clock = clock;
  }

  /** Is the located record a live value (not deleted, not expired)? */
  locLive(): boolean {
    const flags = this.locFlags;
    if ((flags & RecordFlag.TOMBSTONE) !== 0) return false;
    if ((flags & RecordFlag.HAS_EXPIRY) !== 0) {
      const exp = this.locSpace.f64[(this.locOff + RECORD_HEADER_SIZE) >>> 3]!;
      if (exp !== 0 && exp <= this.clock()) return false;
    }
    return true;
  }

  /** Points vBytes/vOff/vLen at the located value; false if it is an unread blob. */
  locValue(hint: Hint | null): boolean {
    const s = this.locSpace;
    const off = this.locOff;
    const vo = this.locValueOff;
    const len = valueLengthOf(s, off);
    if ((this.locFlags & RecordFlag.OVERFLOW) !== 0) {
      const blob = s.bytes.readDoubleLE(vo);
      if (hint !== null && hint.oldBlobAddress === blob && hint.oldBlob !== null) {
        this.vBytes = hint.oldBlob;
        this.vOff = 0;
        this.vLen = len;
        return true;
      }
      this.blobAddress = blob;
      this.blobLength = len;
      this.blobKeyLength = keyLengthOf(s, off);
      return false;
    }
    this.vBytes = s.bytes;
    this.vOff = vo;
    this.vLen = len;
    return true;
  }

  /**
   * The state of `key` before a write, right after `locate` returned `st`:
   * absent, a value without expiry, a value with an expiry (possibly passed),
   * or unresolved (a blind write whose newest record is on the device).
   */
  keyState(key: Uint8Array, st: number): number {
    if (st === L_FOUND) {
      const flags = this.locFlags;
      if ((flags & RecordFlag.TOMBSTONE) !== 0) return K_ABSENT;
      if ((flags & RecordFlag.HAS_EXPIRY) !== 0 && expiresAtOf(this.locSpace, this.locOff) !== 0) {
        return K_EXPIRING;
      }
      return K_PLAIN;
    }
    // A key with an expiry is always in the count's table (or its expiry has
    // passed, and it counts for nothing either way).
    if (this.count.hasExpiring(key)) return K_EXPIRING;
    return st === L_NONE ? K_ABSENT : K_UNRESOLVED;
  }

  /**
   * Applies a write of `key` from state `prev` to `exp` (-1 deleted, 0 no
   * expiry); `created`: no live value was there (its access word restarts).
   */
  keyChanged(key: Uint8Array, prev: number, exp: number, created = prev === K_ABSENT): void {
    this.count.changed(key, prev, exp, this.diskStart);
    if (exp < 0) return;
    // A write reaches its key's entry: the index's last entry is it. A key
    // written where none lived (absent, deleted, expired) starts afresh.
    if (created) this.index.setLastAccess(this.access.fresh);
    else if (this.access.touching) this.index.touchLast();
  }

  /**
   * Appends a record at the tail, chained to the current entry, and points
   * the index at it. `value` null writes no inline bytes (tombstone, blob).
   */
  appendRecord(
    key: Uint8Array,
    h: number,
    flags: number,
    value: Uint8Array | null,
    valueOffset: number,
    valueLength: number,
    blobAddress: number,
    exp: number,
    type: RecordType,
  ): number {
    const overflow = (flags & RecordFlag.OVERFLOW) !== 0;
    const inline = value === null ? 0 : valueLength;
    const size = recordSize(key.length, inline, exp !== 0, overflow);
    const a = this.log.allocate(size);
    if (a === 0) return R_NEED_SPACE;
    let src = value;
    let srcOff = valueOffset;
    if (value === this.ring.bytes && inline > 0) {
      // The source may sit in a frame this allocation just recycled.
      const scratch = this.scratchFor(inline);
      this.ring.bytes.copy(scratch, 0, valueOffset, valueOffset + inline);
      src = scratch;
      srcOff = 0;
    }
    const vo = this.writeNew(a, size, flags, key, overflow ? valueLength : inline, exp, type);
    if (overflow) this.ring.bytes.writeDoubleLE(blobAddress, vo);
    else if (src !== null && inline > 0) copyBytes(src, srcOff, inline, this.ring.bytes, vo);
    this.index.compareAndSet(h, this.entry, a);
    this.counters.copies++;
    return R_OK;
  }

  /** Writes header and key of a new record at `a`; returns its value offset. */
  writeNew(
    a: number,
    size: number,
    flags: number,
    key: Uint8Array,
    valueLength: number,
    exp: number,
    type: RecordType,
  ): number {
    const s = this.ring;
    const off = this.log.offsetOf(a);
    const f = exp !== 0 ? flags | RecordFlag.HAS_EXPIRY : flags;
    writeRecordHeader(s, off, this.entry, f, type, key.length, valueLength, exp, size);
    const ko = keyOffsetOf(s, off);
    copyBytes(key, 0, key.length, s.bytes, ko);
    return ko + key.length;
  }

  /**
   * After an allocation, the located old value may sit in the frame just
   * recycled for the new page: copy it aside before writing the new record.
   */
  protectSource(): void {
    if (this.vBytes === this.ring.bytes && this.locAddress < this.log.head) {
      const scratch = this.scratchFor(this.vLen);
      this.ring.bytes.copy(scratch, 0, this.vOff, this.vOff + this.vLen);
      this.vBytes = scratch;
      this.vOff = 0;
    }
  }

  scratchFor(n: number): Buffer {
    if (this.copyScratch.length < n)
      this.copyScratch = Buffer.alloc(Math.max(n, this.copyScratch.length * 2));
    return this.copyScratch;
  }

  copyOld(): ValueView {
    if (this.oldScratch.length < this.vLen) {
      this.oldScratch = Buffer.alloc(Math.max(this.vLen, this.oldScratch.length * 2));
    }
    this.vBytes.copy(this.oldScratch, 0, this.vOff, this.vOff + this.vLen);
    this.oldView.bytes = this.oldScratch;
    this.oldView.offset = 0;
    this.oldView.length = this.vLen;
    return this.oldView;
  }

  checkKey(key: Uint8Array): void {
    if (this.closed) throw new HlogError('ERR_STORE_CLOSED', 'store is closed');
    if (key.length > this.maxKeyLength) {
      throw new HlogError('ERR_INVALID_ARGUMENT', `key longer than ${this.maxKeyLength} bytes`);
    }
  }

  coreStats(): { log: HybridLogStats; index: HashIndexStats; ops: Record<string, number> } {
    return { log: this.log.stats(), index: this.index.stats(), ops: { ...this.counters } };
  }
}

/** Copies bytes; a JS loop beats the native call for short keys. */
export function copyBytes(
  src: Uint8Array,
  srcOff: number,
  len: number,
  dst: Uint8Array,
  dstOff: number,
): void {
  if (len <= 24) {
    for (let i = 0; i < len; i++) dst[dstOff + i] = src[srcOff + i]!;
  } else if (srcOff === 0 && len === src.length) {
    // A whole value (SET's): no view to make (a Buffer's subarray runs its constructor).
    dst.set(src, dstOff);
  } else {
    dst.set(src.subarray(srcOff, srcOff + len), dstOff);
  }
}
