import type { Sliced } from './sliced.js';

/**
 * What every collection (hash, set, sorted set, list) is to the object cache
 * and to the log: an in-memory structure that knows its member count, its
 * approximate memory, its serialized form and its OBJECT ENCODING name.
 *
 * A collection key is an ordinary hlog record of the collection's
 * RecordType whose value is `encode()`; `decoderFor(type)` (codecs.ts)
 * turns that value back into the structure.
 */
export interface CollectionValue {
  /** A RecordType value: HASH=1 SET=2 ZSET=3 LIST=4. */
  readonly type: number;
  /** Members: HLEN / SCARD / ZCARD / LLEN. */
  readonly size: number;
  /** Estimate of the bytes this structure holds, for the cache's budget. */
  memoryBytes(): number;
  /** The full serialized form stored in the log record. */
  encode(): Buffer;
  /** encode() as a job yielding between slices (a large write-back runs over event-loop turns). */
  encodeSliced(): Sliced<Buffer>;
  /** OBJECT ENCODING: 'listpack' | 'hashtable' | 'intset' | 'skiplist' | 'quicklist'. */
  encoding(): string;
}

/**
 * Builds a collection from its record's value. The bytes may be a view into
 * a buffer the caller reuses: a decoder copies what it keeps.
 */
export type CollectionDecoder = (bytes: Uint8Array) => CollectionValue;
