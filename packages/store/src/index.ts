// Public API of @strata/store: Strata as an embedded database.
export type { SyncPolicy } from './checkpoint-commits.js';
export type { KeyEncoding, KeyOf, ScoredMember, SetOptions } from './commands.js';
export {
  type BatchOperation,
  Database,
  type OpenOptions,
  open,
  type ReadStatus,
  type ScanOptions,
} from './database.js';
export { type Reply, ReplyMap } from './reply-value.js';
export { type Served, type ServeOptions, serve } from './serve.js';
export { StoreError, type StoreErrorCode } from './store-error.js';
export type { Transaction } from './transaction.js';
export type { KeyInput, ValueEncoding, ValueOf, WriteOf } from './value-encoding.js';
