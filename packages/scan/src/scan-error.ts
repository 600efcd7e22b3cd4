import { HlogError, type HlogErrorCode } from '@strata/hlog';

/**
 * Codes the scan engine adds (a StrataError like every Strata error; it
 * derives from HlogError so that scan needs no direct @strata/io dependency):
 * - ERR_INVALID_CURSOR: a cursor that is not a non-negative safe integer
 * - ERR_UNKNOWN_TYPE: SCAN TYPE with a name no value type has (checked before any work)
 * - ERR_INVALID_ARGUMENT: bad option (COUNT < 1...)
 * - ERR_CORRUPT: a flushed page failed validation (never served)
 * and the store's own (HlogErrorCode), which a scan passes on.
 */
export type ScanErrorCode =
  | 'ERR_INVALID_CURSOR'
  | 'ERR_UNKNOWN_TYPE'
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_CORRUPT'
  | HlogErrorCode;

export class ScanError extends HlogError<ScanErrorCode> {
  constructor(
    code: ScanErrorCode,
    message: string,
    details?: { address?: number; cause?: unknown },
  ) {
    super(code, message, details);
  }
}
