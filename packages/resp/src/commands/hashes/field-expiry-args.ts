import { eqi, integerOrNaN, parseInteger } from '../../args.js';
import { CommandError, invalidExpireError } from '../../errors.js';

/**
 * The arguments of the hash field-expiry commands (Redis 8's t_hash.c):
 * expiry times and the `FIELDS numfields field...` block, with Redis's
 * wording for each refusal.
 */

/** Redis's HFE_MAX_ABS_TIME_MSEC: EB_EXPIRE_TIME_MAX (2^48 - 1) >> 2. */
export const MAX_FIELD_EXPIRE_MS = 70368744177663;

export type TimeUnit = 'seconds' | 'ms';

/**
 * An expiry argument as an absolute unix time in ms (Redis's
 * parseExpireTime): `base` is the command's time for relative forms, 0 for
 * the *AT forms. `command` names the command in the range error.
 */
export function parseExpireTime(
  arg: Buffer,
  unit: TimeUnit,
  base: number,
  command: string,
): number {
  let v = parseInteger(arg);
  if (v < 0) throw new CommandError('ERR_INVALID_EXPIRE', 'ERR invalid expire time, must be >= 0');
  if (unit === 'seconds') {
    if (v > Math.floor(MAX_FIELD_EXPIRE_MS / 1000)) throw invalidExpireError(command);
    v *= 1000;
  }
  if (v > MAX_FIELD_EXPIRE_MS - base) throw invalidExpireError(command);
  return v + base;
}

export const fieldsMissingError = () =>
  new CommandError(
    'ERR_FIELDS',
    'ERR Mandatory argument FIELDS is missing or not at the right position',
  );
export const numFieldsMismatchError = () =>
  new CommandError(
    'ERR_FIELDS',
    'ERR The `numfields` parameter must match the number of arguments',
  );

/** The message when numfields is no integer >= 1 (HEXPIRE's own, the others'). */
export const NUMFIELDS_EXPIRE = 'ERR Parameter `numFields` should be greater than 0';
export const NUMFIELDS_POSITIVE = 'ERR Number of fields must be a positive integer';

/**
 * The `FIELDS numfields field...` block whose FIELDS word is at `at`, to the
 * end of argv: the index of its first field. `numfieldsMessage` is the
 * refusal of a count that is not an integer from 1 up.
 */
export function parseFieldsBlock(
  argv: readonly Buffer[],
  at: number,
  numfieldsMessage: string,
): number {
  if (at >= argv.length || !eqi(argv[at]!, 'fields')) throw fieldsMissingError();
  const n = at + 1 < argv.length ? integerOrNaN(argv[at + 1]!) : Number.NaN;
  if (!(n >= 1)) throw new CommandError('ERR_FIELDS', numfieldsMessage);
  if (n !== argv.length - at - 2) throw numFieldsMismatchError();
  return at + 2;
}
