import { StrataError } from '@strata/io';
import type { RdbErrorCode } from '@strata/rdb';

/**
 * Codes an RDB file import throws: @strata/rdb's, for the file's bytes
 * (truncated, corrupt, a module type, a bad checksum...), and two of its own:
 * - ERR_IMPORT_VALUE: a key whose value decodes but is not one Redis would load
 *   (a PEL entry without its consumer) or that strata cannot hold (an internal key name),
 *   or a function library without a valid `#!lua name=` line
 * - ERR_IMPORT_DB_RANGE: a key in a database number the target does not have
 * - ERR_IMPORT_DUPLICATE: a key the file holds twice in one database (Redis's
 *   loader stops there: "Duplicated key found in RDB file"), or a function
 *   library twice
 */
export type RdbImportErrorCode =
  | RdbErrorCode
  | 'ERR_IMPORT_VALUE'
  | 'ERR_IMPORT_DB_RANGE'
  | 'ERR_IMPORT_DUPLICATE';

/** Why an import stopped, and the byte offset in the file where it did. */
export class RdbImportError extends StrataError<RdbImportErrorCode> {
  override name = 'RdbImportError';
  readonly offset: number;

  constructor(code: RdbImportErrorCode, message: string, offset: number) {
    super(code, message, { address: offset });
    this.offset = offset;
  }
}
