// Public API of this package; see README.md.
export {
  compileGlob,
  GLOB_MAX_STAR_NESTING,
  type GlobMatcher,
  type GlobOptions,
} from './glob-matcher.js';
export {
  KeyScanner,
  type KeyScannerOptions,
  type ScanOptions,
  type ScanResult,
  VISITS_PER_COUNT,
} from './key-scanner.js';
export { Liveness, LivenessChecker, type Verdict } from './liveness.js';
export {
  type IterateOptions,
  type IterateResult,
  LogIterator,
  type LogIteratorOptions,
  type PageContext,
  type PageWalker,
  type RecordVisitor,
  wholeLogMode,
} from './log-iterator.js';
export { type MultiGetOptions, type MultiGetResult, multiGet } from './multi-get.js';
export { PageSummaries, type SummaryQuery } from './page-summaries.js';
export {
  copyKey,
  expiresAtAt,
  flagsAt,
  keyLengthAt,
  keyOffsetAt,
  type RecordBytes,
  typeAt,
  valueLengthAt,
} from './record-bytes.js';
export {
  acceptsRecord,
  compileFilter,
  type FilterOptions,
  type RecordFilter,
  type TypeFilter,
} from './record-filter.js';
export { ScanError, type ScanErrorCode } from './scan-error.js';
export {
  buildSummaries,
  countKeys,
  forEachLive,
  type KeyspaceInfo,
  keyspaceInfo,
  listKeys,
  type WholeLogOptions,
  type WholeLogStats,
} from './whole-log.js';
