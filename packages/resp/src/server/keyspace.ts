import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CollectionStore,
  dropStreamBlocks,
  reclaimedBlocks,
  StreamValue,
} from '@strata/collections';
import { type ExpiryRate, Store, type StoreCore, type StoreOptions } from '@strata/hlog';

/**
 * Where the server's databases live. One store per database: SELECT picks a
 * store, keys go to it exactly as they arrived (no db prefix to copy in
 * front of every key, which a pending operation would have to keep alive),
 * FLUSHDB drops a whole log instead of writing a tombstone per key, SWAPDB
 * can swap two references, and DBSIZE/SCAN only ever read that database's log.
 * Databases open on first use, so the 15 a deployment never selects cost
 * nothing; the price is one memory budget per database in use.
 */
export interface DatabaseProvider {
  /** How many databases SELECT accepts (0 .. count - 1). */
  readonly count: number;
  /** Opens (creating or recovering) database `index`. */
  open(index: number): Promise<StoreCore>;
  /**
   * Drops every key of `index` and resolves to the (empty) store to use
   * from now on. With `lazily` (FLUSHALL ASYNC), the old data is removed
   * in the background: `lazily` gets that removal, and the new store comes
   * without waiting for it.
   */
  flush?(
    index: number,
    store: StoreCore,
    lazily?: (removed: Promise<void>) => void,
  ): Promise<StoreCore>;
  /** Makes everything written so far durable (SAVE, BGSAVE). */
  save?(index: number, store: StoreCore): Promise<void>;
  /**
   * Drops `store` without writing anything more and opens database `index`
   * again from what is on disk, as a restart after a crash would (DEBUG
   * RELOAD, after a SAVE unless NOSAVE).
   */
  reopen?(index: number, store: StoreCore): Promise<StoreCore>;
  /** The databases that have data on disk, opened or not (what DEBUG DIGEST reads). */
  stored?(): Promise<readonly number[]>;
  /** Closes a store this provider opened (server shutdown). */
  close(index: number, store: StoreCore): Promise<void>;
  /**
   * Records that databases `a` and `b` swapped their stores (SWAPDB), so a
   * restart opens each index on the other's data. Without it a swap lasts
   * until the server stops.
   */
  swap?(a: number, b: number): Promise<void>;
  /** Bytes of decoded collections database `index` may cache (default: half its log memory). */
  collectionBudget?(index: number, store: StoreCore): number;
}

export interface StoreDatabasesOptions {
  /** Each database lives in `<dir>/<index>`. */
  readonly dir: string;
  /** Default 16, as Redis. */
  readonly count?: number;
  /**
   * Options for every database's store (memory, pageSize...).
   * `consistentRecovery` is on unless set here: after a crash each database
   * comes back as of one moment (its last checkpoint, or a clean close
   * after it), never the log tail a crash left, whose strings are from a
   * later moment than the collections beside them.
   */
  readonly store?: Omit<StoreOptions, 'dir' | 'device'>;
  /** Bytes of decoded collections each database caches. Default: half its log memory, at least 64 KiB. */
  readonly collectionMemory?: number;
}

/**
 * Which directory holds each database: `<dir>/<index>`, except for indexes
 * a SWAPDB traded, recorded in `<dir>/databases.json` (index -> directory
 * name, written atomically: a temp file renamed over it). Shared by every
 * provider that keeps one directory per database (`storeDatabases`,
 * strata-server's), so a swap survives a restart whichever opens the data.
 */
/** The mark of a directory a lazy flush renamed aside (DatabaseDirectories.empty). */
const FLUSHED = '.flushed-';
const FLUSHED_NAME = /^\d+\.flushed-\d+$/;

export class DatabaseDirectories {
  private readonly mapFile: string;
  // index -> directory name, for indexes that were swapped; loaded once.
  private names: Promise<Map<number, string>> | null = null;

  constructor(readonly dir: string) {
    this.mapFile = join(dir, 'databases.json');
  }

  private load(): Promise<Map<number, string>> {
    // First use: what lazy flushes left at the last stop goes, in the background.
    if (this.names === null) void this.removeFlushed().catch(() => undefined);
    this.names ??= readFile(this.mapFile, 'utf8').then(
      (text) =>
        new Map(
          Object.entries(JSON.parse(text) as Record<string, string>).map(([k, v]) => [
            Number(k),
            v,
          ]),
        ),
      () => new Map<number, string>(),
    );
    return this.names;
  }

  /** The directory of database `index`. */
  async pathOf(index: number): Promise<string> {
    return join(this.dir, (await this.load()).get(index) ?? String(index));
  }

  /**
   * Empties database `index`'s directory: removed before this resolves, or
   * with `lazily` renamed aside (`<name>.flushed-<time>`) and removed in the
   * background, `lazily` given that removal. A crash leaves the renamed
   * directory, which the next `removeFlushed` deletes: it holds a flushed
   * database, nothing any start reads.
   */
  async empty(index: number, lazily?: (removed: Promise<void>) => void): Promise<void> {
    const path = await this.pathOf(index);
    if (lazily === undefined) {
      await rm(path, { recursive: true, force: true });
      return;
    }
    const aside = `${path}${FLUSHED}${Date.now()}`;
    const moved = await rename(path, aside).then(
      () => true,
      (e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return false;
        throw e;
      },
    );
    lazily(moved ? rm(aside, { recursive: true, force: true }) : Promise.resolve());
  }

  /** Removes what lazy flushes left when the process stopped (see `empty`). */
  async removeFlushed(): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      // Only what `empty` names so: a database's directory, the mark, a time.
      if (FLUSHED_NAME.test(name)) await rm(join(this.dir, name), { recursive: true, force: true });
    }
  }

  /** The databases among the first `count` whose directory exists. */
  async stored(count: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      const found = await stat(await this.pathOf(i)).then(
        (st) => st.isDirectory(),
        () => false,
      );
      if (found) out.push(i);
    }
    return out;
  }

  /** Databases `a` and `b` trade directories, on disk before this resolves. */
  async swap(a: number, b: number): Promise<void> {
    const map = await this.load();
    const na = map.get(a) ?? String(a);
    const nb = map.get(b) ?? String(b);
    map.set(a, nb);
    map.set(b, na);
    for (const [i, n] of [...map]) if (n === String(i)) map.delete(i);
    await mkdir(this.dir, { recursive: true });
    const tmp = `${this.mapFile}.tmp`;
    await writeFile(tmp, JSON.stringify(Object.fromEntries(map)));
    await rename(tmp, this.mapFile);
  }
}

/**
 * One hlog Store per database, in its `DatabaseDirectories` directory
 * (`<dir>/<index>` until a SWAPDB trades two).
 */
export function storeDatabases(options: StoreDatabasesOptions): DatabaseProvider {
  const storeOptions = options.store ?? {};
  const dirs = new DatabaseDirectories(options.dir);
  const open = async (index: number): Promise<StoreCore> => {
    const path = await dirs.pathOf(index);
    await mkdir(path, { recursive: true });
    return Store.open({ consistentRecovery: true, ...storeOptions, dir: path });
  };
  const collectionMemory = options.collectionMemory;
  return {
    count: options.count ?? 16,
    open,
    ...(collectionMemory !== undefined ? { collectionBudget: () => collectionMemory } : {}),
    async flush(index, store, lazily) {
      // Nothing of the old log is kept, so there is nothing to checkpoint.
      if (store instanceof Store) await store.abandon();
      await dirs.empty(index, lazily);
      return open(index);
    },
    swap: (a, b) => dirs.swap(a, b),
    stored: () => dirs.stored(options.count ?? 16),
    async save(_index, store) {
      if (store instanceof Store) await store.checkpoint();
    },
    async reopen(index, store) {
      if (store instanceof Store) await store.abandon();
      return open(index);
    },
    async close(_index, store) {
      if (store instanceof Store) await store.close();
    },
  };
}

export interface KeyspaceOptions {
  /**
   * Bytes of decoded collections each database keeps cached (hashes, sets...),
   * given its store. Default: half of the store's log memory, at least 64 KiB.
   */
  readonly collectionBudget?: (store: StoreCore) => number;
  /**
   * Period of the caches' background write-back in ms (idle dirty
   * collections are written into their records, so a checkpoint taken
   * outside SAVE/close sees them). Default 1000; 0 turns it off.
   */
  readonly collectionWriteBackMs?: number;
  /**
   * A key's value in `store` is gone (its CollectionStore's `onKeyGone`:
   * deleted, replaced; null: every key, FLUSHDB). The store, not an index:
   * SWAPDB moves stores between indexes.
   */
  readonly onKeyGone?: (store: StoreCore, key: Uint8Array | null) => void;
}

const MIN_COLLECTION_BUDGET = 64 << 10;

function defaultCollectionBudget(store: StoreCore): number {
  return Math.max(MIN_COLLECTION_BUDGET, Math.floor(store.coreStats().log.memoryBytes / 2));
}

/**
 * The server's view of the databases: opened lazily, flushed in place. Each
 * open database has its store and, in front of it, its CollectionStore (the
 * cache of decoded hashes, sets, sorted sets and lists), which is written
 * back before the store is saved or closed and dropped with it on FLUSHDB.
 */
export class Keyspace {
  /**
   * What was freed after its command's reply (INFO's lazyfree_pending_objects
   * and lazyfreed_objects): keys of databases FLUSHALL ASYNC dropped, stream
   * blocks a lazy DEL, UNLINK or overwrite let go (streams/stream-removal.ts).
   */
  readonly lazyfree = { pending: 0, freed: 0 };
  private readonly stores: (StoreCore | undefined)[];
  private readonly caches: (CollectionStore | undefined)[];
  private readonly collectionBudget: (store: StoreCore) => number;
  private readonly collectionWriteBackMs: number;
  private readonly onKeyGone: ((store: StoreCore, key: Uint8Array | null) => void) | undefined;
  /** Saves (write-back, then checkpoint) running per database: a flush waits for them. */
  private readonly saving = new Map<number, Promise<void>>();
  private readonly opening = new Map<number, Promise<StoreCore>>();
  private rate: ExpiryRate | null = null;
  /** Whole-log passes running per database (flush and close wait for them). */
  private readonly passes = new Map<number, Set<Promise<unknown>>>();

  constructor(
    readonly provider: DatabaseProvider,
    options: KeyspaceOptions = {},
  ) {
    this.stores = new Array<StoreCore | undefined>(provider.count).fill(undefined);
    this.caches = new Array<CollectionStore | undefined>(provider.count).fill(undefined);
    this.collectionBudget = options.collectionBudget ?? defaultCollectionBudget;
    this.collectionWriteBackMs = options.collectionWriteBackMs ?? 1000;
    this.onKeyGone = options.onKeyGone;
  }

  get count(): number {
    return this.provider.count;
  }

  /** The open store of `index`, or undefined while it is not open. */
  get(index: number): StoreCore | undefined {
    return this.stores[index];
  }

  /** The collections of the open database `index`, or undefined while it is not open. */
  collections(index: number): CollectionStore | undefined {
    return this.caches[index];
  }

  /**
   * The active expiry cycle's rate for every store (CONFIG SET hz,
   * active-expire-effort): given to the open ones, and to each one opened
   * later. Null: the stores keep the rate they opened with.
   */
  get expiryRate(): ExpiryRate | null {
    return this.rate;
  }

  set expiryRate(rate: ExpiryRate | null) {
    this.rate = rate;
    if (rate === null) return;
    for (const store of this.stores) if (store instanceof Store) store.setExpiryRate(rate);
  }

  /** The collection cache budget of database `index` (by default half its log memory). */
  private budgetOf(index: number, store: StoreCore): number {
    return this.provider.collectionBudget?.(index, store) ?? this.collectionBudget(store);
  }

  /**
   * Sets each open database's collection cache budget again from its store
   * (after its log memory changed: CONFIG SET maxmemory); a smaller one
   * evicts at once.
   */
  updateCollectionBudgets(): void {
    this.stores.forEach((store, index) => {
      if (store !== undefined) this.caches[index]?.setBudget(this.budgetOf(index, store));
    });
  }

  private install(index: number, store: StoreCore): void {
    this.stores[index] = store;
    if (this.rate !== null && store instanceof Store) store.setExpiryRate(this.rate);
    const cache = new CollectionStore(store, {
      budgetBytes: this.budgetOf(index, store),
      writeBackIntervalMs: this.collectionWriteBackMs,
    });
    const onKeyGone = this.onKeyGone;
    if (onKeyGone !== undefined) cache.onKeyGone = (key) => onKeyGone(store, key);
    // An expired stream's blocks go after it (its record is already gone for every reader),
    // a replaced one's once the write over it settled.
    cache.onExpired = (_key, value) => {
      if (value instanceof StreamValue && value.refs.length > 0)
        void dropStreamBlocks(value, cache);
    };
    cache.onReplaced = (_key, old, written) => {
      if (!(old instanceof StreamValue) || old.refs.length === 0) return;
      if (written === undefined) void dropStreamBlocks(old, cache);
      else
        written.then(
          () => dropStreamBlocks(old, cache),
          () => undefined,
        );
    };
    this.caches[index] = cache;
  }

  /** Writes back the cached collections of `index` (a record-level read or a checkpoint follows). */
  async writeBack(index: number): Promise<void> {
    await this.caches[index]?.flush();
  }

  /** `writeBack` for a cache whose store's checkpoints do not write it back themselves. */
  private async writeBackUnhooked(index: number): Promise<void> {
    const cache = this.caches[index];
    if (cache !== undefined && !cache.checkpointHooked) await cache.flush();
  }

  /** The store of `index`, opening it on first use (once, however many callers wait). */
  ensure(index: number): Promise<StoreCore> {
    const open = this.stores[index];
    if (open !== undefined) return Promise.resolve(open);
    let p = this.opening.get(index);
    if (p === undefined) {
      p = this.provider.open(index).then(
        (s) => {
          this.install(index, s);
          this.opening.delete(index);
          return s;
        },
        (e: unknown) => {
          this.opening.delete(index);
          throw e;
        },
      );
      this.opening.set(index, p);
    }
    return p;
  }

  /**
   * Registers a read-only pass over database `index` (KEYS, SCAN, DBSIZE...):
   * flushing or closing that database waits for it to end, so a store is
   * never dropped under a scan. Returns `pass`.
   */
  track<T>(index: number, pass: Promise<T>): Promise<T> {
    let set = this.passes.get(index);
    if (set === undefined) {
      set = new Set();
      this.passes.set(index, set);
    }
    const running = set;
    running.add(pass);
    const done = () => {
      running.delete(pass);
      if (running.size === 0 && this.passes.get(index) === running) this.passes.delete(index);
    };
    pass.then(done, done);
    return pass;
  }

  /** Passes running over database `index` now. */
  activePasses(index: number): number {
    return this.passes.get(index)?.size ?? 0;
  }

  /** Resolves once no pass over database `index` (every database for -1) is running. */
  async passesEnded(index: number): Promise<void> {
    for (;;) {
      const running: Promise<unknown>[] = [];
      for (const [i, set] of this.passes) if (index === -1 || i === index) running.push(...set);
      if (running.length === 0) return;
      await Promise.allSettled(running);
    }
  }

  get canFlush(): boolean {
    return this.provider.flush !== undefined;
  }

  /**
   * Empties database `index` (a database never opened is empty already);
   * `lazy` (FLUSHALL ASYNC): its old data is removed after this resolves,
   * its keys counted in `lazyfree` meanwhile, as Redis counts a database
   * its lazyfree thread frees.
   */
  async flush(index: number, lazy = false): Promise<void> {
    const flush = this.provider.flush;
    if (flush === undefined) throw new TypeError('the database provider cannot flush');
    await this.opening.get(index);
    await this.passesEnded(index);
    await this.saving.get(index);
    const store = this.stores[index];
    if (store === undefined) return;
    const keys = lazy ? await store.exactCount() : 0;
    const lazyfree = this.lazyfree;
    const lazily = lazy
      ? (removed: Promise<void>) => {
          lazyfree.pending += keys;
          const done = () => {
            lazyfree.pending -= keys;
            lazyfree.freed += keys;
          };
          removed.then(done, done);
        }
      : undefined;
    // Nothing cached survives a flush (and nothing of it is written back);
    // cleared while the store is still at its index, so its keys' loss is
    // heard in this database.
    this.caches[index]?.clear();
    this.caches[index] = undefined;
    this.stores[index] = undefined;
    const opened = flush.call(this.provider, index, store, lazily);
    this.opening.set(index, opened);
    try {
      this.install(index, await opened);
    } finally {
      this.opening.delete(index);
    }
  }

  /**
   * SWAPDB: databases `a` and `b` trade their stores and collection caches
   * (both are opened first; passes over them finish first). Clients keep
   * their selected index and see the other data from now on.
   */
  async swap(a: number, b: number): Promise<void> {
    if (a === b) return;
    await Promise.all([this.ensure(a), this.ensure(b)]);
    await Promise.all([this.passesEnded(a), this.passesEnded(b)]);
    await this.provider.swap?.(a, b);
    const store = this.stores[a];
    this.stores[a] = this.stores[b];
    this.stores[b] = store;
    const cache = this.caches[a];
    this.caches[a] = this.caches[b];
    this.caches[b] = cache;
  }

  get canSave(): boolean {
    return this.provider.save !== undefined;
  }

  /** Checkpoints every open database. */
  async saveAll(): Promise<void> {
    const save = this.provider.save;
    if (save === undefined) throw new TypeError('the database provider cannot save');
    const saving: Promise<void>[] = [];
    for (let i = 0; i < this.stores.length; i++) {
      const s = this.stores[i];
      if (s === undefined) continue;
      // A cache on a store with checkpoint hooks is written back by the
      // checkpoint itself, in the step of its mark.
      const run = this.writeBackUnhooked(i).then(() => save.call(this.provider, i, s));
      const tracked: Promise<void> = run.then(
        () => undefined,
        () => undefined,
      );
      this.saving.set(i, tracked);
      tracked.then(() => {
        if (this.saving.get(i) === tracked) this.saving.delete(i);
      });
      saving.push(run);
    }
    await Promise.all(saving);
  }

  /** Opens every database the provider has data of (all that are open, without `stored`). */
  async ensureStored(): Promise<void> {
    const stored = (await this.provider.stored?.()) ?? [];
    for (const i of stored) await this.ensure(i);
  }

  get canReload(): boolean {
    return this.provider.reopen !== undefined;
  }

  /**
   * DEBUG RELOAD: every open database is dropped from memory (its cached
   * collections with it, written back only by a save before) and opened
   * again from disk. The caller holds every other client.
   */
  async reload(): Promise<void> {
    const reopen = this.provider.reopen;
    if (reopen === undefined) throw new TypeError('the database provider cannot reopen');
    await Promise.allSettled([...this.opening.values()]);
    await this.passesEnded(-1);
    await Promise.allSettled([...this.saving.values()]);
    for (let i = 0; i < this.stores.length; i++) {
      const s = this.stores[i];
      if (s === undefined) continue;
      const cache = this.caches[i];
      cache?.stopBackground();
      cache?.dispose();
      this.stores[i] = undefined;
      this.caches[i] = undefined;
      const opened = reopen.call(this.provider, i, s);
      this.opening.set(i, opened);
      try {
        this.install(i, await opened);
      } finally {
        this.opening.delete(i);
      }
    }
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.opening.values()]);
    await this.passesEnded(-1);
    const closing: Promise<void>[] = [];
    for (let i = 0; i < this.stores.length; i++) {
      const s = this.stores[i];
      if (s !== undefined) {
        const cache = this.caches[i];
        cache?.stopBackground();
        closing.push(
          // Stream blocks let go and not yet deleted are deleted first (else left on disk for good).
          (cache === undefined ? Promise.resolve() : reclaimedBlocks(cache))
            .then(() => this.writeBackUnhooked(i))
            .finally(() => this.provider.close(i, s))
            .finally(() => cache?.dispose()),
        );
      }
      this.stores[i] = undefined;
      this.caches[i] = undefined;
    }
    await Promise.all(closing);
  }
}
