// Public API of @strata/collections; see README.md.

export { decoderFor, registerCodec } from './codecs.js';
export { CollectionError, type CollectionErrorCode } from './collection-error.js';
export type { CollectionDecoder, CollectionValue } from './collection-value.js';
export type { CollectionLookup, MaybePending } from './lookup.js';
