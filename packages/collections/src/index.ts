// Public API of @strata/collections; see README.md.

export {
  decoderFor,
  registerCodec,
  registerSlicedCodec,
  type SlicedDecoder,
  slicedDecoderFor,
} from './codecs.js';
export { CollectionError, type CollectionErrorCode } from './collection-error.js';
export {
  CollectionStore,
  type CollectionStoreOptions,
  type CollectionStoreStats,
} from './collection-store.js';
export type { CollectionDecoder, CollectionValue } from './collection-value.js';
export {
  DEFAULT_ENCODING_LIMITS,
  type EncodingLimits,
  encodingLimits,
  setEncodingLimits,
} from './encoding-limits.js';
export { HASH_MAX_LISTPACK_ENTRIES, HASH_MAX_LISTPACK_VALUE, HashValue } from './hash-value.js';
export {
  decodeList,
  encodeList,
  LIST_CHUNK,
  LIST_LISTPACK_BYTES,
  List,
} from './list.js';
export type { CollectionLookup, MaybePending } from './lookup.js';
export {
  intsetMember,
  SET_MAX_INTSET_ENTRIES,
  SET_MAX_LISTPACK_ENTRIES,
  SET_MAX_LISTPACK_VALUE,
  SetValue,
} from './set-value.js';
export { cursorSlot, SlotMap, slotCursor } from './slot-map.js';
export { type FieldSink, StreamBlockValue } from './stream-block.js';
export {
  CachedStreamBlocks,
  copyStreamBlocks,
  dropStreamBlocks,
  loadStreamBlocks,
  type StreamBlockKeyParts,
  streamBlockKey,
  streamBlockKeyParts,
} from './stream-blocks.js';
export { beginStreamBuild, type StreamBuild, streamBuildsInFlight } from './stream-builds.js';
export { decodeStreamSliced } from './stream-codec.js';
export { type PendingEntry, StreamConsumer, StreamGroup } from './stream-group.js';
export {
  formatStreamId,
  formatStreamIdAt,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  nextAutoStreamId,
  nextStreamId,
  previousStreamId,
  type StreamId,
  type StreamIdHalf,
  sameMs,
  seqIsMax,
  streamId,
  streamIdBig,
  streamIdFromWords,
  streamIdHalf,
  streamIdHalfAt,
  streamIdMs,
  withSeq,
} from './stream-id.js';
export { blocksToReclaim, reclaimBlocks, reclaimedBlocks } from './stream-reclaim.js';
export {
  STREAM_BLOCK_BYTES,
  STREAM_BLOCK_ENTRIES,
  STREAM_SID_END,
  type StreamBlockRef,
  type StreamBlocks,
  type StreamEntry,
  type StreamTrim,
  StreamValue,
  type StreamVisitor,
  streamSidOf,
} from './stream-value.js';
export { latin1 } from './value-format.js';
export {
  Before,
  decodeSortedSet,
  encodeSortedSet,
  SortedSet,
  ZAddFlag,
  type ZAddOutcome,
  ZSET_LISTPACK_ENTRIES,
  ZSET_LISTPACK_VALUE,
} from './zset.js';
export type { ZCursor } from './zset-tree.js';
