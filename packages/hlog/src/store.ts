import type { Device, StrataError } from '@strata/io';
import { isStrataError } from '@strata/io';
import { HlogError } from './errors.js';
import { HashIndex, type HashIndexStats } from './hash-index.js';
import { HybridLog, type HybridLogStats } from './hybrid-log.js';
import { hashKey } from './key-hash.js';
import {
  BLOB_PREFIX_SIZE,
  blobChecksum,
  PAGE_HEADER_SIZE,
  PAGE_MAGIC,
  PageFlag,
} from './page-header.js';
import {
  clearFlag,
  createRecordSpace,
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
  resizeValueInPlace,
  setExpiresAt,
  setFlag,
  setTypeOf,
  slotSize,
  typeOf,
  valueCapacity,
  valueLengthOf,
  valueOffsetOf,
  writeHeader,
} from './record-layout.js';
import {
  ANY_RECORD_TYPE,
  type AppendContext,
  appendFunctions,
  type FunctionContext,
  functionFunctions,
  type IncrContext,
  incrFunctions,
  MAX_VALUE_LENGTH,
  RMW_WRONG_TYPE,
  type RmwFunctions,
  type SetRangeContext,
  setRangeFunctions,
  type UpdateFunction,
} from './rmw-functions.js';
import {
  type DeleteResult,
  type DeleteView,
  type ExpiryResult,
  type ExpiryView,
  type FoundView,
  type NotFoundView,
  type NotSetView,
  type ReadResult,
  type ReadView,
  type RmwResult,
  type RmwView,
  SetFlag,
  type SetOptions,
  type SetResult,
  type UpdatedView,
  type UpsertView,
  type ValueView,
  type WrittenView,
  type WrongTypeView,
} from './store-types.js';

// Step outcomes: final ones first, then what the async driver must do.
const R_OK = 0;
const R_NOT_FOUND = 1;
const R_NOT_SET = 2;
const R_NEED_DISK = 3;
const R_NEED_SPACE = 4;
const R_NEED_BLOB_READ = 5;
const R_NEED_BLOB_WRITE = 6;
const R_WRONG_TYPE = 7;

// Where `locate` found the key's newest record.
const L_NONE = 0;
const L_FOUND = 1;
const L_DISK = 2;

// A key's state for the live-key count (before / after a write).
const K_UNRESOLVED = -1;
const K_ABSENT = 0;
const K_PLAIN = 1;
const K_EXPIRING = 2;

const EXPIRY_SET = 0;
const EXPIRY_PERSIST = 1;

/** Bytes read for a record on the device before its size is known. */
const FIRST_READ = 512;
const MAX_RETRIES = 1000;

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
  /** Clock in ms since the epoch (tests). Default Date.now. */
  clock?: () => number;
  /**
   * Called when the device fails a log write or sync (see `writeError`).
   * The store keeps the data in memory and retries on `retryWrites()` or
   * the next checkpoint.
   */
  onWriteError?: (error: StrataError) => void;
}

/** What a pending operation learned so far, carried across its retries. */
class Hint {
  /** The chain head and first on-device address the disk walk started from. */
  walked = false;
  entry = 0;
  start = 0;
  found = false;
  space: RecordSpace | null = null;
  address = 0;
  oldBlobAddress = -1;
  oldBlob: Buffer | null = null;
  newBlobFor: unknown = null;
  newBlobEntry = 0;
  newBlobOld = 0;
  newBlobAddress = 0;
  newBlobValue: Buffer | null = null;
  /** A record the caller already holds (compaction): no read needed for it. */
  knownAddress = -1;
  knownSpace: RecordSpace | null = null;
}

class MutableFound implements FoundView {
  readonly status = 'found' as const;
  bytes: Buffer = Buffer.alloc(0);
  offset = 0;
  length = 0;
  expiresAt = 0;
  type: RecordType = RecordType.STRING;
}

class MutableWrongType implements WrongTypeView {
  readonly status = 'wrongType' as const;
  type: RecordType = RecordType.STRING;
  readonly old = null;
}

class MutableUpdated implements UpdatedView {
  readonly status = 'ok' as const;
  bytes: Buffer = Buffer.alloc(0);
  offset = 0;
  length = 0;
  created = false;
}

const EMPTY = Buffer.alloc(0);
const NOT_FOUND: NotFoundView = Object.freeze({ status: 'notFound' as const });
const DELETED = Object.freeze({ status: 'deleted' as const });
const EXPIRY_OK = Object.freeze({ status: 'ok' as const });
const EXPIRY_NOT_SET = Object.freeze({ status: 'notSet' as const });

/**
 * The store core: the hash index over the hybrid log, with the operations
 * by region (DESIGN.md). Each operation is a synchronous *step* that either
 * finishes (records in memory: no promise, no allocation) or says what it
 * needs (a device read along the chain, a free frame, a blob read or write).
 * The async driver gets that, then runs the step again with what it learned
 * (`Hint`). A step re-reads the index every time and uses a disk result only
 * if the chain it came from is unchanged, so a pending operation that raced
 * a newer write retries: every key stays linearizable.
 */
export class StoreCore {
  readonly log: HybridLog;
  index: HashIndex;
  protected readonly ring: RecordSpace;
  readonly largeValueThreshold: number;
  readonly maxKeyLength: number;
  protected readonly clock: () => number;
  protected closed = false;

  // Scratch of the current step (valid until the next step).
  private entry = 0;
  private diskStart = 0;
  private locSpace: RecordSpace;
  private locOff = 0;
  private locAddress = 0;
  private locMutable = false;
  /** Flags of the located record when located (in-place changes re-read them). */
  private locFlags = 0;
  private locValueOff = 0;
  private vBytes: Buffer;
  private vOff = 0;
  private vLen = 0;
  private blobAddress = 0;
  private blobLength = 0;
  private blobKeyLength = 0;
  private pendingBlob: Buffer | null = null;
  private pendingBlobFor: unknown = null;
  private pendingBlobOld = 0;
  private oldScratch = Buffer.alloc(256);
  private copyScratch = Buffer.alloc(256);
  private readonly found = new MutableFound();
  private readonly updated = new MutableUpdated();
  private readonly oldView: ValueView = { bytes: this.oldScratch, offset: 0, length: 0 };
  private readonly written: WrittenView = { status: 'ok', old: null };
  private readonly notSet: NotSetView = { status: 'notSet', old: null };
  private readonly wrongType = new MutableWrongType();
  /** Live-key count: keys whose newest record is a value without expiry. */
  protected plainKeys = 0;
  /** Keys whose newest record is a value with an expiry, and that expiry. */
  protected readonly expiringKeys = new Map<string, number>();
  /** Background reads deciding whether a blind write's key existed. */
  private readonly resolutions = new Set<Promise<void>>();
  private countFailure: unknown = null;
  protected readonly counters = {
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
      });
    this.index = index ?? new HashIndex({ initialBuckets: options.indexBuckets ?? 1 << 16 });
    if (options.onWriteError !== undefined) this.log.onWriteError = options.onWriteError;
    this.ring = this.log.ring;
    this.locSpace = this.ring;
    this.vBytes = this.ring.bytes;
    this.clock = options.clock ?? Date.now;
    this.maxKeyLength = Math.min(64 * 1024, Math.floor(this.log.pageSize / 4) - 64);
    const threshold = options.largeValueThreshold ?? Math.floor(this.log.pageSize / 4);
    // An inline record (header, expiry, key, value) must fit one page.
    this.largeValueThreshold = Math.min(threshold, this.log.maxRecordSize - 32 - this.maxKeyLength);
  }

  // ---- sync core API ---------------------------------------------------------

  /** Reads `key`: found (a view into the log) / notFound / pending. */
  read(key: Uint8Array): ReadView {
    return this.readWith(key, true);
  }

  /** Like `read`, for existence and expiry only: the view's bytes are not set. */
  probe(key: Uint8Array): ReadView {
    return this.readWith(key, false);
  }

  private readWith(key: Uint8Array, wantValue: boolean): ReadView {
    this.checkKey(key);
    const h = hashKey(key);
    this.counters.reads++;
    const code = this.getStep(key, h, null, wantValue);
    if (code === R_OK) return this.found;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    return this.pendingView(
      this.drive(
        key,
        code,
        (hint) => this.getStep(key, h, hint, wantValue),
        (c) => this.readResult(c, wantValue),
      ),
    );
  }

  /**
   * Writes `value` under `key`. `expiresAt` in ms since the epoch (0 = none);
   * `flags` from SetFlag. The value is copied into the log (a large one is
   * written from `value`, which must stay unchanged until the promise settles).
   * `type` is the record's type (whatever the key held before is replaced;
   * with SetFlag.GET an old value of another type ends in `wrongType`).
   */
  upsert(
    key: Uint8Array,
    value: Uint8Array,
    expiresAt = 0,
    flags = 0,
    type: RecordType = RecordType.STRING,
  ): UpsertView {
    this.checkKey(key);
    if (value.length > MAX_VALUE_LENGTH) {
      throw new HlogError('ERR_VALUE_TOO_LARGE', 'string exceeds maximum allowed size (512MB)');
    }
    const h = hashKey(key);
    this.counters.writes++;
    const code = this.upsertStep(key, h, value, expiresAt, flags, type, null);
    if (code === R_OK) return this.written;
    if (code === R_NOT_SET) return this.notSet;
    if (code === R_WRONG_TYPE) return this.wrongType;
    return this.pendingView(
      this.drive(
        key,
        code,
        (hint) => this.upsertStep(key, h, value, expiresAt, flags, type, hint),
        (c) => this.setResult(c),
      ),
    );
  }

  /** Deletes `key` (a tombstone). */
  remove(key: Uint8Array): DeleteView {
    this.checkKey(key);
    const h = hashKey(key);
    this.counters.writes++;
    const code = this.deleteStep(key, h, null);
    if (code === R_OK) return DELETED;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    return this.pendingView(
      this.drive(
        key,
        code,
        (hint) => this.deleteStep(key, h, hint),
        (c): DeleteResult => (c === R_OK ? { status: 'deleted' } : { status: 'notFound' }),
      ),
    );
  }

  /** Read-modify-write with value functions (see RmwFunctions). */
  readModifyWrite<C>(key: Uint8Array, fns: RmwFunctions<C>, ctx: C): RmwView {
    this.checkKey(key);
    const h = hashKey(key);
    this.counters.writes++;
    const code = this.rmwStep(key, h, fns, ctx, null);
    if (code === R_OK) return this.updated;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    if (code === R_WRONG_TYPE) return this.wrongType;
    return this.pendingView(
      this.drive(
        key,
        code,
        (hint) => this.rmwStep(key, h, fns, ctx, hint),
        (c) => this.rmwResult(c),
      ),
    );
  }

  /** Sets (expiresAt > 0) or removes (expiresAt = 0) the expiry of an existing key. */
  setExpiry(key: Uint8Array, expiresAt: number): ExpiryView {
    this.checkKey(key);
    const h = hashKey(key);
    const mode = expiresAt === 0 ? EXPIRY_PERSIST : EXPIRY_SET;
    const code = this.expiryStep(key, h, expiresAt, mode, null);
    if (code === R_OK) return EXPIRY_OK;
    if (code === R_NOT_SET) return EXPIRY_NOT_SET;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    return this.pendingView(
      this.drive(
        key,
        code,
        (hint) => this.expiryStep(key, h, expiresAt, mode, hint),
        (c): ExpiryResult =>
          c === R_OK
            ? { status: 'ok' }
            : c === R_NOT_SET
              ? { status: 'notSet' }
              : { status: 'notFound' },
      ),
    );
  }

  // ---- steps -----------------------------------------------------------------

  /**
   * Finds the newest record of `key`: in memory (L_FOUND, loc* set), not at
   * all (L_NONE), or behind an on-device address (L_DISK, diskStart set) —
   * unless `hint` already walked that same chain from the device.
   */
  private locate(key: Uint8Array, h: number, hint: Hint | null): number {
    const entry = this.index.find(h);
    this.entry = entry;
    const log = this.log;
    const s = this.ring;
    const u32 = s.u32;
    const ringBytes = log.ringBytes;
    const begin = log.begin;
    const head = log.head;
    const keyLength = key.length;
    let a = entry;
    // The hot loop reads header words directly (layout in record-layout.ts).
    while (a !== 0) {
      if (a < begin) return L_NONE;
      if (a < head) break;
      const off = a - Math.floor(a / ringBytes) * ringBytes;
      const w = off >>> 2;
      const word1 = u32[w + 1]!;
      const flags = (word1 >>> 16) & 0xff;
      if ((flags & RecordFlag.INVALID) === 0 && u32[w + 2] === keyLength) {
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
      const high = word1 & 0xffff;
      a = high === 0 ? u32[w]! : u32[w]! + high * 4294967296;
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

  /** Is the located record a live value (not deleted, not expired)? */
  private locLive(): boolean {
    const flags = this.locFlags;
    if ((flags & RecordFlag.TOMBSTONE) !== 0) return false;
    if ((flags & RecordFlag.HAS_EXPIRY) !== 0) {
      const exp = this.locSpace.f64[(this.locOff + RECORD_HEADER_SIZE) >>> 3]!;
      if (exp !== 0 && exp <= this.clock()) return false;
    }
    return true;
  }

  /** Points vBytes/vOff/vLen at the located value; false if it is an unread blob. */
  private locValue(hint: Hint | null): boolean {
    const s = this.locSpace;
    const off = this.locOff;
    const vo = this.locValueOff;
    const len = s.u32[(off >>> 2) + 3]!;
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

  private getStep(key: Uint8Array, h: number, hint: Hint | null, wantValue = true): number {
    const st = this.locate(key, h, hint);
    if (st === L_DISK) return R_NEED_DISK;
    if (st === L_NONE || !this.locLive()) {
      this.counters.misses++;
      return R_NOT_FOUND;
    }
    const f = this.found;
    if (wantValue) {
      if (!this.locValue(hint)) return R_NEED_BLOB_READ;
      f.bytes = this.vBytes;
      f.offset = this.vOff;
      f.length = this.vLen;
    } else {
      f.length = valueLengthOf(this.locSpace, this.locOff);
      f.offset = 0;
    }
    f.expiresAt =
      (this.locFlags & RecordFlag.HAS_EXPIRY) !== 0
        ? this.locSpace.f64[(this.locOff + RECORD_HEADER_SIZE) >>> 3]!
        : 0;
    f.type = typeOf(this.locSpace, this.locOff);
    this.counters.hits++;
    return R_OK;
  }

  private upsertStep(
    key: Uint8Array,
    h: number,
    value: Uint8Array,
    expiresAt: number,
    flags: number,
    type: RecordType,
    hint: Hint | null,
  ): number {
    const st = this.locate(key, h, hint);
    // A blind upsert needs no old value: it never waits for the device.
    if (st === L_DISK && flags !== 0) return R_NEED_DISK;
    const found = st === L_FOUND;
    const live = found && this.locLive();
    const prev = this.keyState(key, st);
    let exp = expiresAt;
    if (flags !== 0) {
      this.written.old = null;
      this.notSet.old = null;
      if ((flags & SetFlag.GET) !== 0 && live) {
        const old = typeOf(this.locSpace, this.locOff);
        if (old !== type) {
          this.wrongType.type = old;
          return R_WRONG_TYPE;
        }
        if (!this.locValue(hint)) return R_NEED_BLOB_READ;
        this.written.old = this.notSet.old = this.copyOld();
      }
      if ((flags & SetFlag.NX) !== 0 && live) return R_NOT_SET;
      if ((flags & SetFlag.XX) !== 0 && !live) return R_NOT_SET;
      if ((flags & SetFlag.KEEP_TTL) !== 0 && live) exp = expiresAtOf(this.locSpace, this.locOff);
    }
    if (value.length > this.largeValueThreshold) {
      if (hint === null || hint.newBlobFor !== value) {
        this.pendingBlob = Buffer.from(value.buffer, value.byteOffset, value.length);
        this.pendingBlobFor = value;
        this.pendingBlobOld = -1;
        return R_NEED_BLOB_WRITE;
      }
      const code = this.appendRecord(
        key,
        h,
        RecordFlag.OVERFLOW,
        null,
        0,
        value.length,
        hint.newBlobAddress,
        exp,
        type,
      );
      if (code === R_OK) this.keyChanged(key, prev, exp);
      return code;
    }
    if (found && this.locMutable && this.fitsInPlace(value.length, exp)) {
      const s = this.ring;
      const off = this.locOff;
      const vo = valueOffsetOf(s, off);
      const slot = slotSize(s, off);
      copyBytes(value, 0, value.length, s.bytes, vo);
      resizeValueInPlace(s, off, value.length, slot);
      if (exp !== 0 || (flagsOf(s, off) & RecordFlag.HAS_EXPIRY) !== 0) setExpiresAt(s, off, exp);
      clearFlag(s, off, RecordFlag.TOMBSTONE);
      setTypeOf(s, off, type);
      this.counters.inPlace++;
      this.keyChanged(key, prev, exp);
      return R_OK;
    }
    const code = this.appendRecord(key, h, 0, value, 0, value.length, 0, exp, type);
    if (code === R_OK) this.keyChanged(key, prev, exp);
    return code;
  }

  private fitsInPlace(length: number, exp: number): boolean {
    const s = this.ring;
    const off = this.locOff;
    const flags = flagsOf(s, off);
    if ((flags & RecordFlag.OVERFLOW) !== 0) return false;
    if (exp !== 0 && (flags & RecordFlag.HAS_EXPIRY) === 0) return false;
    return length <= valueCapacity(s, off);
  }

  private deleteStep(key: Uint8Array, h: number, hint: Hint | null): number {
    const st = this.locate(key, h, hint);
    if (st === L_DISK) return R_NEED_DISK;
    if (st === L_NONE || !this.locLive()) return R_NOT_FOUND;
    const prev = this.keyState(key, st);
    if (this.locMutable) {
      setFlag(this.ring, this.locOff, RecordFlag.TOMBSTONE);
      this.counters.inPlace++;
      this.keyChanged(key, prev, -1);
      return R_OK;
    }
    const code = this.appendRecord(
      key,
      h,
      RecordFlag.TOMBSTONE,
      null,
      0,
      0,
      0,
      0,
      RecordType.STRING,
    );
    if (code === R_OK) this.keyChanged(key, prev, -1);
    return code;
  }

  private rmwStep<C>(
    key: Uint8Array,
    h: number,
    fns: RmwFunctions<C>,
    ctx: C,
    hint: Hint | null,
  ): number {
    const st = this.locate(key, h, hint);
    if (st === L_DISK) return R_NEED_DISK;
    const live = st === L_FOUND && this.locLive();
    const want = fns.recordType ?? RecordType.STRING;
    // The record's type, kept by an update; a created record gets `want`.
    const type: RecordType = live
      ? typeOf(this.locSpace, this.locOff)
      : want === ANY_RECORD_TYPE
        ? RecordType.STRING
        : want;
    if (live && want !== ANY_RECORD_TYPE && type !== want) {
      this.wrongType.type = type;
      return R_WRONG_TYPE;
    }
    const oldAddress = live ? this.locAddress : 0;
    const exp = live ? expiresAtOf(this.locSpace, this.locOff) : 0;
    const prev = this.keyState(key, st);
    const u = this.updated;
    u.created = !live;
    if (hint?.newBlobValue && hint.newBlobEntry === this.entry && hint.newBlobOld === oldAddress) {
      // The new large value was computed from this very state and is written.
      const blob = hint.newBlobValue;
      const code = this.appendRecord(
        key,
        h,
        RecordFlag.OVERFLOW,
        null,
        0,
        blob.length,
        hint.newBlobAddress,
        exp,
        type,
      );
      if (code !== R_OK) return code;
      this.keyChanged(key, prev, exp);
      u.bytes = blob;
      u.offset = 0;
      u.length = blob.length;
      return R_OK;
    }
    if (!live) {
      const len = fns.initialLength(ctx);
      if (len < 0) return R_NOT_FOUND;
      if (len > this.largeValueThreshold) {
        const buf = Buffer.allocUnsafe(len);
        fns.initialValue(ctx, buf, 0, len);
        this.pendingBlob = buf;
        this.pendingBlobOld = 0;
        return R_NEED_BLOB_WRITE;
      }
      const size = recordSize(key.length, len, false);
      const a = this.log.allocate(size);
      if (a === 0) return R_NEED_SPACE;
      const vo = this.writeNew(a, size, 0, key, len, 0, type);
      fns.initialValue(ctx, this.ring.bytes, vo, len);
      this.index.compareAndSet(h, this.entry, a);
      this.keyChanged(key, prev, 0);
      u.bytes = this.ring.bytes;
      u.offset = vo;
      u.length = len;
      return R_OK;
    }
    if (!this.locValue(hint)) return R_NEED_BLOB_READ;
    const len = fns.updatedLength(ctx, this.vBytes, this.vOff, this.vLen, type);
    if (len === RMW_WRONG_TYPE) {
      this.wrongType.type = type;
      return R_WRONG_TYPE;
    }
    if (len < 0) {
      u.bytes = this.vBytes;
      u.offset = this.vOff;
      u.length = this.vLen;
      return R_OK;
    }
    if (len > this.largeValueThreshold) {
      const buf = Buffer.allocUnsafe(len);
      fns.update(ctx, this.vBytes, this.vOff, this.vLen, buf, 0, len);
      this.pendingBlob = buf;
      this.pendingBlobOld = oldAddress;
      return R_NEED_BLOB_WRITE;
    }
    if (this.locMutable && this.fitsInPlace(len, exp)) {
      const s = this.ring;
      const slot = slotSize(s, this.locOff);
      fns.update(ctx, s.bytes, this.vOff, this.vLen, s.bytes, this.vOff, len);
      resizeValueInPlace(s, this.locOff, len, slot);
      this.counters.inPlace++;
      this.keyChanged(key, prev, exp);
      u.bytes = s.bytes;
      u.offset = this.vOff;
      u.length = len;
      return R_OK;
    }
    const size = recordSize(key.length, len, exp !== 0);
    const a = this.log.allocate(size);
    if (a === 0) return R_NEED_SPACE;
    this.protectSource();
    const vo = this.writeNew(a, size, 0, key, len, exp, type);
    fns.update(ctx, this.vBytes, this.vOff, this.vLen, this.ring.bytes, vo, len);
    this.index.compareAndSet(h, this.entry, a);
    this.counters.copies++;
    this.keyChanged(key, prev, exp);
    u.bytes = this.ring.bytes;
    u.offset = vo;
    u.length = len;
    return R_OK;
  }

  private expiryStep(
    key: Uint8Array,
    h: number,
    expiresAt: number,
    mode: number,
    hint: Hint | null,
  ): number {
    const st = this.locate(key, h, hint);
    if (st === L_DISK) return R_NEED_DISK;
    if (st === L_NONE || !this.locLive()) return R_NOT_FOUND;
    const s = this.locSpace;
    const off = this.locOff;
    const current = expiresAtOf(s, off);
    if (mode === EXPIRY_PERSIST && current === 0) return R_NOT_SET;
    const prev = this.keyState(key, st);
    const flags = flagsOf(s, off);
    if (this.locMutable && (flags & RecordFlag.HAS_EXPIRY) !== 0) {
      setExpiresAt(s, off, expiresAt);
      this.keyChanged(key, prev, expiresAt);
      return R_OK;
    }
    const code = this.expiryCopy(key, h, s, off, flags, expiresAt);
    if (code === R_OK) this.keyChanged(key, prev, expiresAt);
    return code;
  }

  private expiryCopy(
    key: Uint8Array,
    h: number,
    s: RecordSpace,
    off: number,
    flags: number,
    expiresAt: number,
  ): number {
    // Copy to the tail with the new expiry; a blob is shared, not copied.
    const overflow = (flags & RecordFlag.OVERFLOW) !== 0;
    const vo = valueOffsetOf(s, off);
    const type = typeOf(s, off);
    if (overflow) {
      return this.appendRecord(
        key,
        h,
        RecordFlag.OVERFLOW,
        null,
        0,
        valueLengthOf(s, off),
        s.bytes.readDoubleLE(vo),
        expiresAt,
        type,
      );
    }
    return this.appendRecord(key, h, 0, s.bytes, vo, valueLengthOf(s, off), 0, expiresAt, type);
  }

  /**
   * Compaction: copies the record at `address` (held in `known`) to the tail
   * if it is still the newest version of its key and live; R_OK = copied.
   */
  private compactStep(key: Uint8Array, h: number, address: number, hint: Hint): number {
    const st = this.locate(key, h, hint);
    if (st === L_DISK) return R_NEED_DISK;
    if (st === L_NONE || this.locAddress !== address || !this.locLive()) return R_NOT_FOUND;
    const s = this.locSpace;
    const off = this.locOff;
    const flags = flagsOf(s, off);
    const exp = expiresAtOf(s, off);
    const len = valueLengthOf(s, off);
    const type = typeOf(s, off);
    if ((flags & RecordFlag.OVERFLOW) !== 0) {
      // The blob sits in the range being dropped: copy it too.
      if (
        hint.newBlobValue !== null &&
        hint.newBlobEntry === this.entry &&
        hint.newBlobOld === address
      ) {
        return this.appendRecord(
          key,
          h,
          RecordFlag.OVERFLOW,
          null,
          0,
          len,
          hint.newBlobAddress,
          exp,
          type,
        );
      }
      if (!this.locValue(hint)) return R_NEED_BLOB_READ;
      this.pendingBlob = this.vBytes;
      this.pendingBlobOld = address;
      return R_NEED_BLOB_WRITE;
    }
    return this.appendRecord(key, h, 0, s.bytes, valueOffsetOf(s, off), len, 0, exp, type);
  }

  /**
   * Copies the record (a copy of it in `space` at offset 0, from `address`)
   * to the tail if it is live; resolves true when copied.
   */
  protected copyIfLive(space: RecordSpace, address: number): Promise<boolean> | boolean {
    const flags = flagsOf(space, 0);
    if ((flags & (RecordFlag.INVALID | RecordFlag.TOMBSTONE)) !== 0) return false;
    const exp = expiresAtOf(space, 0);
    if (exp !== 0 && exp <= this.clock()) return false;
    const ko = keyOffsetOf(space, 0);
    const key = space.bytes.subarray(ko, ko + keyLengthOf(space, 0));
    const h = hashKey(key);
    const hint = new Hint();
    hint.knownAddress = address;
    hint.knownSpace = space;
    const code = this.compactStep(key, h, address, hint);
    if (code === R_OK) return true;
    if (code === R_NOT_FOUND) return false;
    return this.drive(
      key,
      code,
      (hn) => this.compactStep(key, h, address, hn),
      (c) => c === R_OK,
      hint,
    );
  }

  /**
   * Compaction of a blob: if the newest record of `key` is live and points
   * at the blob at `blobAddress`, the blob is rewritten at the tail and a
   * copy of the record points at it. Resolves true when relocated.
   */
  protected relocateBlobIfLive(key: Uint8Array, blobAddress: number): Promise<boolean> | boolean {
    const h = hashKey(key);
    const code = this.relocateStep(key, h, blobAddress, null);
    if (code === R_OK) return true;
    if (code === R_NOT_FOUND) return false;
    return this.drive(
      key,
      code,
      (hn) => this.relocateStep(key, h, blobAddress, hn),
      (c) => c === R_OK,
    );
  }

  private relocateStep(key: Uint8Array, h: number, blobAddress: number, hint: Hint | null): number {
    const st = this.locate(key, h, hint);
    if (st === L_DISK) return R_NEED_DISK;
    if (st === L_NONE || !this.locLive()) return R_NOT_FOUND;
    const s = this.locSpace;
    const off = this.locOff;
    if ((flagsOf(s, off) & RecordFlag.OVERFLOW) === 0) return R_NOT_FOUND;
    if (s.bytes.readDoubleLE(valueOffsetOf(s, off)) !== blobAddress) return R_NOT_FOUND;
    const exp = expiresAtOf(s, off);
    const len = valueLengthOf(s, off);
    const type = typeOf(s, off);
    if (hint?.newBlobValue && hint.newBlobEntry === this.entry && hint.newBlobOld === blobAddress) {
      return this.appendRecord(
        key,
        h,
        RecordFlag.OVERFLOW,
        null,
        0,
        len,
        hint.newBlobAddress,
        exp,
        type,
      );
    }
    if (!this.locValue(hint)) return R_NEED_BLOB_READ;
    this.pendingBlob = this.vBytes;
    this.pendingBlobOld = blobAddress;
    return R_NEED_BLOB_WRITE;
  }

  private expiryCursor = 0;

  /**
   * One slice of the active expiry cycle over `buckets` index buckets: an
   * entry whose record is in memory, expired and alone on its chain is
   * removed (and the record tombstoned when still mutable); entries left
   * pointing below `begin` by compaction go too. Expired records elsewhere
   * already read as missing; compaction drops them from the disk.
   */
  expireSlice(buckets = 256): number {
    const log = this.log;
    const s = this.ring;
    const now = this.clock();
    let removed = 0;
    this.expiryCursor = this.index.sweepBuckets(this.expiryCursor, buckets, (a) => {
      if (a < log.begin) return true;
      if (a < log.head) return false;
      const off = log.offsetOf(a);
      const flags = flagsOf(s, off);
      if ((flags & RecordFlag.HAS_EXPIRY) === 0 || (flags & RecordFlag.TOMBSTONE) !== 0)
        return false;
      const exp = s.f64[(off + 16) >>> 3]!;
      if (exp === 0 || exp > now) return false;
      const prev = previousAddress(s, off);
      if (prev !== 0 && prev >= log.begin) return false;
      if (a >= log.readOnly) setFlag(s, off, RecordFlag.TOMBSTONE);
      if (this.expiringKeys.size > 0) {
        const ko = keyOffsetOf(s, off);
        this.expiringKeys.delete(s.bytes.toString('latin1', ko, ko + keyLengthOf(s, off)));
      }
      removed++;
      return true;
    });
    this.counters.expired += removed;
    return removed;
  }

  // ---- live-key count ------------------------------------------------------------

  /**
   * The state of `key` before a write, right after `locate` returned `st`:
   * absent, a value without expiry, a value with an expiry (possibly passed),
   * or unresolved (a blind write whose newest record is on the device).
   */
  private keyState(key: Uint8Array, st: number): number {
    const map = this.expiringKeys;
    if (st === L_FOUND) {
      const flags = this.locFlags;
      if ((flags & RecordFlag.TOMBSTONE) !== 0) return K_ABSENT;
      if ((flags & RecordFlag.HAS_EXPIRY) !== 0 && expiresAtOf(this.locSpace, this.locOff) !== 0) {
        return K_EXPIRING;
      }
      return K_PLAIN;
    }
    // A key with an expiry is always in the map (or its expiry has passed,
    // and it counts for nothing either way).
    if (map.size > 0 && map.has(keyString(key))) return K_EXPIRING;
    return st === L_NONE ? K_ABSENT : K_UNRESOLVED;
  }

  /** Applies a write of `key` from state `prev` to `exp` (-1 deleted, 0 no expiry). */
  private keyChanged(key: Uint8Array, prev: number, exp: number): void {
    if (prev === K_PLAIN) this.plainKeys--;
    else if (prev === K_EXPIRING) this.expiringKeys.delete(keyString(key));
    else if (prev === K_UNRESOLVED) this.resolve(key, this.diskStart);
    if (exp === 0) this.plainKeys++;
    else if (exp > 0) this.expiringKeys.set(keyString(key), exp);
  }

  /**
   * A blind write replaced a version of `key` that is on the device (the
   * chain from `start`): read it in the background, and if it was a value
   * without expiry, the key was counted already.
   */
  private resolve(key: Uint8Array, start: number): void {
    const k = Buffer.from(key);
    const hint = new Hint();
    const run: Promise<void> = this.walkDisk(k, start, hint)
      .then(
        () => {
          if (!hint.found) return;
          const space = hint.space!;
          if ((flagsOf(space, 0) & RecordFlag.TOMBSTONE) !== 0) return;
          if (expiresAtOf(space, 0) !== 0) return;
          this.plainKeys--;
        },
        (e: unknown) => {
          this.countFailure ??= e;
        },
      )
      .finally(() => this.resolutions.delete(run));
    this.resolutions.add(run);
  }

  /** Background reads still deciding the count. */
  get unresolvedCount(): number {
    return this.resolutions.size;
  }

  /**
   * The live-key count now, without waiting: exact when no resolution is
   * outstanding (`unresolvedCount === 0`), otherwise at least the true count.
   */
  approxCount(): number {
    return this.plainKeys + this.countExpiring();
  }

  /**
   * The exact number of live keys (values not deleted and not expired at
   * the clock's current time), once every outstanding resolution finished.
   */
  async exactCount(): Promise<number> {
    while (this.resolutions.size > 0) await Promise.all([...this.resolutions]);
    if (this.countFailure !== null) throw this.countFailure;
    return this.plainKeys + this.countExpiring();
  }

  /** Keys with an expiry still ahead; passed ones leave the map for good. */
  private countExpiring(): number {
    const map = this.expiringKeys;
    if (map.size === 0) return 0;
    const now = this.clock();
    let n = 0;
    for (const [k, exp] of map) {
      if (exp > now) n++;
      else map.delete(k);
    }
    return n;
  }

  /** Waits for outstanding resolutions (close). */
  protected async settleCount(): Promise<void> {
    while (this.resolutions.size > 0) await Promise.allSettled([...this.resolutions]);
  }

  /**
   * Recomputes the count from the records in [begin, tail) on the device and
   * in memory (newest record per key wins); used on open. Holds one map
   * entry per key while it runs.
   */
  protected setCountFrom(states: Map<string, number>): void {
    const now = this.clock();
    this.plainKeys = 0;
    this.expiringKeys.clear();
    for (const [k, exp] of states) {
      if (exp === 0) this.plainKeys++;
      else if (exp > now) this.expiringKeys.set(k, exp);
    }
  }

  // ---- record writing ----------------------------------------------------------

  /**
   * Appends a record at the tail, chained to the current entry, and points
   * the index at it. `value` null writes no inline bytes (tombstone, blob).
   */
  private appendRecord(
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
  private writeNew(
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
    writeHeader(s, off, this.entry, f, type, key.length, valueLength, exp, size);
    const ko = keyOffsetOf(s, off);
    copyBytes(key, 0, key.length, s.bytes, ko);
    return ko + key.length;
  }

  /**
   * After an allocation, the located old value may sit in the frame just
   * recycled for the new page: copy it aside before writing the new record.
   */
  private protectSource(): void {
    if (this.vBytes === this.ring.bytes && this.locAddress < this.log.head) {
      const scratch = this.scratchFor(this.vLen);
      this.ring.bytes.copy(scratch, 0, this.vOff, this.vOff + this.vLen);
      this.vBytes = scratch;
      this.vOff = 0;
    }
  }

  private scratchFor(n: number): Buffer {
    if (this.copyScratch.length < n)
      this.copyScratch = Buffer.alloc(Math.max(n, this.copyScratch.length * 2));
    return this.copyScratch;
  }

  private copyOld(): ValueView {
    if (this.oldScratch.length < this.vLen) {
      this.oldScratch = Buffer.alloc(Math.max(this.vLen, this.oldScratch.length * 2));
    }
    this.vBytes.copy(this.oldScratch, 0, this.vOff, this.vOff + this.vLen);
    this.oldView.bytes = this.oldScratch;
    this.oldView.offset = 0;
    this.oldView.length = this.vLen;
    return this.oldView;
  }

  // ---- the async driver --------------------------------------------------------

  private pendingView<T>(pending: Promise<T>): {
    readonly status: 'pending';
    readonly pending: Promise<T>;
  } {
    this.counters.pending++;
    return { status: 'pending', pending };
  }

  private async drive<T>(
    key: Uint8Array,
    first: number,
    step: (hint: Hint) => number,
    finish: (code: number) => T,
    startHint?: Hint,
  ): Promise<T> {
    const hint = startHint ?? new Hint();
    let code = first;
    for (let round = 0; ; round++) {
      if (round > MAX_RETRIES) {
        throw new HlogError('ERR_CORRUPT', 'operation did not converge (log chain is corrupt?)');
      }
      if (this.closed) throw new HlogError('ERR_STORE_CLOSED', 'store is closed');
      switch (code) {
        case R_NEED_DISK: {
          const entry = this.entry;
          const start = this.diskStart;
          try {
            await this.walkDisk(key, start, hint);
            hint.walked = true;
            hint.entry = entry;
            hint.start = start;
          } catch (e) {
            // The walk ran into truncated log (compaction): start again.
            if (!isStrataError(e, 'ERR_OUT_OF_RANGE')) throw e;
            hint.walked = false;
          }
          break;
        }
        case R_NEED_SPACE:
          await this.log.waitForProgress();
          break;
        case R_NEED_BLOB_READ: {
          const address = this.blobAddress;
          try {
            hint.oldBlob = await this.readBlob(address, this.blobKeyLength, this.blobLength);
            hint.oldBlobAddress = address;
          } catch (e) {
            // Compacted away meanwhile: the step finds the copy.
            if (!isStrataError(e, 'ERR_OUT_OF_RANGE')) throw e;
            hint.walked = false;
          }
          break;
        }
        case R_NEED_BLOB_WRITE: {
          const value = this.pendingBlob!;
          const blobFor = this.pendingBlobFor;
          const entry = this.entry;
          const old = this.pendingBlobOld;
          this.pendingBlob = null;
          this.pendingBlobFor = null;
          const written = this.log.writeBlob(key, value);
          if (written === null) throw this.log.failure ?? new HlogError('ERR_IO', 'log failed');
          hint.newBlobAddress = await written;
          // An upsert's blob is its value whatever the state; a computed one
          // (rmw) is only good for the state it was computed from.
          hint.newBlobFor = old === -1 ? blobFor : null;
          hint.newBlobValue = old === -1 ? null : value;
          hint.newBlobEntry = entry;
          hint.newBlobOld = old;
          break;
        }
        default:
          return finish(code);
      }
      this.counters.retries++;
      code = step(hint);
    }
  }

  /** Follows the chain on the device from `address` until `key` is found. */
  private async walkDisk(key: Uint8Array, address: number, hint: Hint): Promise<void> {
    let a = address;
    hint.found = false;
    while (a !== 0 && a >= this.log.begin) {
      const space =
        a === hint.knownAddress && hint.knownSpace !== null
          ? hint.knownSpace
          : await this.readRecord(a);
      if (
        (flagsOf(space, 0) & RecordFlag.INVALID) === 0 &&
        keyEquals(space.bytes, keyOffsetOf(space, 0), keyLengthOf(space, 0), key)
      ) {
        hint.found = true;
        hint.space = space;
        hint.address = a;
        return;
      }
      a = previousAddress(space, 0);
    }
  }

  /** Reads the record at `address` from the device into its own space. */
  private async readRecord(address: number): Promise<RecordSpace> {
    const P = this.log.pageSize;
    const pageEnd = (Math.floor(address / P) + 1) * P;
    let space = createRecordSpace(Math.min(FIRST_READ, pageEnd - address));
    this.counters.diskReads++;
    let n = await this.log.device.read(address, space.bytes);
    if (n < 16 || (flagsOf(space, 0) & RecordFlag.VALID) === 0) throw this.corrupt(address);
    const size = slotSize(space, 0);
    if (size < 16 || size > pageEnd - address || size % 8 !== 0) throw this.corrupt(address);
    if (size > n) {
      space = createRecordSpace(size);
      this.counters.diskReads++;
      n = await this.log.device.read(address, space.bytes);
      if (n < size) throw this.corrupt(address);
    }
    return space;
  }

  private corrupt(address: number): HlogError {
    return new HlogError('ERR_CORRUPT', `no valid record at address ${address}`, { address });
  }

  /** Reads and verifies a blob's value. */
  protected async readBlob(address: number, keyLength: number, length: number): Promise<Buffer> {
    const prefix = PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + keyLength;
    const buf = Buffer.allocUnsafe(prefix + length);
    this.counters.diskReads++;
    const n = await this.log.device.read(address, buf);
    const value = buf.subarray(prefix);
    if (
      n < buf.length ||
      buf.readUInt32LE(0) !== PAGE_MAGIC ||
      (buf.readUInt32LE(12) & PageFlag.BLOB) === 0 ||
      buf.readUInt32LE(8) !== buf.length ||
      buf.readUInt32LE(PAGE_HEADER_SIZE) !== keyLength ||
      blobChecksum(buf, buf.subarray(PAGE_HEADER_SIZE, prefix), value) !== buf.readUInt32LE(4)
    ) {
      throw new HlogError('ERR_CORRUPT', `blob at ${address} failed its checksum`, { address });
    }
    return value;
  }

  /** The key a blob was written for (compaction), or null if it is not a blob. */
  protected async readBlobKey(address: number): Promise<Buffer | null> {
    const head = Buffer.alloc(PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE);
    if ((await this.log.device.read(address, head)) < head.length) return null;
    if (head.readUInt32LE(0) !== PAGE_MAGIC || (head.readUInt32LE(12) & PageFlag.BLOB) === 0) {
      return null;
    }
    const key = Buffer.alloc(head.readUInt32LE(PAGE_HEADER_SIZE));
    if ((await this.log.device.read(address + head.length, key)) < key.length) return null;
    return key;
  }

  // ---- results of pending operations (run right after the final step) -----------

  private readResult(code: number, wantValue: boolean): ReadResult {
    if (code !== R_OK) return { status: 'notFound' };
    const f = this.found;
    return {
      status: 'found',
      value: wantValue ? Buffer.from(f.bytes.subarray(f.offset, f.offset + f.length)) : EMPTY,
      expiresAt: f.expiresAt,
      type: f.type,
    };
  }

  private setResult(code: number): SetResult {
    if (code === R_WRONG_TYPE) return { status: 'wrongType', type: this.wrongType.type, old: null };
    const v = code === R_OK ? this.written : this.notSet;
    const old =
      v.old === null
        ? null
        : Buffer.from(v.old.bytes.subarray(v.old.offset, v.old.offset + v.old.length));
    return { status: code === R_OK ? 'ok' : 'notSet', old };
  }

  private rmwResult(code: number): RmwResult {
    if (code === R_WRONG_TYPE) return { status: 'wrongType', type: this.wrongType.type, old: null };
    if (code !== R_OK) return { status: 'notFound' };
    const u = this.updated;
    return {
      status: 'ok',
      created: u.created,
      value: Buffer.from(u.bytes.subarray(u.offset, u.offset + u.length)),
    };
  }

  // ---- async facade --------------------------------------------------------------

  /** GET: the value (a copy) or notFound. */
  async get(key: Uint8Array): Promise<ReadResult> {
    const v = this.read(key);
    if (v.status === 'found') {
      return {
        status: 'found',
        value: Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length)),
        expiresAt: v.expiresAt,
        type: v.type,
      };
    }
    if (v.status === 'notFound') return { status: 'notFound' };
    return v.pending;
  }

  /** TYPE: the type of the key's live record, or null when it has none. */
  async keyType(key: Uint8Array): Promise<RecordType | null> {
    const v = this.probe(key);
    const r = v.status === 'pending' ? await v.pending : v;
    return r.status === 'found' ? r.type : null;
  }

  async exists(key: Uint8Array): Promise<boolean> {
    const v = this.probe(key);
    if (v.status === 'pending') return (await v.pending).status === 'found';
    return v.status === 'found';
  }

  /** SET with Redis's options (PX/PXAT, NX/XX, GET, KEEPTTL). */
  async set(key: Uint8Array, value: Uint8Array, options?: SetOptions): Promise<SetResult> {
    let expiresAt = 0;
    let flags = 0;
    let type: RecordType = RecordType.STRING;
    if (options !== undefined) {
      if (options.type !== undefined) type = options.type;
      if (options.ttlMs !== undefined) expiresAt = this.clock() + checkTtl(options.ttlMs);
      if (options.expiresAt !== undefined) expiresAt = checkTtl(options.expiresAt);
      if (options.nx) flags |= SetFlag.NX;
      if (options.xx) flags |= SetFlag.XX;
      if (options.get) flags |= SetFlag.GET;
      if (options.keepTtl) flags |= SetFlag.KEEP_TTL;
    }
    const v = this.upsert(key, value, expiresAt, flags, type);
    if (v.status === 'pending') return v.pending;
    if (v.status === 'wrongType') return { status: 'wrongType', type: v.type, old: null };
    const old =
      v.old === null
        ? null
        : Buffer.from(v.old.bytes.subarray(v.old.offset, v.old.offset + v.old.length));
    return { status: v.status, old };
  }

  /** DEL: true if the key existed. */
  async delete(key: Uint8Array): Promise<boolean> {
    const v = this.remove(key);
    if (v.status === 'pending') return (await v.pending).status === 'deleted';
    return v.status === 'deleted';
  }

  /** Read-modify-write with a plain function: `fn(old)` returns the new value or null (no change). */
  async rmw(key: Uint8Array, fn: UpdateFunction): Promise<RmwResult> {
    const ctx: FunctionContext = { fn, next: null };
    const v = this.readModifyWrite(key, functionFunctions, ctx);
    if (v.status === 'pending') return v.pending;
    if (v.status === 'notFound') return { status: 'notFound' };
    if (v.status === 'wrongType') return { status: 'wrongType', type: v.type, old: null };
    return {
      status: 'ok',
      created: v.created,
      value: Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length)),
    };
  }

  /** INCRBY: the new value (a bigint beyond 2^53). Throws ERR_NOT_INTEGER, ERR_WRONG_TYPE. */
  async incrBy(key: Uint8Array, delta = 1): Promise<number | bigint> {
    if (!Number.isSafeInteger(delta)) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'delta must be a safe integer');
    }
    // Its own context: a pending operation re-runs its functions later.
    const ctx: IncrContext = { delta, result: 0 };
    const v = this.readModifyWrite(key, incrFunctions, ctx);
    const status = v.status === 'pending' ? (await v.pending).status : v.status;
    if (status === 'wrongType') throw wrongTypeError();
    return ctx.result;
  }

  /** APPEND: the new length. Throws ERR_WRONG_TYPE. */
  async append(key: Uint8Array, suffix: Uint8Array): Promise<number> {
    const ctx: AppendContext = { suffix };
    return this.rmwLength(key, appendFunctions, ctx);
  }

  private async rmwLength<C>(key: Uint8Array, fns: RmwFunctions<C>, ctx: C): Promise<number> {
    const v = this.readModifyWrite(key, fns, ctx);
    if (v.status === 'pending') {
      const r = await v.pending;
      if (r.status === 'wrongType') throw wrongTypeError();
      return r.status === 'ok' ? r.value.length : 0;
    }
    if (v.status === 'wrongType') throw wrongTypeError();
    return v.status === 'ok' ? v.length : 0;
  }

  /** SETRANGE: the new length (0 for a missing key and an empty patch). Throws ERR_WRONG_TYPE. */
  async setRange(key: Uint8Array, offset: number, patch: Uint8Array): Promise<number> {
    if (!Number.isInteger(offset) || offset < 0) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'offset is out of range');
    }
    const ctx: SetRangeContext = { offset, patch };
    return this.rmwLength(key, setRangeFunctions, ctx);
  }

  /** PEXPIRE: true if the key exists (a time in the past deletes it). */
  async expire(key: Uint8Array, ttlMs: number): Promise<boolean> {
    return this.expireAt(key, this.clock() + ttlMs);
  }

  /** PEXPIREAT. */
  async expireAt(key: Uint8Array, expiresAt: number): Promise<boolean> {
    if (expiresAt <= this.clock()) return this.delete(key);
    const v = this.setExpiry(key, expiresAt);
    const status = v.status === 'pending' ? (await v.pending).status : v.status;
    return status === 'ok';
  }

  /** PERSIST: true if an expiry was removed. */
  async persist(key: Uint8Array): Promise<boolean> {
    const v = this.setExpiry(key, 0);
    const status = v.status === 'pending' ? (await v.pending).status : v.status;
    return status === 'ok';
  }

  /** PTTL: ms to live, -1 without expiry, -2 when missing. */
  async ttl(key: Uint8Array): Promise<number> {
    const v = this.probe(key);
    const r = v.status === 'pending' ? await v.pending : v;
    if (r.status === 'notFound') return -2;
    if (r.expiresAt === 0) return -1;
    return Math.max(0, r.expiresAt - this.clock());
  }

  // ---- write errors -------------------------------------------------------------

  /**
   * The device failure that keeps part of the log from being persisted
   * (a failed page or blob write, or sync), or null. While it is set, the
   * unflushed pages stay in memory; operations that need their frames
   * reject with it, and checkpoints and close reject until a retry succeeds.
   */
  get writeError(): StrataError | null {
    return this.log.writeError;
  }

  /** Writes the failed pages again; `writeError` clears once they are on the device. */
  retryWrites(): Promise<void> {
    return this.log.retryWrites();
  }

  // ---- misc -------------------------------------------------------------------

  protected checkKey(key: Uint8Array): void {
    if (this.closed) throw new HlogError('ERR_STORE_CLOSED', 'store is closed');
    if (key.length > this.maxKeyLength) {
      throw new HlogError('ERR_INVALID_ARGUMENT', `key longer than ${this.maxKeyLength} bytes`);
    }
  }

  coreStats(): { log: HybridLogStats; index: HashIndexStats; ops: Record<string, number> } {
    return { log: this.log.stats(), index: this.index.stats(), ops: { ...this.counters } };
  }
}

function wrongTypeError(): HlogError {
  return new HlogError(
    'ERR_WRONG_TYPE',
    'WRONGTYPE Operation against a key holding the wrong kind of value',
  );
}

function checkTtl(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new HlogError('ERR_INVALID_ARGUMENT', 'invalid expire time');
  }
  return ms;
}

/** Copies bytes; a JS loop beats the native call for short keys. */
function copyBytes(
  src: Uint8Array,
  srcOff: number,
  len: number,
  dst: Uint8Array,
  dstOff: number,
): void {
  if (len <= 24) {
    for (let i = 0; i < len; i++) dst[dstOff + i] = src[srcOff + i]!;
  } else {
    dst.set(src.subarray(srcOff, srcOff + len), dstOff);
  }
}

/** A key as a map key (one char per byte). */
function keyString(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.length).toString('latin1');
}
