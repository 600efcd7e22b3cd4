// Public API of @strata/rdb: Redis's RDB value encodings, for DUMP/RESTORE
// payloads and for importing RDB files. No dependency beyond @strata/io's
// error base.
export { ByteReader } from './byte-reader.js';
export { ByteWriter } from './byte-writer.js';
export { Crc64, crc64 } from './crc64.js';
export {
  type EncodeDumpOptions,
  encodeDumpPayload,
  type ParseDumpOptions,
  type ParsedDump,
  parseDumpPayload,
} from './dump-payload.js';
export { RdbError, type RdbErrorCode } from './errors.js';
export { readIntset } from './intset.js';
export { listpackElement, listpackOf, readListpack, writeListpack } from './listpack.js';
export { lzfCompress, lzfDecompress } from './lzf.js';
export { entryBytes, type PackedEntry } from './packed-entry.js';
export { openRdbFile, type RdbFileOptions, RdbFileReader, type RdbRecord } from './rdb-file.js';
export {
  RDB_MAX_READ_VERSION,
  RDB_OPCODE,
  RDB_TYPE,
  RDB_VERSION_7_0,
  RDB_VERSION_7_4,
} from './rdb-types.js';
export { scoreString } from './score-string.js';
export {
  type StreamConsumer,
  type StreamEntry,
  type StreamGroup,
  type StreamId,
  type StreamPendingEntry,
  type StreamValue,
  streamIdString,
} from './stream-decode.js';
export { type EncodableStream, encodeStream } from './stream-encode.js';
export { decodeValue, FIELD_EXPIRY_MAX, type RdbValue, type RdbValueType } from './value-decode.js';
export {
  type EncodableValue,
  type EncodeOptions,
  encodeValue,
  soonestFieldExpiry,
} from './value-encode.js';
export { readZiplist } from './ziplist.js';
export { readZipmap } from './zipmap.js';
