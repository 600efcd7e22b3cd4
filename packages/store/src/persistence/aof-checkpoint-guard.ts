import type { AppendOnlyFile } from '@strata/aof';
import { FileCheckpointStore } from '@strata/hlog';
import { scanSegmentFiles } from '@strata/io';
import { StoreError } from '../store-error.js';

/**
 * What to do with a database the AOF cannot account for (strata-server's
 * `aof-missing-checkpoint`): `refuse` to open, or `rebuild` its index from
 * the log up to the checkpoint's end and replay the AOF on it.
 */
export type MissingCheckpointPolicy = 'refuse' | 'rebuild';

/**
 * A database directory holds a log the AOF cannot account for: the
 * checkpoint the AOF replays onto is missing, but the log is not empty.
 * Starting would replay the AOF onto an empty database and overwrite the
 * log; Redis, too, refuses to start when its AOF base file is missing.
 */
export class UnaccountedDataError extends StoreError {
  override name = 'UnaccountedDataError';

  constructor(message: string) {
    super('ERR_DATA_UNACCOUNTED', message);
  }
}

/** The log's size and end in its segment files (the file device's `log.<n>`, as io names them). */
function logExtent(dir: string, segmentSize: number): { bytes: number; end: number } {
  let bytes = 0;
  let end = 0;
  for (const [segment, size] of scanSegmentFiles(dir, 'log')) {
    bytes += size;
    if (size > 0) end = Math.max(end, segment * segmentSize + size);
  }
  return { bytes, end };
}

export interface AofCheckpointCheck {
  /** What to do with a database the AOF cannot account for (`aof-missing-checkpoint`). */
  readonly policy: MissingCheckpointPolicy;
  readonly pageSize: number;
  readonly segmentSize: number;
  /** Where a `rebuild` is announced. */
  readonly warn: (message: string) => void;
}

/**
 * Checks, before the AOF replays, that every database the AOF names either
 * has its checkpoint and the log up to that checkpoint's end, or holds no
 * log. A missing checkpoint over an empty directory is FLUSHDB's crash
 * window (the directory was removed, the new checkpoint not yet recorded):
 * that database starts empty, as the AOF says. Otherwise, with the policy
 * `refuse` (the default), throws `UnaccountedDataError` for the first
 * database that holds data the AOF cannot account for; with `rebuild`, says
 * so and lets it open: its index is rebuilt from the log up to the
 * checkpoint's end (all of it that is there), and the AOF replays on it.
 */
export async function checkAofCheckpoints(
  aof: AppendOnlyFile,
  count: number,
  pathOf: (index: number) => Promise<string>,
  check: AofCheckpointCheck,
): Promise<void> {
  for (let index = 0; index < count; index++) {
    const entry = aof.checkpointOf(index);
    if (entry === undefined) continue;
    const dir = await pathOf(index);
    const present = (await new FileCheckpointStore(dir).list()).includes(entry.id);
    const { bytes, end } = logExtent(dir, check.segmentSize);
    if (bytes === 0) continue;
    const P = check.pageSize;
    const until = entry.mark * P;
    // The last page is written up to its used bytes: the log's end rounds up to a page.
    const short = Math.ceil(end / P) * P < until;
    if (present && !short) continue;
    const problem = present
      ? `DB ${index}: the log in ${dir} ends at ${end}, before the end of checkpoint ${entry.id} ` +
        `(${until}), which the AOF replays onto: segment files are missing or cut short.`
      : `DB ${index}: checkpoint ${entry.id}, which the AOF replays onto, is missing from ${dir}, ` +
        `but the directory holds ${bytes} bytes of log.`;
    if (check.policy === 'rebuild') {
      check.warn(
        `${problem} aof-missing-checkpoint is rebuild: the index is rebuilt from the log up to ` +
          "the checkpoint's end (what of it is there), and the AOF replays on it.",
      );
      continue;
    }
    throw new UnaccountedDataError(
      `${problem} Refusing to start over data the AOF cannot account for: restore the ` +
        'checkpoint or segment files; or start with --aof-missing-checkpoint rebuild to rebuild ' +
        "this database's index from the log up to the checkpoint's end and replay the AOF on " +
        'it; or move the directory aside to start this database empty and replay the AOF onto it.',
    );
  }
}
