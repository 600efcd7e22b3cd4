import type { ServerState } from '../../server/server-state.js';
import { readConfig } from '../server/config.js';

/**
 * What the HyperLogLog commands share that is not the encoding: their
 * COMMAND group, and the sparse size limit.
 */

/** COMMAND's group and ACL category of the HyperLogLog commands (spread into each definition). */
export const hyperloglogGroup = { acl: ['hyperloglog'], group: 'hyperloglog' } as const;

/** Redis 7.0's default of `hll-sparse-max-bytes`, as in server/config-parameters.ts. */
export const HLL_SPARSE_MAX_BYTES = 3000;

/**
 * `hll-sparse-max-bytes` as CONFIG holds it now: a sparse value that would
 * grow past this many bytes, header included, becomes dense. Read once per
 * command, as Redis reads server.hll_sparse_max_bytes.
 */
export function sparseMaxBytes(s: ServerState): number {
  // CONFIG prints it in bytes (a `1kb` SET reads back as 1024).
  const n = Number(readConfig(s, 'hll-sparse-max-bytes'));
  return Number.isFinite(n) ? n : HLL_SPARSE_MAX_BYTES;
}
