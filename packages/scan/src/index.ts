// Public API of this package; see README.md.

// Record field readers under the names scans have always used: hlog's
// accessors (the layout is defined there only), and hlog's record views and
// visitor type, which LogIterator takes.
export {
  copyKey,
  expiresAtOf as expiresAtAt,
  flagsOf as flagsAt,
  keyLengthOf as keyLengthAt,
  keyOffsetOf as keyOffsetAt,
  type RecordSpace as RecordBytes,
  type RecordVisitor,
  typeOf as typeAt,
  valueLengthOf as valueLengthAt,
} from '@strata/hlog';
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
  BAD_SLOT,
  type IterateOptions,
  type IterateResult,
  LogIterator,
  type LogIteratorOptions,
  type PageContext,
  type PageWalker,
  wholeLogMode,
} from './log-iterator.js';
export { type MultiGetOptions, type MultiGetResult, multiGet } from './multi-get.js';
export { PageSummaries, type SummaryQuery } from './page-summaries.js';
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
