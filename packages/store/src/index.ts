// Public API of @strata/store: Strata as an embedded database.

export type { KeyEncoding, KeyOf, ScoredMember, SetOptions } from './commands.js';
export {
  type BatchOperation,
  Database,
  type OpenOptions,
  open,
  type ReadStatus,
  type ScanOptions,
} from './database.js';
export type { SyncPolicy } from './durability.js';
// The databases on disk and the append-only file beside them, composed as
// strata-server composes them (the server builds on these).
export {
  type MissingCheckpointPolicy,
  UnaccountedDataError,
} from './persistence/aof-checkpoint-guard.js';
export { AofClock } from './persistence/aof-clock.js';
export { aofCommandLog } from './persistence/aof-command-log.js';
export { aofRefusedCommands } from './persistence/aof-refused-commands.js';
export { type AofLoaded, type AofReplayOptions, replayAof } from './persistence/aof-replay.js';
export {
  type DatabaseStoreOptions,
  Databases,
  type DatabasesOptions,
} from './persistence/databases.js';
export { PeriodicCheckpoints, type SaveRule } from './persistence/periodic-checkpoints.js';
export { PeriodicCommits } from './persistence/periodic-commits.js';
export {
  type PersistenceLogger,
  SILENT_LOGGER,
  seconds,
} from './persistence/persistence-logger.js';
export { SaveStatus } from './persistence/save-status.js';
export { reportAofWriteStatus } from './persistence/write-error-log.js';
export { type Reply, ReplyMap } from './reply-value.js';
export { type Served, type ServeOptions, serve } from './serve.js';
export { StoreError, type StoreErrorCode } from './store-error.js';
export type { Transaction } from './transaction.js';
export type { KeyInput, ValueEncoding, ValueOf, WriteOf } from './value-encoding.js';
