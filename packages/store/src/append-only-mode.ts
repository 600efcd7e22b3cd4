import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppendOnlyFile, manifestName } from '@strata/aof';
import { RespServer } from '@strata/resp';
import type { Durability, SyncPolicy } from './durability.js';
import { AofClock } from './persistence/aof-clock.js';
import { aofCommandLog } from './persistence/aof-command-log.js';
import { aofRefusedCommands } from './persistence/aof-refused-commands.js';
import { replayAof } from './persistence/aof-replay.js';
import { type DatabaseStoreOptions, Databases } from './persistence/databases.js';
import { PeriodicCheckpoints } from './persistence/periodic-checkpoints.js';
import { PeriodicCommits } from './persistence/periodic-commits.js';
import type { PersistenceLogger } from './persistence/persistence-logger.js';
import { reportAofWriteStatus } from './persistence/write-error-log.js';

/** strata-server's `appenddirname` and `appendfilename` defaults: one AOF for both. */
export const AOF_DIR = 'appendonlydir';
const AOF_FILE = 'appendonly.aof';

/** How many databases strata-server has by default (SELECT 0-15): the AOF names them by index. */
const DATABASES = 16;

/** Whether `root` holds an append-only file (its manifest): strata-server's, or an earlier open's. */
export function hasAppendOnlyFile(root: string): boolean {
  return existsSync(join(root, AOF_DIR, manifestName(AOF_FILE)));
}

export interface AppendOnlyDatabases {
  readonly server: RespServer;
  readonly durability: Durability;
}

/**
 * The databases with an append-only file, composed as strata-server
 * composes them with `appendonly yes`: the same Databases (each opens at
 * the checkpoint the AOF names, its log read up to a commit point), the
 * AOF replayed before anything else runs, every write appended (synced as
 * `sync` says: Redis's appendfsync), commit points each second, a
 * checkpoint every `everyMs` that cuts the AOF, and the commands that
 * would span two databases' AOF positions refused. So a directory strata-
 * server wrote with its AOF opens here with the AOF's tail replayed, and
 * one written here opens in strata-server with `--appendonly yes`.
 */
export interface AppendOnlyOptions {
  /** The AOF's fsync policy. */
  readonly sync: SyncPolicy;
  /** A checkpoint round this often (whole seconds), for the databases that changed; 0: none. */
  readonly checkpointEveryMs: number;
  /** Commit points this often; 0: none. */
  readonly commitEveryMs: number;
  readonly logger: PersistenceLogger;
}

export async function openAppendOnly(
  root: string,
  store: DatabaseStoreOptions,
  options: AppendOnlyOptions,
): Promise<AppendOnlyDatabases> {
  const { sync, checkpointEveryMs: everyMs, logger } = options;
  const clock = new AofClock();
  const databases = new Databases({
    dir: root,
    count: DATABASES,
    store,
    logger,
    aofClock: clock.now,
  });
  const resp: RespServer = new RespServer({
    databases,
    commandLog: aofCommandLog(
      () => aof,
      () => resp.keyspace,
    ),
    commands: aofRefusedCommands(() => true),
  });
  const aof = await AppendOnlyFile.open({
    dir: join(root, AOF_DIR),
    filename: AOF_FILE,
    policy: sync,
    logger: { warn: (m) => logger.warning(m) },
    // Writes are refused (MISCONF) while the AOF cannot be written, as strata-server does.
    onWriteStatus: (e) =>
      reportAofWriteStatus(e, aof.currentPath, logger, (m) => resp.setWriteError(m)),
  });
  databases.useAof(aof);
  try {
    await replayAof(aof, { resp, databases, clock, logger });
    await resp.start();
  } catch (e) {
    // A database replayed in part is not checkpointed on the way out: the AOF still has it all.
    databases.checkpointOnClose = false;
    await resp.close().catch(() => undefined);
    await aof.close().catch(() => undefined);
    throw e;
  }
  const commits = new PeriodicCommits(resp.keyspace, databases, options.commitEveryMs, () => true);
  // A checkpoint round each `everyMs` (whole seconds: the rounds tick each second) when anything changed.
  const checkpoints = new PeriodicCheckpoints(
    resp.keyspace,
    databases,
    everyMs > 0 ? [{ seconds: Math.max(1, Math.round(everyMs / 1000)), changes: 1 }] : [],
    logger,
  );
  commits.start();
  checkpoints.start();
  return {
    server: resp,
    durability: {
      // SAVE (Keyspace.saveAll, as the log-commit mode's): every open database; a failure rejects.
      checkpoint: () => resp.keyspace.saveAll(),
      async stop() {
        await checkpoints.stop();
        await commits.stop();
      },
      closed: () => aof.close(),
    },
  };
}
