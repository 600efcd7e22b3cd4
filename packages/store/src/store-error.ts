import { StrataError, type StrataErrorDetails } from '@strata/io';

/**
 * Codes of @strata/store:
 * - ERR_COMMAND: the command answered an error (Redis's text in the message)
 * - ERR_WRONG_TYPE: the key holds another kind of value (Redis's WRONGTYPE)
 * - ERR_NOT_DURABLE: the write was applied in memory but could not be made
 *   durable (Redis's NOTPERSISTED reply): not acknowledged
 * - ERR_WRITES_REFUSED: writes are refused while the disk fails (MISCONF):
 *   nothing was applied
 * - ERR_TRANSACTION_ABORTED: a transaction's command was refused before it
 *   ran (EXECABORT): nothing of it was applied
 * - ERR_DECODE: a stored value is not in the database's value encoding (json)
 * - ERR_CLOSED: a call after close()
 * - ERR_INVALID_ARGUMENT: an option out of range
 * - ERR_DATA_UNACCOUNTED: a database directory holds a log but not the
 *   checkpoint its append-only file replays onto (UnaccountedDataError):
 *   nothing was opened
 * A second open of a directory throws io's DirLockedError (ERR_LOCKED).
 */
export type StoreErrorCode =
  | 'ERR_COMMAND'
  | 'ERR_WRONG_TYPE'
  | 'ERR_NOT_DURABLE'
  | 'ERR_WRITES_REFUSED'
  | 'ERR_TRANSACTION_ABORTED'
  | 'ERR_DECODE'
  | 'ERR_CLOSED'
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_DATA_UNACCOUNTED';

export class StoreError extends StrataError<StoreErrorCode> {
  constructor(code: StoreErrorCode, message: string, details?: StrataErrorDetails) {
    super(code, message, details);
  }
}

/** The code of an error reply, by its first word (Redis's error prefix). */
export function replyErrorCode(text: string): StoreErrorCode {
  if (text.startsWith('WRONGTYPE')) return 'ERR_WRONG_TYPE';
  if (text.startsWith('NOTPERSISTED')) return 'ERR_NOT_DURABLE';
  if (text.startsWith('MISCONF')) return 'ERR_WRITES_REFUSED';
  if (text.startsWith('EXECABORT')) return 'ERR_TRANSACTION_ABORTED';
  return 'ERR_COMMAND';
}

/** An error reply as a StoreError. */
export function replyError(text: string): StoreError {
  return new StoreError(replyErrorCode(text), text);
}
