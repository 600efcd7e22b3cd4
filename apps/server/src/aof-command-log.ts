import type { AppendOnlyFile } from '@strata/aof';
import type { CommandLog, Keyspace } from '@strata/resp';

/**
 * RespServer's command log, into the AOF. Each command carries its
 * database's log page after the change (`tail - 1`): a checkpoint folds the
 * log over at a page start, so the commands appended at a page below it are
 * in the checkpoint and those at or above it are not (see CheckpointMarks).
 */
export function aofCommandLog(aof: () => AppendOnlyFile, keyspace: () => Keyspace): CommandLog {
  return {
    append(db, argv) {
      const store = keyspace().get(db);
      const log = store?.log;
      const mark = log === undefined ? undefined : Math.floor((log.tail - 1) / log.pageSize);
      return aof().append(db, argv, mark);
    },
  };
}
