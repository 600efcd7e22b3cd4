import type { AnyStrataError } from '@strata/io';
import { readBlobKey } from './blob-read.js';
import { copyIfLive, relocateBlobIfLive } from './compaction-steps.js';
import { CoreState, DELETED, EMPTY, EXPIRY_NOT_SET, EXPIRY_OK, NOT_FOUND } from './core-state.js';
import { HlogError } from './errors.js';
import { expireSlice, expiryStep } from './expiry-path.js';
import type { ExpiringTtl } from './key-count.js';
import { hashKey } from './key-hash.js';
import { drive, drivePending, pendingView, readRecord } from './pending-driver.js';
import { prefetchKeys } from './prefetch-path.js';
import { FixedRange, getStep, rangeStep } from './read-path.js';
import { type RecordSpace, RecordType } from './record-layout.js';
import { MAX_VALUE_LENGTH, type RmwFunctions } from './rmw-functions.js';
import { rmwStep } from './rmw-path.js';
import {
  EXPIRY_PERSIST,
  EXPIRY_SET,
  Hint,
  R_NOT_FOUND,
  R_NOT_SET,
  R_OK,
  R_WRONG_TYPE,
} from './step-codes.js';
import type {
  DeleteResult,
  DeleteView,
  ExpiryResult,
  ExpiryView,
  RangePicker,
  RangeResult,
  ReadRangeView,
  ReadResult,
  ReadView,
  RmwResult,
  RmwView,
  SetResult,
  UpsertView,
  WriteCancel,
} from './store-types.js';
import { deleteStep, upsertStep } from './upsert-path.js';

function copyFixed(f: FixedRange): FixedRange {
  return new FixedRange(f.offset, f.length);
}

/**
 * The synchronous core API over CoreState: each operation runs its step
 * (read-path, upsert-path, rmw-path, expiry-path) and returns a view, or a
 * pending view whose promise the async driver (pending-driver) settles.
 */
export class SyncCore extends CoreState {
  /** What the last `prefetch` read: kept, so its loads are not optimised away. */
  prefetchSink = 0;

  /**
   * A hint before operations on `keys[0, count)` (a pipelined batch): brings
   * their index buckets, then their newest in-memory records, into the CPU
   * cache with loads that overlap, instead of each operation waiting for its
   * own misses in turn. Changes nothing; at most 64 keys are looked at.
   */
  prefetch(keys: readonly Uint8Array[], count: number): void {
    this.prefetchSink = prefetchKeys(this, keys, count);
  }

  /** Reads `key`: found (a view into the log) / notFound / pending. */
  read(key: Uint8Array): ReadView {
    return this.readWith(key, true);
  }

  /** Like `read`, for existence and expiry only: the view's bytes are not set. */
  probe(key: Uint8Array): ReadView {
    return this.readWith(key, false);
  }

  /**
   * The access word (access-clock.ts) of `key`'s index entry, -1 when it has
   * none; touches nothing. Keys sharing an entry share the word.
   */
  accessWord(key: Uint8Array): number {
    this.checkKey(key);
    return this.index.accessOf(hashKey(key));
  }

  /** Sets the access word of `key`'s index entry (RESTORE's IDLETIME/FREQ); false when it has none. */
  setAccessWord(key: Uint8Array, word: number): boolean {
    this.checkKey(key);
    if (this.index.find(hashKey(key)) === 0) return false;
    this.index.setLastAccess(word);
    return true;
  }

  /**
   * Records an access to `key` when `touching` (default: the clock's flag
   * now): for a value served without this store's read step (a cached
   * collection, a batch read from the device).
   */
  touchKey(key: Uint8Array, touching = this.access.touching): void {
    if (touching) this.touchHash(hashKey(key), true);
  }

  /** touchKey by the key's hash (hashKey's) when the caller has it already. */
  touchHash(hash: number, touching = this.access.touching): void {
    if (!touching) return;
    if (this.index.find(hash) !== 0) this.index.touchLast();
  }

  private readWith(key: Uint8Array, wantValue: boolean): ReadView {
    this.checkKey(key);
    const h = hashKey(key);
    this.counters.reads++;
    const code = getStep(this, key, h, null, wantValue);
    if (code === R_OK) return this.found;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    return drivePending(
      this,
      key,
      code,
      (hint) => getStep(this, key, h, hint, wantValue),
      (c) => this.readResult(c, wantValue),
    );
  }

  /** What `readRange` picks with before it goes pending (then it takes its own). */
  private readonly fixedRange = new FixedRange();

  /**
   * Reads bytes `[offset, offset + length)` of the string at `key`, clipped
   * to the value: a view into the log when its record is in memory, else
   * pending. A large value (a blob) is read from the device only in the
   * chunks covering the range, each verified; the view's `totalLength` is
   * the whole value's. A key of another type is `wrongType` (nothing read).
   */
  readRange(key: Uint8Array, offset: number, length: number): ReadRangeView {
    if (!Number.isInteger(offset) || offset < 0 || !(length >= 0)) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'offset and length must be >= 0');
    }
    const fixed = this.fixedRange;
    fixed.offset = offset;
    fixed.length = length;
    return this.readPicked(key, fixed, fixed);
  }

  /**
   * `readRange` with the range chosen once the value's length is known
   * (`picker.pick(totalLength)`), in the same step: a range from the end
   * needs no read before it. `pendingPicker` is used if the read goes
   * pending (default `picker`; a caller reusing `picker` passes its own).
   */
  readPicked(
    key: Uint8Array,
    picker: RangePicker,
    pendingPicker: RangePicker = picker,
  ): ReadRangeView {
    this.checkKey(key);
    const h = hashKey(key);
    this.counters.reads++;
    const code = rangeStep(this, key, h, null, picker);
    if (code === R_OK) return this.range;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    if (code === R_WRONG_TYPE) return this.wrongType;
    const own = pendingPicker === this.fixedRange ? copyFixed(this.fixedRange) : pendingPicker;
    return drivePending(
      this,
      key,
      code,
      (hint) => rangeStep(this, key, h, hint, own),
      (c) => this.rangeResult(c),
    );
  }

  /**
   * Told of every upsert's type and value while set (one watcher at a
   * time): a whole-log pass must see what is written during it, since a
   * write may land in place at an address the pass already walked (the
   * stream block GC marks the stream IDs of heads written meanwhile).
   */
  writeWatch: ((type: RecordType, value: Uint8Array) => void) | null = null;

  /**
   * Writes `value` under `key`. `expiresAt` in ms since the epoch (0 = none);
   * `flags` from SetFlag. The value is copied into the log (a large one is
   * written from `value`, which must stay unchanged until the promise settles).
   * `type` is the record's type (whatever the key held before is replaced;
   * with SetFlag.GET an old value of another type ends in `wrongType`).
   * A write that goes pending (its key's record on the device) and whose
   * `cancel` is set by the time it can land is not applied (`notSet`): a
   * cache's write-back of a value that another write replaced meanwhile
   * must not land over it.
   */
  upsert(
    key: Uint8Array,
    value: Uint8Array,
    expiresAt = 0,
    flags = 0,
    type: RecordType = RecordType.STRING,
    cancel?: WriteCancel,
  ): UpsertView {
    this.checkKey(key);
    if (this.writeWatch !== null) this.writeWatch(type, value);
    if (value.length > MAX_VALUE_LENGTH) {
      throw new HlogError('ERR_VALUE_TOO_LARGE', 'string exceeds maximum allowed size (512MB)');
    }
    const h = hashKey(key);
    this.counters.writes++;
    const code = upsertStep(this, key, h, value, expiresAt, flags, type, null);
    if (code === R_OK) return this.written;
    if (code === R_NOT_SET) return this.notSet;
    if (code === R_WRONG_TYPE) return this.wrongType;
    return drivePending(
      this,
      key,
      code,
      (hint) =>
        cancel?.cancelled === true
          ? R_NOT_SET
          : upsertStep(this, key, h, value, expiresAt, flags, type, hint),
      (c) => this.setResult(c),
    );
  }

  /**
   * The record at `address` on `key`'s chain, read from the device and
   * verified (its checksum): a space of its own, or a `CorruptRecordError`
   * (counted in `damage`). For readers that follow chains on the device
   * themselves (@strata/scan's liveness checks).
   */
  readVerified(key: Uint8Array, address: number): Promise<RecordSpace> {
    return readRecord(this, key, address);
  }

  /**
   * Deletes `key` (a tombstone). `keep`: a record type not to delete: a
   * live record of that type is left as it is and answered `wrongType`
   * (DEL of a stream, whose head must be read first for its blocks). A
   * delete that went pending and whose `cancel` is set by the time it can
   * land is not applied (`notFound`), as upsert's.
   */
  remove(key: Uint8Array, keep?: RecordType, cancel?: WriteCancel): DeleteView {
    this.checkKey(key);
    const h = hashKey(key);
    this.counters.writes++;
    const k = keep ?? -1;
    const code = deleteStep(this, key, h, null, k);
    if (code === R_OK) return DELETED;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    if (code === R_WRONG_TYPE) return this.wrongType;
    // A damaged record on the key's chain does not stop a delete.
    const hint = new Hint();
    hint.tolerateDamage = true;
    return pendingView(
      this,
      drive(
        this,
        key,
        code,
        (hint) => (cancel?.cancelled === true ? R_NOT_FOUND : deleteStep(this, key, h, hint, k)),
        (c): DeleteResult =>
          c === R_OK
            ? { status: 'deleted' }
            : c === R_WRONG_TYPE
              ? { status: 'wrongType', type: this.wrongType.type, old: null }
              : { status: 'notFound' },
        hint,
      ),
    );
  }

  /** Read-modify-write with value functions (see RmwFunctions). */
  readModifyWrite<C>(key: Uint8Array, fns: RmwFunctions<C>, ctx: C): RmwView {
    this.checkKey(key);
    const h = hashKey(key);
    this.counters.writes++;
    const code = rmwStep(this, key, h, fns, ctx, null);
    if (code === R_OK) return this.updated;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    if (code === R_WRONG_TYPE) return this.wrongType;
    return drivePending(
      this,
      key,
      code,
      (hint) => rmwStep(this, key, h, fns, ctx, hint),
      (c) => this.rmwResult(c),
    );
  }

  /** Sets (expiresAt > 0) or removes (expiresAt = 0) the expiry of an existing key. */
  setExpiry(key: Uint8Array, expiresAt: number): ExpiryView {
    this.checkKey(key);
    const h = hashKey(key);
    const mode = expiresAt === 0 ? EXPIRY_PERSIST : EXPIRY_SET;
    const code = expiryStep(this, key, h, expiresAt, mode, null);
    if (code === R_OK) return EXPIRY_OK;
    if (code === R_NOT_SET) return EXPIRY_NOT_SET;
    if (code === R_NOT_FOUND) return NOT_FOUND;
    return drivePending(
      this,
      key,
      code,
      (hint) => expiryStep(this, key, h, expiresAt, mode, hint),
      (c): ExpiryResult =>
        c === R_OK
          ? { status: 'ok' }
          : c === R_NOT_SET
            ? { status: 'notSet' }
            : { status: 'notFound' },
    );
  }

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

  private rangeResult(code: number): RangeResult {
    if (code === R_WRONG_TYPE) return { status: 'wrongType', type: this.wrongType.type, old: null };
    if (code !== R_OK) return { status: 'notFound' };
    const r = this.range;
    const end = r.offset + r.length;
    return {
      status: 'found',
      // The log's ring is reused: a view into it is copied; the bytes of a
      // record or range read from the device are this read's own.
      value:
        r.bytes === this.ring.bytes
          ? Buffer.from(r.bytes.subarray(r.offset, end))
          : r.bytes.subarray(r.offset, end),
      from: r.from,
      totalLength: r.totalLength,
      expiresAt: r.expiresAt,
      blob: r.blob,
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

  /**
   * One slice of the active expiry cycle over `buckets` index buckets: an
   * entry whose record is in memory, expired and alone on its chain is
   * removed (and the record tombstoned when still mutable); entries left
   * pointing below `begin` by compaction go too. Expired records elsewhere
   * already read as missing; compaction drops them from the disk.
   */
  expireSlice(buckets = 256): number {
    return expireSlice(this, buckets);
  }

  /**
   * Compaction: copies the record (a copy of it in `space` at offset 0, from
   * `address`) to the tail if it is live; resolves true when copied.
   */
  protected copyIfLive(space: RecordSpace, address: number): Promise<boolean> | boolean {
    return copyIfLive(this, space, address);
  }

  /**
   * Compaction of a blob: if the newest record of `key` is live and points
   * at the blob at `blobAddress`, the blob is rewritten at the tail and a
   * copy of the record points at it. Resolves true when relocated.
   */
  protected relocateBlobIfLive(key: Uint8Array, blobAddress: number): Promise<boolean> | boolean {
    return relocateBlobIfLive(this, key, blobAddress);
  }

  /** The key a blob was written for (compaction), or null if it is not a blob. */
  protected readBlobKey(address: number): Promise<Buffer | null> {
    return readBlobKey(this, address);
  }

  // ---- live-key count ------------------------------------------------------------

  /** Background reads still deciding the count. */
  get unresolvedCount(): number {
    return this.count.unresolved;
  }

  /**
   * The live-key count now, without waiting: exact when no resolution is
   * outstanding (`unresolvedCount === 0`), otherwise at least the true count.
   */
  approxCount(): number {
    return this.count.approx();
  }

  /**
   * The exact number of live keys (values not deleted and not expired at
   * the clock's current time), once every outstanding resolution finished.
   */
  exactCount(): Promise<number> {
    return this.count.exact();
  }

  /** Keys with an expiry still ahead and their summed remaining time (INFO keyspace). */
  expiringTtl(): ExpiringTtl {
    return this.count.expiringTtl();
  }

  /** Waits for outstanding resolutions (close). */
  protected settleCount(): Promise<void> {
    return this.count.settle();
  }

  /**
   * Sets the count from the newest state of every key in the recovered log
   * (expiresAt, 0 for none, -1 deleted); used on open without a count.
   */
  protected setCountFrom(states: Map<string, number>): void {
    this.count.setFrom(states);
  }

  /**
   * The device failure that keeps part of the log from being persisted
   * (a failed page or blob write, or sync), or null. While it is set, the
   * unflushed pages stay in memory; operations that need their frames
   * reject with it, and checkpoints and close reject until a retry succeeds.
   */
  get writeError(): AnyStrataError | null {
    return this.log.writeError;
  }

  /** Writes the failed pages again; `writeError` clears once they are on the device. */
  retryWrites(): Promise<void> {
    return this.log.retryWrites();
  }
}
