import type { AppendOnlyFile } from '@strata/aof';
import type { RespServer } from '@strata/resp';
import type { AofClock } from './aof-clock.js';
import type { Databases } from './databases.js';
import { type PersistenceLogger, seconds } from './persistence-logger.js';

/** What the AOF's replay at open did (strata's aof_loaded_* fields). */
export interface AofLoaded {
  readonly applied: number;
  readonly skipped: number;
  /** Databases whose replay resumed at their commit point (the log held everything before it). */
  readonly resumed: readonly number[];
}

export interface AofReplayOptions {
  readonly resp: RespServer;
  readonly databases: Databases;
  /** The stores' clock: each command replays at the time it ran live. */
  readonly clock: AofClock;
  readonly logger: PersistenceLogger;
  /** Redis's aof-load-truncated (see AppendOnlyFile.replay). Default true. */
  readonly loadTruncated?: boolean;
}

/** Redis logs the first few replayed commands that answered an error. */
const ERRORS_LOGGED = 5;

/**
 * Replays `aof` (opened, and in use by `databases`) before anything else
 * runs: every database it names opens at the checkpoint it names (those
 * with a commit point before the replay: whether the log was read up to
 * the point decides where their commands resume), then the commands after
 * that position are applied, each at the time it ran. Redis ignores a
 * replayed command's error reply; so does this, logging the first few.
 */
export async function replayAof(
  aof: AppendOnlyFile,
  options: AofReplayOptions,
): Promise<AofLoaded> {
  const { resp, databases, clock, logger } = options;
  await databases.checkAofCheckpoints();
  for (let i = 0; i < databases.count; i++) {
    if (aof.checkpointOf(i)?.commit !== undefined) await resp.keyspace.ensure(i);
  }
  const resumeFrom = databases.resumePositions();
  let errors = 0;
  let r: Awaited<ReturnType<AppendOnlyFile['replay']>>;
  try {
    r = await aof.replay(
      (db, argv, time) => {
        clock.replayAt(time);
        return resp.execute(db, argv).catch((e: unknown) => {
          if (++errors <= ERRORS_LOGGED) {
            logger.warning(
              `AOF replay: '${argv[0]?.toString('latin1')}' failed: ${(e as Error).message}`,
            );
          }
        });
      },
      { resumeFrom, loadTruncated: options.loadTruncated ?? true },
    );
  } finally {
    clock.live();
  }
  const resumed =
    resumeFrom.size === 0
      ? ''
      : ` (DB ${[...resumeFrom.keys()].join(', ')} from ${resumeFrom.size === 1 ? 'its commit point' : 'their commit points'})`;
  logger.notice(
    `DB loaded from append only file: ${r.applied} commands applied${resumed}, ${r.skipped} already in checkpoints or the log, ` +
      `${r.files} file${r.files === 1 ? '' : 's'} (${r.bytes} bytes)` +
      (r.skippedFiles > 0
        ? ` read, ${r.skippedFiles} before the commit points not (${r.skippedBytes} bytes)`
        : '') +
      `, in ${seconds(r.ms)} seconds`,
  );
  if (errors > 0) logger.warning(`AOF replay: ${errors} commands answered an error`);
  return { applied: r.applied, skipped: r.skipped, resumed: [...resumeFrom.keys()] };
}
