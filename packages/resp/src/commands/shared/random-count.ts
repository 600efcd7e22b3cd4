import { parseInt64 } from '../../args.js';
import { CommandError } from '../../errors.js';

const LONG_MIN = -(2n ** 63n);

/**
 * The count of SRANDMEMBER, HRANDFIELD and ZRANDMEMBER: an integer in
 * [-LONG_MAX, LONG_MAX] (Redis 7's getRangeLongFromObjectOrReply), so the
 * one 64-bit value outside it, whose negation has no 64-bit form, is
 * refused in Redis's words instead of overflowing a reply length. The count
 * is exact (a bigint when it is past 2^53) until that check.
 */
export function parseRandomCount(arg: Uint8Array): number {
  const v = parseInt64(arg);
  if (v === LONG_MIN) {
    throw new CommandError(
      'ERR_OUT_OF_RANGE',
      'ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807',
    );
  }
  return Number(v);
}
