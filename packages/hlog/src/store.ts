import { readBlobRange } from './blob-read.js';
import { HlogError } from './errors.js';
import { RecordType } from './record-layout.js';
import {
  type AppendContext,
  appendFunctions,
  type FunctionContext,
  functionFunctions,
  type IncrContext,
  incrFunctions,
  type RmwFunctions,
  type SetRangeContext,
  setRangeFunctions,
  type UpdateFunction,
} from './rmw-functions.js';
import {
  type RangeResult,
  type ReadResult,
  type RmwResult,
  SetFlag,
  type SetOptions,
  type SetResult,
} from './store-types.js';
import { SyncCore } from './sync-core.js';

export type { StoreCoreOptions } from './core-state.js';

/**
 * The store core: the hash index over the hybrid log, with the operations
 * by region (DESIGN.md), as a synchronous core (SyncCore: views, pending
 * only for IO) under an async facade (this class: owned results).
 *
 * Each operation is a synchronous *step* that either finishes (records in
 * memory: no promise, no allocation) or says what it needs (a device read
 * along the chain, a free frame, a blob read or write). The async driver
 * gets that, then runs the step again with what it learned (`Hint`). A step
 * re-reads the index every time and uses a disk result only if the chain it
 * came from is unchanged, so a pending operation that raced a newer write
 * retries: every key stays linearizable.
 */
export class StoreCore extends SyncCore {
  /**
   * Changes the log's memory budget while the store is open (HybridLog's
   * `setMemory`: growing at once, shrinking once the pages past the new
   * bound are flushed). `bytes` is rounded down to whole pages, at least 2.
   * Resolves true once applied, false when a later call superseded it.
   */
  setMemory(bytes: number): Promise<boolean> {
    const P = this.log.pageSize;
    return this.log.setMemory(Math.max(2, Math.floor(bytes / P)) * P);
  }

  /** GET: the value (a copy) or notFound. */
  async get(key: Bytes): Promise<ReadResult> {
    key = bytesOf(key, 'key');
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

  /**
   * Bytes `[offset, offset + length)` of the string at `key` (clipped to
   * the value; an owned buffer) and the value's whole length. A large value
   * on the device is read only in the checksummed chunks covering the range.
   */
  async getRange(key: Bytes, offset: number, length: number): Promise<RangeResult> {
    key = bytesOf(key, 'key');
    const v = this.readRange(key, offset, length);
    if (v.status === 'pending') return v.pending;
    if (v.status === 'found') {
      return {
        status: 'found',
        value: Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length)),
        from: v.from,
        totalLength: v.totalLength,
        expiresAt: v.expiresAt,
        blob: v.blob,
      };
    }
    if (v.status === 'notFound') return { status: 'notFound' };
    return { status: 'wrongType', type: v.type, old: null };
  }

  /**
   * Bytes `[from, to)` of the value of a large (OVERFLOW) record met by a
   * log walk, live or superseded, from what the walk saw of it
   * (`blobAddressOf`, `keyLengthOf`, `valueLengthOf`): only the blob's
   * chunks covering the range are read, each verified (ERR_CORRUPT if not).
   * For walkers that need a few bytes of a large value (the stream block GC
   * reads a head's stream ID).
   */
  async readOverflowRange(
    blobAddress: number,
    keyLength: number,
    valueLength: number,
    from: number,
    to: number,
  ): Promise<Buffer> {
    if (!(from >= 0 && from < to && to <= valueLength)) {
      throw new HlogError('ERR_INVALID_ARGUMENT', `range [${from}, ${to}) of ${valueLength} bytes`);
    }
    const r = await readBlobRange(this, blobAddress, keyLength, valueLength, from, to);
    return Buffer.from(r.bytes.subarray(r.offset, r.offset + to - from));
  }

  /** TYPE: the type of the key's live record, or null when it has none. */
  async keyType(key: Bytes): Promise<RecordType | null> {
    key = bytesOf(key, 'key');
    const v = this.probe(key);
    const r = v.status === 'pending' ? await v.pending : v;
    return r.status === 'found' ? r.type : null;
  }

  async exists(key: Bytes): Promise<boolean> {
    key = bytesOf(key, 'key');
    const v = this.probe(key);
    if (v.status === 'pending') return (await v.pending).status === 'found';
    return v.status === 'found';
  }

  /** SET with Redis's options (PX/PXAT, NX/XX, GET, KEEPTTL). */
  async set(key: Bytes, value: Bytes, options?: SetOptions): Promise<SetResult> {
    key = bytesOf(key, 'key');
    value = bytesOf(value, 'value');
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
  async delete(key: Bytes): Promise<boolean> {
    key = bytesOf(key, 'key');
    const v = this.remove(key);
    if (v.status === 'pending') return (await v.pending).status === 'deleted';
    return v.status === 'deleted';
  }

  /** Read-modify-write with a plain function: `fn(old)` returns the new value or null (no change). */
  async rmw(key: Bytes, fn: UpdateFunction): Promise<RmwResult> {
    key = bytesOf(key, 'key');
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

  /**
   * INCRBY: the new value (a bigint beyond 2^53). Throws ERR_NOT_INTEGER,
   * ERR_INCR_OVERFLOW, ERR_WRONG_TYPE.
   */
  async incrBy(key: Bytes, delta = 1): Promise<number | bigint> {
    key = bytesOf(key, 'key');
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
  async append(key: Bytes, suffix: Bytes): Promise<number> {
    key = bytesOf(key, 'key');
    suffix = bytesOf(suffix, 'suffix');
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
  async setRange(key: Bytes, offset: number, patch: Bytes): Promise<number> {
    key = bytesOf(key, 'key');
    patch = bytesOf(patch, 'patch');
    if (!Number.isInteger(offset) || offset < 0) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'offset is out of range');
    }
    const ctx: SetRangeContext = { offset, patch };
    return this.rmwLength(key, setRangeFunctions, ctx);
  }

  /** PEXPIRE: true if the key exists (a time in the past deletes it). */
  async expire(key: Bytes, ttlMs: number): Promise<boolean> {
    key = bytesOf(key, 'key');
    return this.expireAt(key, this.clock() + ttlMs);
  }

  /** PEXPIREAT. */
  async expireAt(key: Bytes, expiresAt: number): Promise<boolean> {
    key = bytesOf(key, 'key');
    if (expiresAt <= this.clock()) return this.delete(key);
    const v = this.setExpiry(key, expiresAt);
    const status = v.status === 'pending' ? (await v.pending).status : v.status;
    return status === 'ok';
  }

  /** PERSIST: true if an expiry was removed. */
  async persist(key: Bytes): Promise<boolean> {
    key = bytesOf(key, 'key');
    const v = this.setExpiry(key, 0);
    const status = v.status === 'pending' ? (await v.pending).status : v.status;
    return status === 'ok';
  }

  /** PTTL: ms to live, -1 without expiry, -2 when missing. */
  async ttl(key: Bytes): Promise<number> {
    key = bytesOf(key, 'key');
    const v = this.probe(key);
    const r = v.status === 'pending' ? await v.pending : v;
    if (r.status === 'notFound') return -2;
    if (r.expiresAt === 0) return -1;
    return Math.max(0, r.expiresAt - this.clock());
  }
}

/** What the async facade takes for a key or a value: bytes, or a string (as UTF-8). */
export type Bytes = Uint8Array | string;

/**
 * `arg` as bytes: a string as UTF-8, a Uint8Array (Buffer) as it is.
 * Anything else is refused by name: JavaScript callers pass numbers and
 * objects that would otherwise be read as a key of zero bytes.
 */
export function bytesOf(arg: Bytes, name: string): Uint8Array {
  if (arg instanceof Uint8Array) return arg;
  if (typeof arg === 'string') return Buffer.from(arg, 'utf8');
  throw new TypeError(`${name} must be a string, Buffer or Uint8Array, not ${describe(arg)}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
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
