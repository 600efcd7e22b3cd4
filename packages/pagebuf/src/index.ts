// Public API of @strata/pagebuf: frames, page readers with read-ahead, page lists.
export {
  AdaptiveReadahead,
  type AdaptiveReadaheadOptions,
  type CompletionTransition,
  DEFAULT_PROBE_READS,
  type ReadaheadPhase,
  type RequestTransition,
} from './adaptive-readahead.js';
export {
  type Chunk,
  ChunkedList,
  type ChunkedListOptions,
  ChunkedPageList,
  type ChunkedPageListOptions,
  DEFAULT_LIST_CHUNK_SIZE,
  type NumericArrayConstructor,
} from './chunked-page-list.js';
export {
  FrameOwnershipError,
  IndexOutOfRangeError,
  type PagebufErrorCode,
  PageReadError,
  PoolExhaustedError,
  ReaderBusyError,
  ReaderClosedError,
} from './errors.js';
export type { Frame } from './frame.js';
export { FramePool, type FramePoolOptions, type FramePoolStats } from './frame-pool.js';
export { PageReader, type PageReaderOptions, type PageReaderStats } from './page-reader.js';
export {
  type AdaptiveModeOptions,
  checkReadMode,
  DEFAULT_MAX_READ_SIZE,
  DEFAULT_MIN_READ_SIZE,
  DEFAULT_READS_AHEAD,
  framesForMode,
  parseReadMode,
  type ReadMode,
  readMode,
  readModeName,
} from './read-mode.js';
