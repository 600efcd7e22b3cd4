// Public API of @strata/hlog: the hybrid log store.
export { HlogError, type HlogErrorCode } from './errors.js';
export { HashIndex, type HashIndexOptions, type HashIndexStats } from './hash-index.js';
export { HybridLog, type HybridLogOptions, type HybridLogStats } from './hybrid-log.js';
export { hashBytes, hashKey } from './key-hash.js';
export { RecordFlag, RecordType } from './record-layout.js';
export {
  type AppendContext,
  appendFunctions,
  type IncrContext,
  incrFunctions,
  MAX_VALUE_LENGTH,
  type RmwFunctions,
  type SetRangeContext,
  setRangeFunctions,
  type UpdateFunction,
} from './rmw-functions.js';
export { StoreCore, type StoreCoreOptions } from './store.js';
export * from './store-types.js';
