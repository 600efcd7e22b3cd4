import { SetFlag, Store, type StoreCore } from '@strata/hlog';
import { CacheEntry, WriteBackHold } from './cache-entry.js';
import { decoderFor, slicedDecoderFor } from './codecs.js';
import { CollectionError } from './collection-error.js';
import type { CollectionValue } from './collection-value.js';
import { KeyTable } from './key-table.js';
import type { CollectionLookup, MaybePending } from './lookup.js';
import { runSliced, type Sliced } from './sliced.js';

export interface CollectionStoreOptions {
  /** Bytes of structures the cache keeps (value.memoryBytes() + key), LRU beyond it. */
  readonly budgetBytes: number;
  /** Clock for expiry checks. Default: the store's (hlog `clock`): both agree on what expired. */
  readonly now?: () => number;
  /**
   * Background write-back period in ms (0: none). Each period writes back
   * the dirty entries left unchanged for a whole period, and those of up to
   * 8 MiB dirty for 12 periods, so a crash loses little and checkpoints
   * taken by others see recent changes; a hot collection is not re-encoded
   * on every change.
   */
  readonly writeBackIntervalMs?: number;
  /**
   * Time a large record's decode, or a large entry's encode for a
   * write-back, runs per event-loop turn (default 4 ms; 0: one slice a turn).
   */
  readonly sliceMs?: number;
  /**
   * Entries charged at least this many bytes write back in slices, their key
   * held meanwhile (default 1 MiB; Infinity: every write-back in one step).
   */
  readonly slicedWriteBackBytes?: number;
}

export interface CollectionStoreStats {
  readonly entries: number;
  readonly bytes: number;
  readonly budgetBytes: number;
  readonly dirty: number;
  readonly hits: number;
  /** Lookups that decoded a record (from memory or disk). */
  readonly loads: number;
  readonly evictions: number;
  readonly writeBacks: number;
}

/** Entries up to this size are written back after 12 periods even while they keep changing. */
const FORCED_WRITE_BACK_MAX_BYTES = 8 << 20;

/** Evicted clean entries kept to the end of the turn (see evict), at most. */
const MAX_LINGERING = 8;

// Bookkeeping bytes charged per entry besides its structure and key.
const ENTRY_OVERHEAD = 128;

const MISSING = { status: 'missing' } as const;
const NO_RECORD_TYPE = -1;

/**
 * Records at least this large decode in slices over event-loop turns (a
 * 1M-member collection takes seconds): the commands on that key wait, as
 * for a disk read, while other connections are served.
 */
const SLICED_LOAD_BYTES = 256 * 1024;

/**
 * Entries charged at least this much write back in slices (writeSliced).
 * The charge is about 3-4x the encoded size, so 1 MiB is a record of about
 * 256-320 KiB, where loads start slicing too: ~8K hash fields or ~10K
 * sorted-set pairs, an encode of 1-3 ms at load, inside one 4 ms slice.
 * Below it slicing would save no stall and only make the key's commands
 * wait a turn or two for the hold.
 */
const SLICED_WRITE_BACK_BYTES = 1 << 20;

/** A sliced decode in flight; `stale` once the key changed at the record level meanwhile. */
interface Loading {
  readonly key: Buffer;
  readonly hash: number;
  stale: boolean;
  /** The record's expiry, kept current by expiryChanged while the decode runs. */
  expiresAt: number;
  promise: Promise<CollectionLookup>;
}

/**
 * The collections of one database, in front of its hlog store. A collection
 * key is an ordinary record of its RecordType whose value is the collection's
 * serialized form; the hot ones are kept decoded here, keyed by key bytes,
 * in LRU order within a byte budget. A change marks its entry dirty (O(1)
 * for the cache: the structure was changed in place by the command); the
 * record is rewritten from `encode()` when the entry is evicted or on
 * `flush()` (before a checkpoint, SAVE, close, or a RENAME/COPY/MOVE that
 * reads the record). A new collection writes its record at once, so every
 * key-level command (TYPE, EXISTS, SCAN, DBSIZE, EXPIRE...) sees it.
 *
 * The store stays the truth about whether a key exists: commands that
 * replace or delete a key without going through here call `invalidate`,
 * expiry changes call `expiryChanged`, and a write-back never recreates a
 * key (it writes only over an existing record, keeping its expiry).
 * Writes this cache issues for one key run in order (each waits for the
 * previous one when that went pending).
 */
export class CollectionStore {
  private budget: number;
  private readonly table = new KeyTable();
  private readonly now: () => number;
  private readonly sliceMs: number;
  /** LRU list: head is the least recently used. */
  private head: CacheEntry | null = null;
  private tail: CacheEntry | null = null;
  private bytes = 0;
  /** Bytes of entries being evicted (their write-back is in flight). */
  private evictingBytes = 0;
  private counters = { hits: 0, loads: 0, evictions: 0, writeBacks: 0 };
  private tick = 0;
  private timer: NodeJS.Timeout | null = null;
  private unhook: (() => void) | null = null;
  /** Clean entries evicted in this turn, dropped at its end (see evict). */
  private dropSoon: CacheEntry[] = [];
  private readonly dropEvictedBound = () => this.dropEvicted();
  /** Sliced decodes in flight (few: only records of SLICED_LOAD_BYTES and more). */
  private loading: Loading[] = [];
  private readonly slicedWriteBackBytes: number;
  /**
   * Hears that a key's value is gone, whatever it was: deleted, replaced
   * (`create` over it, `invalidate`), or every key at once (`clear`: null).
   * Clients blocked on a stream learn it from here (Redis's
   * signalDeletedKeyAsReady), as cheap as a null check when nobody listens.
   */
  onKeyGone: ((key: Uint8Array | null) => void) | null = null;
  /**
   * Told of a cached collection found expired (by the store's clock, as the
   * store's reads judge it) as its entry goes: a stream's blocks go after
   * it. The record is already gone for every reader.
   */
  onExpired: ((key: Buffer, value: CollectionValue) => void) | null = null;
  /**
   * Told of a cached collection that `create` or `delete` replaced (a
   * STORE command's destination), with the write that replaces it: a
   * stream's blocks go once that write settled.
   */
  onReplaced:
    | ((key: Buffer, old: CollectionValue, written: Promise<void> | undefined) => void)
    | null = null;

  constructor(
    readonly store: StoreCore,
    options: CollectionStoreOptions,
  ) {
    this.budget = options.budgetBytes;
    this.sliceMs = options.sliceMs ?? 4;
    this.slicedWriteBackBytes = options.slicedWriteBackBytes ?? SLICED_WRITE_BACK_BYTES;
    this.now = options.now ?? store.clock;
    const every = options.writeBackIntervalMs ?? 0;
    if (every > 0) {
      this.timer = setInterval(() => this.backgroundWriteBack(), every);
      this.timer.unref();
    }
    if (store instanceof Store) {
      this.unhook = store.onBeforeCheckpoint(
        () => this.beforeCheckpoint(),
        () => this.afterCheckpoint(),
      );
    }
  }

  /**
   * Every checkpoint of the store writes this cache back itself, right
   * before its fold-over mark (hlog's `onBeforeCheckpoint`): no explicit
   * `flush()` is needed before `checkpoint()` or `close()`. False for a
   * store without checkpoint hooks (a bare StoreCore).
   */
  get checkpointHooked(): boolean {
    return this.unhook !== null;
  }

  /** Stops the background write-back; checkpoints still write the cache back. */
  stopBackground(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Stops the background write-back and the checkpoint hook (the store is closed or dropped). */
  dispose(): void {
    this.stopBackground();
    this.unhook?.();
    this.unhook = null;
    this.afterCheckpoint();
  }

  /**
   * The checkpoint hook: writes back every dirty entry in this synchronous
   * step (a write that goes pending is awaited by the checkpoint, which then
   * calls this again), and returns the writes issued earlier that are still
   * in flight (an eviction or background write-back waiting for the
   * device), which the checkpoint awaits too. So the checkpoint's mark
   * follows a call that found everything written: it holds every change
   * acknowledged before it, which the AOF positions count on.
   *
   * A large entry is encoded in slices instead (writeSliced), its key held:
   * its promise is returned. The hold outlasts the write, until the mark
   * (hlog calls afterCheckpoint in its step): so a big key under constant writes cannot be
   * re-dirtied between its write and the mark, and each checkpoint encodes
   * it once (rather than again on every call, forever; or in one step the
   * second time, a stall the slicing is there to avoid, and no end either
   * when that write goes pending). Its commands wait for the checkpoint's
   * writes, as they wait for a load.
   */
  beforeCheckpoint(): Promise<unknown> | undefined {
    let inFlight: Promise<void>[] | null = null;
    this.table.forEach((e) => {
      // A background write-back encoding now: its hold is the checkpoint's too.
      if (e.hold !== null && !e.evicting) e.hold.forCheckpoint = true;
      const w = e.dirty ? this.schedule(e, () => this.writeOp(e, true)) : e.writing;
      if (w !== null && w !== undefined) {
        inFlight ??= [];
        inFlight.push(w);
      }
    });
    return inFlight === null ? undefined : Promise.all(inFlight);
  }

  /**
   * The checkpoint's fold-over ended (hlog calls this in the mark's own
   * step, or when the fold-over failed): its holds end. One still encoding
   * (a failed fold-over did not wait for it) ends once written.
   */
  afterCheckpoint(): void {
    this.table.forEach((e) => {
      const hold = e.hold;
      if (hold === null || !hold.forCheckpoint) return;
      if (hold.done) this.endHold(e, hold);
      else hold.forCheckpoint = false;
    });
  }

  /** One period of the background write-back (see writeBackIntervalMs). */
  backgroundWriteBack(): void {
    const tick = ++this.tick;
    this.table.forEach((e) => {
      if (!e.dirty || e.writing !== null) return;
      // A large collection that keeps changing is left to eviction, SAVE
      // and close: re-encoding it every few seconds would cost more than
      // the changes (the AOF, when on, has them meanwhile).
      const busyLimit = e.bytes <= FORCED_WRITE_BACK_MAX_BYTES ? 12 : Number.POSITIVE_INFINITY;
      if (tick - e.changedTick >= 2 || tick - e.dirtyTick >= busyLimit) {
        this.schedule(e, () => this.writeOp(e))?.catch(() => undefined);
      }
    });
  }

  /**
   * The collection at `key` if it holds one of `type`: found (the cached
   * structure; change it in place, then call `changed`), missing, or
   * wrongType. Synchronous unless the record has to be read from disk.
   */
  get<V extends CollectionValue = CollectionValue>(
    key: Uint8Array,
    type: number,
  ): MaybePending<CollectionLookup<V>> {
    const hash = KeyTable.hash(key);
    const e = this.table.find(key, hash);
    if (e !== undefined) {
      // Being written back in slices: wait, then look again.
      if (e.hold !== null) return e.hold.released.then(() => this.get<V>(key, type));
      const hit = this.hit(e, type);
      if (hit !== undefined) return hit as CollectionLookup<V>;
    }
    if (this.loading.length > 0) {
      const l = this.loadingOf(key, hash);
      // Decoding already: wait for it, then look again (it may have been superseded).
      if (l !== undefined) return l.promise.then(() => this.get<V>(key, type));
    }
    const v = this.store.read(key);
    if (v.status === 'notFound') return MISSING;
    if (v.status === 'found') {
      if (v.type !== type) return { status: 'wrongType', type: v.type };
      return this.load(
        key,
        hash,
        type,
        v.bytes.subarray(v.offset, v.offset + v.length),
        v.expiresAt,
      ) as MaybePending<CollectionLookup<V>>;
    }
    return v.pending.then((r): MaybePending<CollectionLookup<V>> => {
      // Another lookup or a create may have filled the entry meanwhile: it is newer.
      const again = this.table.find(key, hash);
      if (again !== undefined) {
        if (again.hold !== null) return again.hold.released.then(() => this.get<V>(key, type));
        const hit = this.hit(again, type);
        if (hit !== undefined) return hit as CollectionLookup<V>;
      }
      // Or a large record of it is being decoded since: wait for that one.
      const l = this.loading.length > 0 ? this.loadingOf(key, hash) : undefined;
      if (l !== undefined) return l.promise.then(() => this.get<V>(key, type));
      if (r.status === 'notFound') return MISSING;
      if (r.type !== type) return { status: 'wrongType', type: r.type };
      return this.load(key, hash, type, r.value, r.expiresAt) as MaybePending<CollectionLookup<V>>;
    });
  }

  /**
   * Whether `key` holds a value of any type, the cache's creations and
   * deletions not yet in the store included, without decoding anything
   * (a STORE's destination: Redis's lookupKeyWrite). Synchronous unless the
   * record has to be read from disk.
   */
  exists(key: Uint8Array): MaybePending<boolean> {
    // No record has this type: a lookup with it says missing or wrongType, never decodes.
    const r = this.get(key, NO_RECORD_TYPE);
    if (r instanceof Promise) return r.then((x) => x.status !== 'missing');
    return r.status !== 'missing';
  }

  /** The cached collection at `key` without touching the store, or undefined (OBJECT, tests). */
  peek(key: Uint8Array): CollectionValue | undefined {
    const e = this.table.find(key);
    return e?.value ?? undefined;
  }

  /**
   * Makes `value` the collection at `key` (the key was missing) and writes
   * its record now. The returned promise (if any) settles when the record
   * is written; the entry is usable at once.
   */
  create(key: Uint8Array, value: CollectionValue, expiresAt = 0): Promise<void> | undefined {
    this.onKeyGone?.(key);
    const hash = KeyTable.hash(key);
    this.staleLoad(key, hash);
    let e = this.table.find(key, hash);
    const replaced = e?.value === value ? null : (e?.value ?? null);
    if (e === undefined) {
      e = new CacheEntry(Buffer.from(key), hash, value, expiresAt);
      this.table.insert(e);
      this.link(e);
    } else {
      if (e.evicting) this.unmarkEvicting(e);
      this.staleHold(e);
      e.value = value;
      e.expiresAt = expiresAt;
      this.touch(e);
    }
    e.dirty = false;
    this.charge(e);
    const entry = e;
    const encoded = value.encode();
    const written = this.schedule(entry, () => {
      const r = this.store.upsert(
        entry.key,
        encoded,
        expiresAt,
        0,
        value.type as never,
        entry.cancel,
      );
      if (r.status === 'pending') return r.pending.then(() => undefined);
      return undefined;
    });
    if (replaced !== null) this.onReplaced?.(entry.key, replaced, written);
    this.evict(entry);
    return written;
  }

  /** `value` (the structure at `key`) was changed in place: dirty, recharged, most recently used. */
  changed(key: Uint8Array, value: CollectionValue): void {
    const e = this.table.find(key);
    if (e === undefined || e.value !== value) return; // dropped meanwhile (deleted, overwritten)
    // Changed under its write-back's encode (by a command that looked it
    // up before the hold, in the same turn): that snapshot is torn, not written.
    this.staleHold(e);
    if (!e.dirty) e.dirtyTick = this.tick;
    e.changedTick = this.tick;
    e.dirty = true;
    if (e.evicting) this.unmarkEvicting(e);
    this.charge(e);
    this.touch(e);
    this.evict(e);
  }

  /**
   * Calls `visit` with every cached value (entries being loaded are not
   * cached yet; a value kept only for its write in flight is): what is
   * decoded here and may not be in the log yet. Synchronous: nothing
   * changes during it.
   */
  forEachCached(visit: (key: Buffer, value: CollectionValue) => void): void {
    for (let e = this.head; e !== null; e = e.next) if (e.value !== null) visit(e.key, e.value);
  }

  /** Deletes the key (a collection left empty): drops the entry and removes the record. */
  delete(key: Uint8Array): Promise<void> | undefined {
    this.onKeyGone?.(key);
    this.staleLoad(key);
    const e = this.table.find(key);
    if (e === undefined) {
      const r = this.store.remove(key);
      return r.status === 'pending' ? r.pending.then(() => undefined) : undefined;
    }
    if (e.evicting) this.unmarkEvicting(e);
    this.staleHold(e);
    const replaced = e.value;
    e.value = null;
    e.dirty = false;
    this.charge(e);
    const written = this.schedule(e, () => {
      const r = this.store.remove(e.key, undefined, e.cancel);
      return r.status === 'pending' ? r.pending.then(() => undefined) : undefined;
    });
    if (replaced !== null) this.onReplaced?.(e.key, replaced, written);
    return written;
  }

  /** Writes the record of `key` from its cached structure when that is dirty (before a record-level read). */
  writeBack(key: Uint8Array): Promise<void> | undefined {
    const e = this.table.find(key);
    if (e === undefined) return undefined;
    return this.schedule(e, () => this.writeOp(e));
  }

  /** Writes back every dirty entry and waits for every write in flight (checkpoint, SAVE, close). */
  async flush(): Promise<void> {
    const waits: Promise<void>[] = [];
    this.table.forEach((e) => {
      const w = e.dirty ? this.schedule(e, () => this.writeOp(e)) : e.writing;
      if (w) waits.push(w);
    });
    await Promise.all(waits);
  }

  /** Resolves once no write issued by this cache is in flight. */
  async flushPending(): Promise<void> {
    const waits: Promise<void>[] = [];
    this.table.forEach((e) => {
      if (e.writing !== null) waits.push(e.writing);
    });
    await Promise.allSettled(waits);
  }

  /**
   * Forgets `key` without writing it (a command replaced or deleted the key
   * at the record level: SET, DEL, RENAME's destination, FLUSHDB...).
   * Returns the collection it held, if cached (a stream's blocks go after it).
   */
  invalidate(key: Uint8Array): CollectionValue | undefined {
    this.onKeyGone?.(key);
    this.staleLoad(key);
    // Most SETs meet an empty cache: no key hash then (it was ~7% of a SET's CPU).
    if (this.table.size === 0) return undefined;
    const e = this.table.find(key);
    if (e === undefined) return undefined;
    const value = e.value ?? undefined;
    // Replaced by a write that did not go through the cache: the drop
    // cancels this entry's writes still to land (pending, or queued).
    this.drop(e);
    return value;
  }

  /** The record's expiry changed (EXPIRE family, PERSIST); a time in the past drops the entry. */
  expiryChanged(key: Uint8Array, expiresAt: number): void {
    if (this.loading.length > 0) {
      const l = this.loadingOf(key, KeyTable.hash(key));
      if (l !== undefined) l.expiresAt = expiresAt;
    }
    const e = this.table.find(key);
    if (e === undefined) return;
    if (expiresAt !== 0 && expiresAt <= this.now()) this.drop(e);
    else e.expiresAt = expiresAt;
  }

  /** Drops every entry without writing (FLUSHDB, the store is being dropped). */
  clear(): void {
    this.onKeyGone?.(null);
    for (const l of this.loading) l.stale = true;
    this.table.forEach((e) => {
      this.staleHold(e);
    });
    this.dispose();
    this.table.clear();
    this.dropSoon = [];
    this.head = null;
    this.tail = null;
    this.bytes = 0;
    this.evictingBytes = 0;
  }

  stats(): CollectionStoreStats {
    let dirty = 0;
    this.table.forEach((e) => {
      if (e.dirty) dirty++;
    });
    return {
      entries: this.table.size,
      bytes: this.bytes,
      budgetBytes: this.budgetBytes,
      dirty,
      ...this.counters,
    };
  }

  // ---- lookups ---------------------------------------------------------------------

  /** The answer of a cached entry, or undefined when it no longer stands (expired). */
  private hit(e: CacheEntry, type: number): CollectionLookup | undefined {
    if (e.value === null) return MISSING;
    if (e.expiresAt !== 0 && e.expiresAt <= this.now()) {
      this.tellExpired(e);
      this.drop(e);
      return undefined;
    }
    // Served without reading the record: the key's access word is touched
    // here (Redis's lookupKey touches before it checks the type).
    this.store.touchHash(e.hash);
    if (e.value.type !== type) return { status: 'wrongType', type: e.value.type };
    if (e.evicting) this.unmarkEvicting(e);
    this.touch(e);
    this.counters.hits++;
    return e.found();
  }

  private load(
    key: Uint8Array,
    hash: number,
    type: number,
    bytes: Uint8Array,
    expiresAt: number,
  ): MaybePending<CollectionLookup> {
    if (bytes.length >= SLICED_LOAD_BYTES) {
      const sliced = slicedDecoderFor(type);
      if (sliced !== undefined) return this.loadSliced(key, hash, type, bytes, expiresAt);
    }
    const decode = decoderFor(type);
    if (decode === undefined)
      throw new CollectionError('ERR_NO_CODEC', `no codec registered for record type ${type}`);
    return this.cacheLoaded(key, hash, decode(bytes), expiresAt);
  }

  /** Decodes a large record over several event-loop turns, then caches it. */
  private loadSliced(
    key: Uint8Array,
    hash: number,
    type: number,
    bytes: Uint8Array,
    expiresAt: number,
  ): Promise<CollectionLookup> {
    // A copy: the log page under `bytes` may be flushed and reused meanwhile.
    const copy = Buffer.from(bytes);
    const l: Loading = {
      key: Buffer.from(key),
      hash,
      stale: false,
      expiresAt,
      promise: Promise.resolve(MISSING),
    };
    const done = () => {
      const i = this.loading.indexOf(l);
      if (i !== -1) this.loading.splice(i, 1);
    };
    l.promise = runSliced(slicedDecoderFor(type)!(copy), this.sliceMs).then(
      (value): MaybePending<CollectionLookup> => {
        done();
        // The key was written, deleted or re-expired meanwhile: this decode is old.
        if (l.stale) return this.get(l.key, type);
        this.cacheLoaded(l.key, hash, value, l.expiresAt);
        // Through hit(): expired meanwhile, the entry goes and the answer is missing.
        return this.get(l.key, type);
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
    this.loading.push(l);
    return l.promise;
  }

  private loadingOf(key: Uint8Array, hash: number): Loading | undefined {
    for (const l of this.loading) if (l.hash === hash && l.key.equals(key)) return l;
    return undefined;
  }

  /** The key changes at the record level: a decode of it in flight must not be cached. */
  private staleLoad(key: Uint8Array, hash?: number): void {
    if (this.loading.length === 0) return;
    const l = this.loadingOf(key, hash ?? KeyTable.hash(key));
    if (l !== undefined) l.stale = true;
  }

  private cacheLoaded(
    key: Uint8Array,
    hash: number,
    value: CollectionValue,
    expiresAt: number,
  ): CollectionLookup {
    const e = new CacheEntry(Buffer.from(key), hash, value, expiresAt);
    this.table.insert(e);
    this.link(e);
    this.charge(e);
    this.counters.loads++;
    this.evict(e);
    return { status: 'found', value };
  }

  // ---- writes ----------------------------------------------------------------------

  /** Runs `op` after the entry's previous write (if still in flight); tracks it as the entry's last write. */
  private schedule(
    e: CacheEntry,
    write: () => Promise<void> | undefined,
  ): Promise<void> | undefined {
    // A write queued behind another is not issued once the key was replaced (invalidate).
    const op = () => (e.cancel.cancelled ? undefined : write());
    let p: Promise<void> | undefined;
    if (e.writing === null) {
      p = op();
      if (p === undefined) {
        this.settled(e);
        return undefined;
      }
    } else {
      // The next write runs whether the previous one failed or not (its caller saw the error).
      p = e.writing.then(op, op);
    }
    const tracked: Promise<void> = p.finally(() => {
      if (e.writing === tracked) {
        e.writing = null;
        this.settled(e);
      }
    });
    e.writing = tracked;
    tracked.catch(() => undefined); // callers that wait see it; eviction must not crash the process
    return tracked;
  }

  /**
   * Rewrites the record from the structure, over an existing record only,
   * keeping its expiry: in this step, or in slices for a large entry.
   */
  private writeOp(e: CacheEntry, forCheckpoint = false): Promise<void> | undefined {
    const value = e.value;
    if (!e.dirty || value === null) return undefined;
    if (this.expired(e)) return undefined;
    e.dirty = false;
    this.counters.writeBacks++;
    if (e.bytes >= this.slicedWriteBackBytes) return this.writeSliced(e, value, forCheckpoint);
    return this.writeEncoded(e, value, value.encode());
  }

  /** Expired: the key is gone (the entry goes); writing it back could only resurrect it. */
  private expired(e: CacheEntry): boolean {
    if (e.expiresAt === 0 || e.expiresAt > this.now()) return false;
    if (this.table.find(e.key, e.hash) === e) this.tellExpired(e);
    this.lost(e);
    return true;
  }

  private tellExpired(e: CacheEntry): void {
    if (e.value !== null) this.onExpired?.(e.key, e.value);
  }

  private writeEncoded(
    e: CacheEntry,
    value: CollectionValue,
    bytes: Buffer,
  ): Promise<void> | undefined {
    // A write-back is no access: the lookup that changed the value touched
    // the key's access word already (hit, or the store read of a load).
    const access = this.store.access;
    const touching = access.touching;
    access.touching = false;
    const r = this.store.upsert(
      e.key,
      bytes,
      0,
      SetFlag.XX | SetFlag.KEEP_TTL,
      value.type as never,
      e.cancel,
    );
    access.touching = touching;
    if (r.status === 'pending') {
      return r.pending.then(
        (res) => {
          if (res.status === 'notSet') this.lost(e);
        },
        (err: unknown) => {
          e.dirty = true;
          throw err;
        },
      );
    }
    if (r.status === 'notSet') this.lost(e);
    return undefined;
  }

  /**
   * A large entry's write-back: encoded over event-loop turns from the next
   * one on (a command of this turn that holds the structure finishes
   * first), its key held meanwhile (get() waits), then written like any
   * other unless the hold went stale (staleHold). A checkpoint's hold
   * outlasts the write (see beforeCheckpoint).
   */
  private writeSliced(
    e: CacheEntry,
    value: CollectionValue,
    forCheckpoint: boolean,
  ): Promise<void> {
    const hold = new WriteBackHold(forCheckpoint);
    e.hold = hold;
    const job = untilStale(value.encodeSliced(), hold);
    return new Promise<void>((next) => setImmediate(next))
      .then(() => runSliced(job, this.sliceMs))
      .then((bytes) => {
        if (bytes === null || hold.stale || this.expired(e)) return undefined;
        return this.writeEncoded(e, value, bytes);
      })
      .then(
        () => {
          hold.done = true;
          if (!hold.forCheckpoint) this.endHold(e, hold);
        },
        (err: unknown) => {
          if (!hold.stale) e.dirty = true;
          this.endHold(e, hold);
          throw err;
        },
      );
  }

  /** Lookups of the key go on. */
  private endHold(e: CacheEntry, hold: WriteBackHold): void {
    if (e.hold === hold) e.hold = null;
    hold.release();
  }

  /** The key changes (record level or structure) under a sliced write-back: it must not write. */
  private staleHold(e: CacheEntry): void {
    const hold = e.hold;
    if (hold === null) return;
    hold.stale = true;
    this.endHold(e, hold);
  }

  /** The record vanished under a cached entry (expired, deleted): the entry goes too. */
  private lost(e: CacheEntry): void {
    if (this.table.find(e.key, e.hash) === e) this.drop(e);
  }

  /** No write of `e` is in flight any more. */
  private settled(e: CacheEntry): void {
    if (e.writing !== null || this.table.find(e.key, e.hash) !== e) return;
    if (e.value === null || (e.evicting && !e.dirty)) this.drop(e);
  }

  // ---- budget and LRU --------------------------------------------------------------

  /** Bytes of decoded values the cache keeps (see `setBudget`). */
  get budgetBytes(): number {
    return this.budget;
  }

  /**
   * Changes the budget (strata-server's CONFIG SET maxmemory): a smaller
   * one evicts the least recently used entries down to it at once, dirty
   * ones once written back, as any eviction does.
   */
  setBudget(bytes: number): void {
    this.budget = bytes;
    this.evict(null);
  }

  private charge(e: CacheEntry): void {
    const bytes = e.value === null ? 0 : e.value.memoryBytes() + e.key.length + ENTRY_OVERHEAD;
    this.bytes += bytes - e.bytes;
    if (e.evicting) this.evictingBytes += bytes - e.bytes;
    e.bytes = bytes;
  }

  /**
   * Evicts least recently used entries until the budget holds, never `keep`
   * (the entry in use: a collection larger than the budget stays while it
   * is the most recently used, rather than being decoded on every command).
   */
  private evict(keep: CacheEntry | null): void {
    let e = this.head;
    while (e !== null && this.bytes - this.evictingBytes > this.budget) {
      const next = e.next;
      // A held entry is being written (or holds for a checkpoint): evicted later if need be.
      if (e !== keep && !e.evicting && e.value !== null && e.hold === null) {
        this.counters.evictions++;
        e.evicting = true;
        this.evictingBytes += e.bytes;
        if (!e.dirty && e.writing === null) {
          // Dropped at the end of this turn, not now: a command holding
          // it (the first key of SMOVE/LMOVE, whose second key's load
          // evicts it) still changes the cached structure, not a copy the
          // cache let go of (its `changed` would be ignored: the write lost).
          // At most MAX_LINGERING of them (a pipeline reading many large
          // collections in one turn must not keep them all decoded): the
          // oldest goes at once, never the newest, which the current command
          // may hold.
          this.dropSoon.push(e);
          if (this.dropSoon.length === 1) setImmediate(this.dropEvictedBound);
          else if (this.dropSoon.length > MAX_LINGERING) this.dropIfUnused(this.dropSoon.shift()!);
        } else {
          const entry = e;
          this.schedule(entry, () => this.writeOp(entry));
        }
      }
      e = next;
    }
  }

  /** Drops the clean entries evicted this turn that nothing used again since. */
  private dropEvicted(): void {
    const list = this.dropSoon;
    this.dropSoon = [];
    for (const e of list) this.dropIfUnused(e);
  }

  /** Drops an evicted clean entry unless it was used or changed since. */
  private dropIfUnused(e: CacheEntry): void {
    if (e.evicting && !e.dirty && e.writing === null && this.table.find(e.key, e.hash) === e) {
      this.drop(e);
    }
  }

  private unmarkEvicting(e: CacheEntry): void {
    e.evicting = false;
    this.evictingBytes -= e.bytes;
  }

  private drop(e: CacheEntry): void {
    // Whatever drops an entry (replaced, expired, lost, evicted once idle),
    // its writes not applied yet must not land later over another value.
    e.cancel.cancelled = true;
    this.staleHold(e);
    if (!this.table.remove(e)) return;
    this.unlink(e);
    if (e.evicting) this.unmarkEvicting(e);
    this.bytes -= e.bytes;
    e.bytes = 0;
  }

  private link(e: CacheEntry): void {
    e.prev = this.tail;
    e.next = null;
    if (this.tail !== null) this.tail.next = e;
    else this.head = e;
    this.tail = e;
  }

  private unlink(e: CacheEntry): void {
    if (e.prev !== null) e.prev.next = e.next;
    else this.head = e.next;
    if (e.next !== null) e.next.prev = e.prev;
    else this.tail = e.prev;
    e.prev = null;
    e.next = null;
  }

  private touch(e: CacheEntry): void {
    if (this.tail === e) return;
    this.unlink(e);
    this.link(e);
  }
}

/** `job`, ending with null at its next slice once `hold` went stale. */
function* untilStale(job: Sliced<Buffer>, hold: WriteBackHold): Sliced<Buffer | null> {
  for (;;) {
    if (hold.stale) return null;
    const r = job.next();
    if (r.done) return r.value;
    yield;
  }
}
