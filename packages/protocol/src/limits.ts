/**
 * Redis's protocol limits (src/server.h and networking.c), under Redis's
 * names, so the parser's checks read like the code they reproduce.
 */

/**
 * A line (inline command, `*N` or `$N` header) with no terminator after this
 * many buffered bytes is a protocol error: PROTO_INLINE_MAX_SIZE.
 */
export const PROTO_INLINE_MAX_SIZE = 64 * 1024;

/** Default largest bulk argument: proto-max-bulk-len, 512 MB. */
export const DEFAULT_PROTO_MAX_BULK_LEN = 512 * 1024 * 1024;

/**
 * client-query-buffer-limit: a client holding more than this in request
 * bytes not yet run (input, and the arguments of a command still arriving)
 * is disconnected, so no client makes the server grow without bound.
 */
export const DEFAULT_CLIENT_QUERY_BUFFER_LIMIT = 1024 * 1024 * 1024;

/** Largest multibulk count Redis 7+ accepts (INT_MAX). */
export const MAX_MULTIBULK_LENGTH = 2_147_483_647;

/** Most arguments a client that has not authenticated may announce. */
export const UNAUTHENTICATED_MAX_MULTIBULK_LENGTH = 10;

/** Largest bulk a client that has not authenticated may announce. */
export const UNAUTHENTICATED_MAX_BULK_LENGTH = 16 * 1024;

/** The RESP versions a connection can speak (HELLO 2 / HELLO 3). */
export type RespVersion = 2 | 3;
