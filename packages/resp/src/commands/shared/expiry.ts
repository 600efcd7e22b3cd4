import { INT64_MAX_DOUBLE } from '@strata/io';
import { eqi, parseInteger } from '../../args.js';
import { invalidExpireError, syntaxError } from '../../errors.js';

/** An expiry option of SET / GETEX: which one, and its argument. */
export const ExpiryUnit = {
  NONE: 0,
  EX: 1,
  PX: 2,
  EXAT: 3,
  PXAT: 4,
} as const;

/** The option at `argv[i]`, or NONE. */
export function expiryOption(arg: Buffer): number {
  if (eqi(arg, 'ex')) return ExpiryUnit.EX;
  if (eqi(arg, 'px')) return ExpiryUnit.PX;
  if (eqi(arg, 'exat')) return ExpiryUnit.EXAT;
  if (eqi(arg, 'pxat')) return ExpiryUnit.PXAT;
  return ExpiryUnit.NONE;
}

/**
 * Redis's getExpireMillisecondsOrReply: a positive integer, in range once
 * converted to ms and added to now; the absolute expiry in ms.
 */
export function expiryMs(arg: Buffer, unit: number, command: string, now: number): number {
  const v = parseInteger(arg);
  const seconds = unit === ExpiryUnit.EX || unit === ExpiryUnit.EXAT;
  if (v <= 0 || (seconds && v > INT64_MAX_DOUBLE / 1000)) throw invalidExpireError(command);
  let ms = seconds ? v * 1000 : v;
  if (unit === ExpiryUnit.EX || unit === ExpiryUnit.PX) {
    if (ms > INT64_MAX_DOUBLE - now) throw invalidExpireError(command);
    ms += now;
  }
  return ms;
}

/** Unwraps the next argument of an option that takes one, or syntax error. */
export function optionValue(argv: Buffer[], i: number): Buffer {
  const v = argv[i + 1];
  if (v === undefined) throw syntaxError();
  return v;
}
