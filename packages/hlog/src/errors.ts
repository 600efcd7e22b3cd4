import { StrataError, type StrataErrorCode, type StrataErrorDetails } from '@strata/io';

/**
 * Codes the hybrid log adds to @strata/io's (a store operation also rejects
 * with the device's own io errors, passed on as they are):
 * - ERR_INVALID_ARGUMENT: bad option or operand (key too long, bad TTL...)
 * - ERR_STORE_CLOSED: operation after close()
 * - ERR_CORRUPT: a page, record or checkpoint failed validation
 * - ERR_NOT_INTEGER: INCR on a value that is not a 64-bit integer
 * - ERR_INCR_OVERFLOW: INCR/INCRBY whose result would leave the 64-bit range
 * - ERR_VALUE_TOO_LARGE: value over the 512 MiB limit
 * - ERR_WRONG_TYPE: a string operation on a key holding another type (WRONGTYPE)
 */
export type HlogErrorCode =
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_STORE_CLOSED'
  | 'ERR_CORRUPT'
  | 'ERR_NOT_INTEGER'
  | 'ERR_INCR_OVERFLOW'
  | 'ERR_VALUE_TOO_LARGE'
  | 'ERR_WRONG_TYPE'
  | StrataErrorCode;

/**
 * An error of the hybrid log. `C` is for a package that derives its errors
 * from this one with a wider union (scan's ScanError); hlog's are HlogErrorCode.
 */
export class HlogError<C extends string = HlogErrorCode> extends StrataError<C> {
  constructor(code: NoInfer<C>, message: string, details?: StrataErrorDetails) {
    super(code, message, details);
  }
}
