import { StrataError, type StrataErrorCode, type StrataErrorDetails } from '@strata/io';

/**
 * Codes the hybrid log adds to @strata/io's:
 * - ERR_INVALID_ARGUMENT: bad option or operand (key too long, bad TTL...)
 * - ERR_STORE_CLOSED: operation after close()
 * - ERR_CORRUPT: a page, record or checkpoint failed validation
 * - ERR_NOT_INTEGER: INCR on a value that is not a 64-bit integer, or overflow
 * - ERR_VALUE_TOO_LARGE: value over the 512 MiB limit
 * - ERR_WRONG_TYPE: a string operation on a key holding another type (WRONGTYPE)
 */
export type HlogErrorCode =
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_STORE_CLOSED'
  | 'ERR_CORRUPT'
  | 'ERR_NOT_INTEGER'
  | 'ERR_VALUE_TOO_LARGE'
  | 'ERR_WRONG_TYPE'
  | StrataErrorCode;

export class HlogError extends StrataError {
  constructor(code: HlogErrorCode, message: string, details?: StrataErrorDetails) {
    super(code, message, details);
  }
}
