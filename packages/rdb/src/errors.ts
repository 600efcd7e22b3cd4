import { StrataError } from '@strata/io';

/**
 * Codes @strata/rdb throws (one class, closed codes):
 * - ERR_RDB_TRUNCATED: the input ended inside a value or record
 * - ERR_RDB_CORRUPT: bytes that no valid encoding produces (bad length, bad listpack, bad LZF)
 * - ERR_RDB_UNSUPPORTED: a value type or opcode this codec does not read (module types, 7.4 hash TTLs)
 * - ERR_RDB_BAD_HEADER: an RDB file that does not start with `REDIS` and a version number
 * - ERR_RDB_VERSION: an RDB version newer than the reader supports
 * - ERR_RDB_CHECKSUM: the CRC-64 trailer does not match
 * - ERR_RDB_TOO_LARGE: one record of an RDB file needs more bytes than the reader's `maxRecordBytes`
 * - ERR_DUMP_PAYLOAD: a DUMP payload with a bad version or checksum; the server
 *   answers it with `ERR DUMP payload version or checksum are wrong`
 */
export type RdbErrorCode =
  | 'ERR_RDB_TRUNCATED'
  | 'ERR_RDB_CORRUPT'
  | 'ERR_RDB_UNSUPPORTED'
  | 'ERR_RDB_BAD_HEADER'
  | 'ERR_RDB_VERSION'
  | 'ERR_RDB_CHECKSUM'
  | 'ERR_RDB_TOO_LARGE'
  | 'ERR_DUMP_PAYLOAD';

/**
 * The one error of @strata/rdb. `offset` is the byte offset in the input (the
 * payload, or the whole file for the file reader) where the problem was found;
 * StrataError's `address` holds the same number.
 */
export class RdbError extends StrataError<RdbErrorCode> {
  readonly offset: number;

  constructor(code: RdbErrorCode, message: string, offset: number) {
    super(code, `${message} (at byte offset ${offset})`, { address: offset });
    this.offset = offset;
  }
}
