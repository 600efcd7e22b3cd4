import { StrataError, type StrataErrorCode, type StrataErrorDetails } from '@strata/io';

/**
 * Codes the append-only file adds to @strata/io's:
 * - ERR_AOF_CORRUPT: a record that is not a valid command, before the end of a file
 *   (a torn record at the end of the last file is cut off instead)
 * - ERR_AOF_MANIFEST: the manifest is unreadable or names a file that is missing
 * - ERR_AOF_WRITE: writing or syncing the file failed (the cause is the OS error)
 * - ERR_AOF_CLOSED: an append after close()
 */
export type AofErrorCode =
  | 'ERR_AOF_CORRUPT'
  | 'ERR_AOF_MANIFEST'
  | 'ERR_AOF_WRITE'
  | 'ERR_AOF_CLOSED'
  | StrataErrorCode;

export class AofError extends StrataError {
  constructor(code: AofErrorCode, message: string, details?: StrataErrorDetails) {
    super(code, message, details);
  }
}
