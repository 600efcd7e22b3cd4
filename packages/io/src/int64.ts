/**
 * The signed 64-bit range (C's LLONG_MIN..LLONG_MAX) that every layer
 * checks integers against, in one place: stored counters (hlog's INCR),
 * the wire (protocol's parser and reply writer) and commands (resp).
 */
export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -(2n ** 63n);

/** LLONG_MAX as the nearest double (2^63), for checks that compare doubles anyway. */
export const INT64_MAX_DOUBLE = 2 ** 63;
