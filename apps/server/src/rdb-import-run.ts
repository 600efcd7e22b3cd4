import { existsSync } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Store, type StoreCore } from '@strata/hlog';
import { StrataError } from '@strata/io';
import {
  describeSize,
  type FunctionStore,
  fileFunctionStore,
  importRdb,
  type RdbImportSummary,
} from '@strata/resp';
import { type DatabaseStoreOptions, Databases } from '@strata/store';
import type { ServerConfig } from './config.js';
import { LOCK_FILE, lockServerDir } from './dir-lock.js';
import type { ServerErrorCode } from './errors.js';
import { type ProgressOutput, progressWriter } from './import-progress.js';
import { type Logger, seconds } from './logger.js';

/** The staging directory of an import into a directory without data, inside it. */
export const STAGING_DIR = 'import.tmp';
/** The function libraries of a server directory (FUNCTION DUMP's format), loaded at start. */
export const FUNCTIONS_FILE = 'functions.rdb';

/**
 * `strata-server --import-rdb FILE`: loads a Redis RDB file into `--dir`,
 * all or nothing:
 * - a new directory, or one that holds no data (nothing but a stale lock
 *   file or a staging directory left by a killed import): the keys go to
 *   stores in `<dir>/import.tmp/<n>`, which are checkpointed and then moved
 *   to `<dir>/<n>` only once the whole file has been read and its checksum
 *   checked; a bad file leaves the directory as it was;
 * - a directory that holds data only with `--import-merge yes` (not with an
 *   append-only file: its checkpoints name the databases' contents): the
 *   whole file is imported first into throwaway stores in the staging
 *   directory (the check), then loaded into the databases (a key of the
 *   file replaces a key of the same name) and checkpointed.
 * Resolves with the summary; rejects with resp's RdbImportError (the file,
 * with its byte offset) or an ImportRefused (the directory).
 */
export async function runRdbImport(
  config: Readonly<ServerConfig>,
  logger: Logger,
  progressOut: ProgressOutput,
): Promise<RdbImportSummary> {
  const dir = resolve(config.dir);
  const file = resolve(config.importRdb);
  const size = (await stat(file)).size;
  const existed = existsSync(dir);
  const lock = lockServerDir(dir);
  try {
    const held = await dataIn(dir);
    if (held.length > 0 && !config.importMerge) {
      throw new ImportRefused(
        `${dir} already holds data (${held.join(', ')}): import into a new or empty directory, ` +
          'or give --import-merge yes to load the file over what it holds',
      );
    }
    if (held.length > 0 && held.includes(config.appenddirname)) {
      throw new ImportRefused(
        `${dir} has an append-only file (${config.appenddirname}): an import cannot be merged into it`,
      );
    }
    logger.notice(
      `Importing RDB file ${file} (${describeSize(size)}) into ${dir}` +
        (held.length > 0 ? ' (merged over its data; the file is checked first)' : ''),
    );
    const summary =
      held.length > 0
        ? await mergeImport(config, dir, file, logger, progressOut)
        : await stagedImport(config, dir, file, logger, progressOut);
    logSummary(summary, logger);
    return summary;
  } catch (e) {
    lock.release();
    // A directory this import made is taken away again.
    if (!existed) await rm(dir, { recursive: true, force: true });
    throw e;
  } finally {
    lock.release();
  }
}

/** The directory cannot take the import as it is (it holds data, or an AOF). */
export class ImportRefused extends StrataError<ServerErrorCode> {
  override name = 'ImportRefused';
  constructor(message: string) {
    super('ERR_IMPORT_REFUSED', message);
  }
}

/** What in `dir` counts as data: every entry but the lock file and a stale staging directory. */
async function dataIn(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n !== LOCK_FILE && n !== STAGING_DIR).sort();
}

function storeOptions(config: Readonly<ServerConfig>): DatabaseStoreOptions {
  return {
    memory: config.memory,
    pageSize: config.pageSize,
    segmentSize: config.segmentSize,
    indexBuckets: config.indexSize / 64,
    mutableFraction: config.mutableFraction,
  };
}

/** Runs the import with a progress display. */
async function read(
  config: Readonly<ServerConfig>,
  file: string,
  open: (db: number) => Promise<StoreCore>,
  progressOut: ProgressOutput,
  existingKeys: 'refuse' | 'replace',
  functionStore: FunctionStore | null,
): Promise<RdbImportSummary> {
  const progress = progressWriter(progressOut);
  try {
    return await importRdb({
      file,
      databases: config.databases,
      open,
      onProgress: progress.report,
      progressMs: progress.intervalMs,
      existingKeys,
      functionStore,
    });
  } finally {
    progress.end();
  }
}

/** strata-server's databases under `dir`, with the import's store options. */
function databasesIn(dir: string, config: Readonly<ServerConfig>, logger: Logger): Databases {
  return new Databases({ dir, count: config.databases, store: storeOptions(config), logger });
}

/**
 * Reads the file into `databases`, each opened on its first key; `opened`
 * holds what was opened, whatever happens. The file's function libraries
 * go into `functionsDir`'s functions file (none: only checked).
 */
function readInto(
  config: Readonly<ServerConfig>,
  file: string,
  databases: Databases,
  opened: Map<number, StoreCore>,
  progressOut: ProgressOutput,
  functionsDir: string | null,
  existingKeys: 'refuse' | 'replace' = 'refuse',
): Promise<RdbImportSummary> {
  const open = async (db: number): Promise<StoreCore> => {
    const store = await databases.open(db);
    opened.set(db, store);
    return store;
  };
  const functions =
    functionsDir === null ? null : fileFunctionStore(join(functionsDir, FUNCTIONS_FILE));
  return read(config, file, open, progressOut, existingKeys, functions);
}

async function stagedImport(
  config: Readonly<ServerConfig>,
  dir: string,
  file: string,
  logger: Logger,
  progressOut: ProgressOutput,
): Promise<RdbImportSummary> {
  const staging = join(dir, STAGING_DIR);
  // Left by an import that was killed: never moved in, so never data.
  await rm(staging, { recursive: true, force: true });
  const databases = databasesIn(staging, config, logger);
  const open = new Map<number, StoreCore>();
  let summary: RdbImportSummary;
  try {
    summary = await readInto(config, file, databases, open, progressOut, staging);
    // The file is whole: each database checkpointed, closed, then moved in.
    for (const [db, store] of open) await databases.close(db, store);
    open.clear();
  } catch (e) {
    for (const store of open.values()) if (store instanceof Store) await store.abandon();
    await rm(staging, { recursive: true, force: true });
    throw e;
  }
  for (const db of summary.byDatabase.keys()) {
    await rename(join(staging, String(db)), join(dir, String(db)));
  }
  if (summary.functions > 0) await rename(join(staging, FUNCTIONS_FILE), join(dir, FUNCTIONS_FILE));
  await rm(staging, { recursive: true, force: true });
  return summary;
}

async function mergeImport(
  config: Readonly<ServerConfig>,
  dir: string,
  file: string,
  logger: Logger,
  progressOut: ProgressOutput,
): Promise<RdbImportSummary> {
  // The check: the whole file imported into throwaway stores (every value
  // built as it will be), so a bad file stops before the databases see it.
  const staging = join(dir, STAGING_DIR);
  await rm(staging, { recursive: true, force: true });
  const scratch = databasesIn(staging, config, logger);
  const opened = new Map<number, StoreCore>();
  let checked: RdbImportSummary;
  try {
    checked = await readInto(config, file, scratch, opened, progressOut, null);
  } finally {
    for (const store of opened.values()) if (store instanceof Store) await store.abandon();
    await rm(staging, { recursive: true, force: true });
  }
  logger.notice(
    `RDB file checked: ${checked.keys} keys in ${seconds(checked.ms)} seconds; loading them`,
  );
  const databases = databasesIn(dir, config, logger);
  const open = new Map<number, StoreCore>();
  try {
    // Checked above (its duplicates refused there): its keys now go over what the databases hold.
    return await readInto(config, file, databases, open, progressOut, dir, 'replace');
  } finally {
    for (const [db, store] of open) await databases.close(db, store);
  }
}

/** Redis's "Done loading RDB" line, then strata's summary. */
function logSummary(s: RdbImportSummary, logger: Logger): void {
  logger.notice(
    `RDB version ${s.rdbVersion}` +
      (s.redisVersion === null ? '' : `, written by Redis ${s.redisVersion}`),
  );
  logger.notice(
    `Done loading RDB, keys loaded: ${s.keys}, keys expired: ${s.expiredSkipped}, ` +
      `empty keys skipped: ${s.emptySkipped}.`,
  );
  const types = Object.entries(s.byType)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
  const dbs = [...s.byDatabase]
    .sort((a, b) => a[0] - b[0])
    .map(([db, n]) => `db${db} ${n}`)
    .join(', ');
  const perSecond = s.ms > 0 ? Math.round((s.keys * 1000) / s.ms) : s.keys;
  logger.notice(
    `Imported ${s.keys} keys (${types || 'none'}; ${dbs || 'no database'}) from ` +
      `${describeSize(s.bytes)} in ${seconds(s.ms)} seconds (${perSecond} keys/s)`,
  );
  if (s.functions > 0) {
    logger.notice(
      `Imported ${s.functions} function librar${s.functions === 1 ? 'y' : 'ies'} ` +
        `(${s.functionNames.join(', ')}): compiled when the server starts`,
    );
  }
}
