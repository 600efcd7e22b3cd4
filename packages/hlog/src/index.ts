// Public API of @strata/hlog: the hybrid log store.

export {
  AccessClock,
  type AccessPolicy,
  LFU_INIT_VAL,
  LRU_CLOCK_MAX,
} from './access-clock.js';
export {
  type CheckpointMeta,
  type CheckpointStore,
  FileCheckpointStore,
  MemoryCheckpointStore,
} from './checkpoint-store.js';
export { CorruptRecordError, HlogError, type HlogErrorCode, RecordDamage } from './errors.js';
export { foldOverOnOwnTurn } from './fold-over-turn.js';
export {
  HashIndex,
  type HashIndexOptions,
  type HashIndexParts,
  type HashIndexStats,
} from './hash-index.js';
export {
  type CompactionResult,
  type ExpiryRate,
  type Logger,
  type RecoveryInfo,
  Store,
  type StoreOptions,
  type StoreStats,
} from './hlog-store.js';
export { HybridLog, type HybridLogOptions, type HybridLogStats } from './hybrid-log.js';
export type { IndexSnapshot } from './index-snapshot.js';
export { INTERNAL_KEY_PREFIX, internalKey, isInternalKey } from './internal-keys.js';
export type { ExpiringTtl } from './key-count.js';
export { hashBytes, hashKey } from './key-hash.js';
export { LogPage, LogPages, type LogPagesOptions } from './log-pages.js';
export {
  type LogScanOptions,
  type LogScanResult,
  type RecordVisitor,
  type SkippedPages,
  scanLog,
  TORN_TAIL_PAGES,
} from './log-scan.js';
// The page and record layout (for readers of raw pages: @strata/scan).
export {
  checkPageHeader,
  PAGE_HEADER_SIZE,
  PAGE_MAGIC,
  PageCheck,
  PageFlag,
  pageChecksum,
  pageChecksumMatches,
  pageChecksumOf,
  pageEpochOf,
  pageFlagsOf,
  pageUsedOf,
  sealPageChecksum,
} from './page-header.js';
export {
  crc32Range,
  RecordCheck,
  sealRecordChecksums,
  verifyRecord,
} from './record-checksum.js';
export { DamageLog } from './record-damage.js';
export {
  align8,
  blobAddressOf,
  bytesEqual,
  checksumOffsetOf,
  copyKey,
  createRecordSpace,
  EXPIRY_SIZE,
  expiresAtOf,
  flagsOf,
  keyEquals,
  keyLengthOf,
  keyOffsetOf,
  OVERFLOW_POINTER_SIZE,
  previousAddress,
  RECORD_CHECKSUM_SIZE,
  RECORD_EXPIRY_OFFSET,
  RECORD_FLAGS_OFFSET,
  RECORD_HEADER_SIZE,
  RECORD_KEY_LENGTH_OFFSET,
  RECORD_TYPE_OFFSET,
  RECORD_VALUE_LENGTH_OFFSET,
  RecordFlag,
  type RecordSpace,
  RecordType,
  recordSize,
  slotSize,
  slotSizeFrom,
  spaceOverBytes,
  typeOf,
  usedSize,
  valueLengthOf,
  valueOffsetOf,
  writeRecordHeader,
} from './record-layout.js';
export {
  ANY_RECORD_TYPE,
  type AppendContext,
  appendFunctions,
  type IncrContext,
  incrFunctions,
  MAX_VALUE_LENGTH,
  RMW_WRONG_TYPE,
  type RmwFunctions,
  type SetRangeContext,
  setRangeFunctions,
  type UpdateFunction,
} from './rmw-functions.js';
export { type Bytes, bytesOf, StoreCore, type StoreCoreOptions } from './store.js';
export * from './store-types.js';
export { checkpointPageSize, pageSizeMismatch, probePageSize } from './written-page-size.js';
