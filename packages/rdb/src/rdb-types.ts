// Value types and file opcodes, numbered as Redis's src/rdb.h.

export const RDB_TYPE = {
  STRING: 0,
  LIST: 1,
  SET: 2,
  ZSET: 3,
  HASH: 4,
  ZSET_2: 5,
  MODULE_PRE_GA: 6,
  MODULE_2: 7,
  HASH_ZIPMAP: 9,
  LIST_ZIPLIST: 10,
  SET_INTSET: 11,
  ZSET_ZIPLIST: 12,
  HASH_ZIPLIST: 13,
  LIST_QUICKLIST: 14,
  STREAM_LISTPACKS: 15,
  HASH_LISTPACK: 16,
  ZSET_LISTPACK: 17,
  LIST_QUICKLIST_2: 18,
  STREAM_LISTPACKS_2: 19,
  SET_LISTPACK: 20,
  STREAM_LISTPACKS_3: 21,
  /** Redis 7.4 release candidates: [ttl (absolute ms, 0 none), field, value] per field. */
  HASH_METADATA_PRE_GA: 22,
  /** Redis 7.4 release candidates: a listpack of field, value, ttl triples. */
  HASH_LISTPACK_EX_PRE_GA: 23,
  /** A hash with field TTLs: min expiry (ms), then [ttl relative to it + 1 (0 none), field, value]. */
  HASH_METADATA: 24,
  /** A small hash with field TTLs: min expiry (ms), then a listpack of field, value, ttl (absolute ms, 0 none). */
  HASH_LISTPACK_EX: 25,
} as const;

export const RDB_OPCODE = {
  SLOT_INFO: 244,
  FUNCTION2: 245,
  FUNCTION_PRE_GA: 246,
  MODULE_AUX: 247,
  IDLE: 248,
  FREQ: 249,
  AUX: 250,
  RESIZEDB: 251,
  EXPIRETIME_MS: 252,
  EXPIRETIME: 253,
  SELECTDB: 254,
  EOF: 255,
} as const;

/** The RDB version Redis 7.0 writes (DUMP payloads and files). */
export const RDB_VERSION_7_0 = 10;
/** The RDB version Redis 7.4 writes; its value types 22-25 hold hash field TTLs. */
export const RDB_VERSION_7_4 = 12;
/** The newest RDB version whose value types this codec reads (Redis 7.4). */
export const RDB_MAX_READ_VERSION = RDB_VERSION_7_4;

/** Quicklist 2 node containers (quicklist.h). */
export const QUICKLIST_NODE_PLAIN = 1;
export const QUICKLIST_NODE_PACKED = 2;
