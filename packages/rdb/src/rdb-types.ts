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
/** The newest RDB version whose value types this codec reads (Redis 7.2; 7.4's 12 adds hash field TTLs). */
export const RDB_MAX_READ_VERSION = 11;

/** Quicklist 2 node containers (quicklist.h). */
export const QUICKLIST_NODE_PLAIN = 1;
export const QUICKLIST_NODE_PACKED = 2;
