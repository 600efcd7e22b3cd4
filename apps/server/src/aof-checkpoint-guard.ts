import type { AppendOnlyFile } from '@strata/aof';
import { FileCheckpointStore } from '@strata/hlog';
import { StrataError, scanSegmentFiles } from '@strata/io';
import type { ServerErrorCode } from './errors.js';

/**
 * A database directory holds a log the AOF cannot account for: the
 * checkpoint the AOF replays onto is missing, but the log is not empty.
 * Starting would replay the AOF onto an empty database and overwrite the
 * log; Redis, too, refuses to start when its AOF base file is missing.
 */
export class UnaccountedDataError extends StrataError<ServerErrorCode> {
  override name = 'UnaccountedDataError';

  constructor(message: string) {
    super('ERR_DATA_UNACCOUNTED', message);
  }
}

/** Bytes in the log's segment files (the file device's `log.<n>`, as io names them). */
function logBytes(dir: string): number {
  let bytes = 0;
  for (const size of scanSegmentFiles(dir, 'log').values()) bytes += size;
  return bytes;
}

/**
 * Checks, before the AOF replays, that every database the AOF names either
 * has its checkpoint or holds no log. A missing checkpoint over an empty
 * directory is FLUSHDB's crash window (the directory was removed, the new
 * checkpoint not yet recorded): that database starts empty, as the AOF says.
 * Throws `UnaccountedDataError` for the first database that holds data
 * without its checkpoint.
 */
export async function checkAofCheckpoints(
  aof: AppendOnlyFile,
  count: number,
  pathOf: (index: number) => Promise<string>,
): Promise<void> {
  for (let index = 0; index < count; index++) {
    const entry = aof.checkpointOf(index);
    if (entry === undefined) continue;
    const dir = await pathOf(index);
    const present = (await new FileCheckpointStore(dir).list()).includes(entry.id);
    if (present) continue;
    const bytes = logBytes(dir);
    if (bytes === 0) continue;
    throw new UnaccountedDataError(
      `DB ${index}: checkpoint ${entry.id}, which the AOF replays onto, is missing from ${dir}, ` +
        `but the directory holds ${bytes} bytes of log. Refusing to start over data the AOF ` +
        'cannot account for: restore the checkpoint files, or move the directory aside to ' +
        'start this database empty and replay the AOF onto it.',
    );
  }
}
