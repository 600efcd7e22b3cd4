import { CommandError } from '../../errors.js';

/**
 * The HyperLogLog commands' own error replies, worded as Redis 7.0's
 * src/hyperloglog.c. errors.ts has no code of their own: a string that is no
 * HLL is a type error, a corrupt one is reported under ERR_STORE (the stored
 * value is bad, not the request).
 */

/** isHLLObjectOrReply: a string key whose value is not an HLL. */
export const notHllError = (): CommandError =>
  new CommandError('ERR_WRONGTYPE', 'WRONGTYPE Key is not a valid HyperLogLog string value.');

/** invalid_hll_err: an HLL whose sparse code does not cover exactly its registers. */
export const corruptHllError = (): CommandError =>
  new CommandError('ERR_STORE', 'INVALIDOBJ Corrupted HLL object detected');
