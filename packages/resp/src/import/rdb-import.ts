import { stat } from 'node:fs/promises';
import { beginStreamBuild, CollectionStore, HashValue, latin1 } from '@strata/collections';
import { isInternalKey, RecordType, type StoreCore } from '@strata/hlog';
import { openRdbFile, RdbError, type RdbRecord, type RdbValueType } from '@strata/rdb';
import { streamFromRdb } from '../commands/dump/stream-bridge.js';
import { fromRdbValue, type RestoredRecord, rdbValueSize } from '../commands/dump/value-bridge.js';
import { noteSoonest, REGISTRY_KEY } from '../commands/hashes/field-registry.js';
import { type FunctionStore, libraryName } from '../commands/scripting/function-libraries.js';
import { addImportedLibraries } from '../commands/scripting/imported-libraries.js';
import { readRecord } from '../commands/shared/read-record.js';
import { CommandError } from '../errors.js';
import { RdbImportError } from './import-error.js';

/** Where an import stands (for a progress bar). */
export interface RdbImportProgress {
  readonly bytesRead: number;
  readonly totalBytes: number;
  readonly keys: number;
  readonly ms: number;
}

export interface RdbImportOptions {
  readonly file: string;
  /** Database numbers the target has (a key of database >= this stops the import). */
  readonly databases: number;
  /** The store of database `db`, opened on its first key. */
  readonly open: (db: number) => Promise<StoreCore>;
  /** Bytes a database's collection cache keeps while streams are built (default 8 MiB). */
  readonly collectionBudget?: number;
  /** The clock expiries are compared with (Unix ms); default Date.now. */
  readonly now?: () => number;
  /** Called at most every `progressMs` (default 250) while reading, and once at the end. */
  readonly onProgress?: (p: RdbImportProgress) => void;
  readonly progressMs?: number;
  /**
   * A key already in its store: 'refuse' (default) stops the import there,
   * as Redis's loader stops at a key the file holds twice (the stores must
   * start empty, so only the file's own duplicates are found); 'replace'
   * writes over it (a merge into databases that hold data, of a file
   * checked with 'refuse' before).
   */
  readonly existingKeys?: 'refuse' | 'replace';
  /**
   * Where the file's function libraries go (strata-server's functions
   * file), added after the keys (a library of the same name replaced);
   * none: they are only checked (each must have a valid `#!lua name=`
   * line). The server compiles them when it starts.
   */
  readonly functionStore?: FunctionStore | null;
}

/** What an import did, as Redis's "Done loading RDB" line and more. */
export interface RdbImportSummary {
  readonly rdbVersion: number;
  /** The `redis-ver` AUX field of the file, null when it has none. */
  readonly redisVersion: string | null;
  /** Keys written. */
  readonly keys: number;
  readonly byType: Readonly<Record<RdbValueType, number>>;
  /** Keys by database number. */
  readonly byDatabase: ReadonlyMap<number, number>;
  /** Keys whose expiry had passed: skipped, as Redis's loader does. */
  readonly expiredSkipped: number;
  /** Empty collections (older RDB files may hold them): skipped, as Redis 7.0 does. */
  readonly emptySkipped: number;
  /** Function libraries in the file (FUNCTION2): into `functionStore` when one was given. */
  readonly functions: number;
  /** Their names, in the file's order. */
  readonly functionNames: readonly string[];
  readonly bytes: number;
  readonly ms: number;
}

/** Sync work between two yields to the event loop. */
const SLICE_MS = 20;

/**
 * Loads an RDB file (RDB versions up to 12: Redis 6.2 to 7.4) into strata
 * stores, one record in memory at a time: every value through the same
 * conversion as RESTORE (`fromRdbValue`; a stream `streamFromRdb`, its
 * blocks written through a collection cache of the database), with its
 * absolute expiry; keys already expired skipped. Stops at the first bad
 * byte with an RdbImportError naming its offset; what was written before
 * stays in the stores, so a caller that must not show half a file writes
 * to stores it can throw away (strata-server's staging directory).
 */
export async function importRdb(options: RdbImportOptions): Promise<RdbImportSummary> {
  const now = options.now ?? Date.now;
  const totalBytes = (await stat(options.file)).size;
  const reader = openRdbFile(options.file);
  const started = performance.now();
  const byType: Record<RdbValueType, number> = {
    string: 0,
    list: 0,
    set: 0,
    zset: 0,
    hash: 0,
    stream: 0,
  };
  const byDatabase = new Map<number, number>();
  const stores = new Map<number, StoreCore>();
  const caches = new Map<number, CollectionStore>();
  const cacheOf = (db: number, store: StoreCore) => {
    let c = caches.get(db);
    if (c === undefined) {
      c = new CollectionStore(store, { budgetBytes: options.collectionBudget ?? 8 << 20 });
      caches.set(db, c);
    }
    return c;
  };
  // Hashes with field expiry times per database, for the active cycle's registry.
  const registries = new Map<number, HashValue>();
  let keys = 0;
  let functionNames: string[] = [];
  let expiredSkipped = 0;
  let emptySkipped = 0;
  const progressMs = options.progressMs ?? 250;
  const refuseExisting = (options.existingKeys ?? 'refuse') === 'refuse';
  let lastProgress = started;
  let sliceStart = started;
  const progress = (t: number) => {
    lastProgress = t;
    options.onProgress?.({ bytesRead: reader.bytesRead, totalBytes, keys, ms: t - started });
  };
  try {
    for await (const r of reader) {
      if (r.db >= options.databases) {
        throw new RdbImportError(
          'ERR_IMPORT_DB_RANGE',
          `the RDB file has a key in database ${r.db}, and there are ${options.databases} databases (--databases) (at byte offset ${r.offset})`,
          r.offset,
        );
      }
      if (r.expireAtMs !== undefined && r.expireAtMs < now()) {
        expiredSkipped++;
      } else if (rdbValueSize(r.value) === 0) {
        emptySkipped++;
      } else {
        let store = stores.get(r.db);
        if (store === undefined) {
          store = await options.open(r.db);
          stores.set(r.db, store);
        }
        if (refuseExisting && (await holds(store, r.key))) {
          throw new RdbImportError(
            'ERR_IMPORT_DUPLICATE',
            `RDB has duplicated key ${keyText(r.key)} in DB ${r.db} (at byte offset ${r.offset})`,
            r.offset,
          );
        }
        // A stream's blocks have no head until its record is written: the block GC waits.
        const build = r.value.type === 'stream' ? beginStreamBuild(cacheOf(r.db, store)) : null;
        let v: ValueRecord;
        try {
          v = r.value.type === 'stream' ? await streamRecord(r, cacheOf(r.db, store)) : convert(r);
          const w = store.upsert(r.key, v.record, r.expireAtMs ?? 0, 0, v.type);
          if (w.status === 'pending') await w.pending;
        } finally {
          build?.end();
        }
        if (v.fieldExpiry !== undefined) {
          const reg = registries.get(r.db) ?? HashValue.empty();
          registries.set(r.db, reg);
          noteSoonest(reg, latin1(r.key), v.fieldExpiry.minFieldTtl());
        }
        keys++;
        byType[r.value.type]++;
        byDatabase.set(r.db, (byDatabase.get(r.db) ?? 0) + 1);
      }
      if ((keys & 255) === 0) {
        const t = performance.now();
        if (t - lastProgress >= progressMs) progress(t);
        // The reader's awaits are mostly microtasks: let timers and I/O in.
        if (t - sliceStart >= SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
    }
    functionNames = libraryNamesOf(reader.functions, reader.functionOffsets);
    // The blocks are written as they seal; what the caches still hold is clean.
    for (const c of caches.values()) await c.flush();
    for (const [db, reg] of registries) await register(stores.get(db)!, reg);
    if (options.functionStore && reader.functions.length > 0) {
      await addImportedLibraries(options.functionStore, reader.functions);
    }
  } catch (e) {
    if (e instanceof RdbError) throw new RdbImportError(e.code, e.message, e.offset);
    throw e;
  } finally {
    for (const c of caches.values()) c.dispose();
  }
  const ms = performance.now() - started;
  progress(performance.now());
  return {
    rdbVersion: reader.version,
    redisVersion: reader.aux.get('redis-ver')?.toString('latin1') ?? null,
    keys,
    byType,
    byDatabase,
    expiredSkipped,
    emptySkipped,
    functions: reader.functions.length,
    functionNames,
    bytes: reader.bytesRead,
    ms,
  };
}

/** The libraries' names; a library without a valid metadata line stops the import at its offset. */
function libraryNamesOf(codes: readonly Buffer[], offsets: readonly number[]): string[] {
  const names = new Set<string>();
  for (let i = 0; i < codes.length; i++) {
    let name: string;
    try {
      name = libraryName(codes[i]!);
    } catch (e) {
      const why = (e instanceof Error ? e.message : String(e)).replace(/^ERR /, '');
      throw new RdbImportError(
        'ERR_IMPORT_VALUE',
        `function library ${i + 1} of the file: ${why} (at byte offset ${offsets[i]})`,
        offsets[i]!,
      );
    }
    if (names.has(name)) {
      throw new RdbImportError(
        'ERR_IMPORT_DUPLICATE',
        `RDB has duplicated function library '${name}' (at byte offset ${offsets[i]})`,
        offsets[i]!,
      );
    }
    names.add(name);
  }
  return [...names];
}

const keyText = (key: Buffer) => JSON.stringify(key.toString('latin1'));

/** Whether `store` has `key` (a probe: the index, and the device only on a hash-tag match). */
async function holds(store: StoreCore, key: Buffer): Promise<boolean> {
  const p = store.probe(key);
  return (p.status === 'pending' ? await p.pending : p).status === 'found';
}

/** A record to write: its type and bytes (a hash with field expiry times to register). */
type ValueRecord = RestoredRecord;

/**
 * Adds the imported hashes with field expiry times to the database's
 * registry (field-registry.ts), merged with the one a store imported into
 * already has: an entry may be early, never late.
 */
async function register(store: StoreCore, imported: HashValue): Promise<void> {
  const old = await readRecord(store, REGISTRY_KEY);
  const reg =
    old.status === 'found' && old.type === RecordType.HASH
      ? HashValue.decode(old.value)
      : HashValue.empty();
  imported.forEach((key, at) => {
    noteSoonest(reg, key, Number(at));
  });
  const w = store.upsert(REGISTRY_KEY, reg.encode(), 0, 0, RecordType.HASH);
  if (w.status === 'pending') await w.pending;
}

function checkKey(r: RdbRecord): void {
  if (isInternalKey(r.key)) {
    throw new RdbImportError(
      'ERR_IMPORT_VALUE',
      `key ${keyText(r.key)} starts with strata's reserved prefix (at byte offset ${r.offset})`,
      r.offset,
    );
  }
}

/** What RESTORE would refuse in a value, as an import error naming where it is. */
function badValue(r: RdbRecord, e: unknown): unknown {
  if (!(e instanceof CommandError)) return e;
  return new RdbImportError(
    'ERR_IMPORT_VALUE',
    `the ${r.value.type} at key ${keyText(r.key)} is not a value Redis loads (at byte offset ${r.offset})`,
    r.offset,
  );
}

/** The record of a key but a stream. */
function convert(r: RdbRecord): ValueRecord {
  checkKey(r);
  if (r.value.type === 'stream') throw new Error('streams go through streamRecord');
  try {
    return fromRdbValue(r.value);
  } catch (e) {
    throw badValue(r, e);
  }
}

/** A stream's head record, its sealed blocks written through `cache` as RESTORE writes them. */
async function streamRecord(r: RdbRecord, cache: CollectionStore): Promise<ValueRecord> {
  checkKey(r);
  if (r.value.type !== 'stream') throw new Error('not a stream');
  try {
    const built = await streamFromRdb(cache, r.value);
    await built.written;
    return { type: RecordType.STREAM, record: built.head.encode() };
  } catch (e) {
    throw badValue(r, e);
  }
}
