import { stat } from 'node:fs/promises';
import { isInternalKey, RecordType, type StoreCore } from '@strata/hlog';
import { openRdbFile, RdbError, type RdbRecord, type RdbValueType } from '@strata/rdb';
import { fromRdbValue, rdbValueSize, type ValueRecords } from '../commands/shared/rdb-value.js';
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
  /**
   * The store of database `db`, opened on its first key; null: nothing is
   * written, the file is only read through and checked (every value
   * converted as it would be written).
   */
  readonly open: ((db: number) => Promise<StoreCore>) | null;
  /** The clock expiries are compared with (Unix ms); default Date.now. */
  readonly now?: () => number;
  /** Called at most every `progressMs` (default 250) while reading, and once at the end. */
  readonly onProgress?: (p: RdbImportProgress) => void;
  readonly progressMs?: number;
}

/** What an import did, as Redis's "Done loading RDB" line and more. */
export interface RdbImportSummary {
  readonly rdbVersion: number;
  /** The `redis-ver` AUX field of the file, null when it has none. */
  readonly redisVersion: string | null;
  /** Keys written (or, checking only, that would be). */
  readonly keys: number;
  readonly byType: Readonly<Record<RdbValueType, number>>;
  /** Keys by database number. */
  readonly byDatabase: ReadonlyMap<number, number>;
  /** Keys whose expiry had passed: skipped, as Redis's loader does. */
  readonly expiredSkipped: number;
  /** Empty collections (older RDB files may hold them): skipped, as Redis 7.0 does. */
  readonly emptySkipped: number;
  /** Function libraries in the file (FUNCTION2): not imported. */
  readonly functions: number;
  readonly bytes: number;
  readonly ms: number;
}

/** Sync work between two yields to the event loop. */
const SLICE_MS = 20;

/**
 * Loads an RDB file (RDB versions up to 12: Redis 6.2 to 7.4) into strata
 * stores, one record in memory at a time: every value through the same
 * conversion as RESTORE (`fromRdbValue`), with its absolute expiry; keys
 * already expired skipped. Stops at the first bad byte with an
 * RdbImportError naming its offset; what was written before stays in the
 * stores, so a caller that must not show half a file writes to stores it
 * can throw away (strata-server's staging directory), or checks first
 * (`open: null`).
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
  let keys = 0;
  let expiredSkipped = 0;
  let emptySkipped = 0;
  const progressMs = options.progressMs ?? 250;
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
        const records = convert(r);
        if (options.open !== null) {
          let store = stores.get(r.db);
          if (store === undefined) {
            store = await options.open(r.db);
            stores.set(r.db, store);
          }
          const pending = write(store, r, records);
          if (pending !== undefined) await pending;
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
  } catch (e) {
    if (e instanceof RdbError) throw new RdbImportError(e.code, e.message, e.offset);
    throw e;
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
    bytes: reader.bytesRead,
    ms,
  };
}

const keyText = (key: Buffer) => JSON.stringify(key.toString('latin1'));

/** The records of one key, or the error naming where it is. */
function convert(r: RdbRecord): ValueRecords {
  if (isInternalKey(r.key)) {
    throw new RdbImportError(
      'ERR_IMPORT_VALUE',
      `key ${keyText(r.key)} starts with strata's reserved prefix (at byte offset ${r.offset})`,
      r.offset,
    );
  }
  try {
    return fromRdbValue(r.value);
  } catch (e) {
    if (!(e instanceof CommandError)) throw e;
    throw new RdbImportError(
      'ERR_IMPORT_VALUE',
      `the ${r.value.type} at key ${keyText(r.key)} is not a value Redis loads (at byte offset ${r.offset})`,
      r.offset,
    );
  }
}

/** Writes a key's records (a stream's blocks, then its head); a promise only when the store waits. */
function write(store: StoreCore, r: RdbRecord, v: ValueRecords): Promise<unknown> | undefined {
  const expiresAt = r.expireAtMs ?? 0;
  if (v.blocks.length === 0) {
    // One upsert, mostly synchronous: nothing allocated unless it waits.
    const w = store.upsert(r.key, v.record, expiresAt, 0, v.type);
    return w.status === 'pending' ? w.pending : undefined;
  }
  const waits: Promise<unknown>[] = [];
  for (const b of v.blocks) {
    const w = store.upsert(b.key, b.record, 0, 0, RecordType.STREAM_BLOCK);
    if (w.status === 'pending') waits.push(w.pending);
  }
  const w = store.upsert(r.key, v.record, expiresAt, 0, v.type);
  if (w.status === 'pending') waits.push(w.pending);
  return waits.length === 0 ? undefined : Promise.all(waits);
}
