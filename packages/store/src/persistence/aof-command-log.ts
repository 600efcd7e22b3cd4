import type { AppendOnlyFile } from '@strata/aof';
import type { CommandLog, Keyspace } from '@strata/resp';

/**
 * RespServer's command log, into the AOF. Each command carries its
 * database's log page after the change (`tail - 1`): a checkpoint folds the
 * log over at a page start, so the commands appended at a page below it are
 * in the checkpoint and those at or above it are not (see CheckpointMarks).
 * It also carries the store's clock (an AofClock): the time its expiry
 * checks saw, which replay runs it at. Before a turn's replies leave, the
 * AOF writes what they acknowledge (`beforeReplies`).
 */
export function aofCommandLog(aof: () => AppendOnlyFile, keyspace: () => Keyspace): CommandLog {
  return {
    append(db, argv) {
      const store = keyspace().get(db);
      if (store === undefined) return aof().append(db, argv);
      const log = store.log;
      return aof().append(db, argv, Math.floor((log.tail - 1) / log.pageSize), store.clock());
    },
    beforeReplies() {
      aof().writeNow();
    },
  };
}
