import { StrataError, type StrataErrorCode, type StrataErrorDetails } from '@strata/io';

/**
 * Codes the hybrid log adds to @strata/io's (a store operation also rejects
 * with the device's own io errors, passed on as they are):
 * - ERR_INVALID_ARGUMENT: bad option or operand (key too long, bad TTL...)
 * - ERR_STORE_CLOSED: operation after close()
 * - ERR_CORRUPT: a page, record or checkpoint failed validation
 * - ERR_CORRUPT_RECORD: a record read from the device for a key failed
 *   verification (its checksum, or no record where the chain points: zeros,
 *   a truncated file); a `CorruptRecordError`, naming the key, the address
 *   and the damage. Never served; the key can still be deleted or overwritten.
 * - ERR_NOT_INTEGER: INCR on a value that is not a 64-bit integer
 * - ERR_INCR_OVERFLOW: INCR/INCRBY whose result would leave the 64-bit range
 * - ERR_VALUE_TOO_LARGE: value over the 512 MiB limit
 * - ERR_WRONG_TYPE: a string operation on a key holding another type (WRONGTYPE)
 * - ERR_PAGE_SIZE_MISMATCH: the log was written with another page size than
 *   the one it is opened with (the message names both)
 */
export type HlogErrorCode =
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_STORE_CLOSED'
  | 'ERR_CORRUPT'
  | 'ERR_CORRUPT_RECORD'
  | 'ERR_NOT_INTEGER'
  | 'ERR_INCR_OVERFLOW'
  | 'ERR_VALUE_TOO_LARGE'
  | 'ERR_WRONG_TYPE'
  | 'ERR_PAGE_SIZE_MISMATCH'
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

/** What was wrong with a record read from the device (the text ends the error reply). */
export const RecordDamage = {
  CHECKSUM_MISMATCH: 'checksum mismatch',
  /** No record where the chain points: zeros (a hole, a truncated segment) or a cleared flag. */
  NOT_A_RECORD: 'no record there',
  BAD_LENGTH: 'bad record length',
  /** The device ends before the record does (a truncated last segment). */
  SHORT_READ: 'the log ends inside it',
  /** A record written before records had checksums, whose page's checksum fails. */
  PAGE_CHECKSUM_MISMATCH: 'page checksum mismatch',
  /** The record's value is a blob (a large value) whose checksum fails, or that is cut short. */
  BLOB_DAMAGED: 'its value (a blob) is damaged',
} as const;

/** One of RecordDamage's values. */
export type RecordDamage = (typeof RecordDamage)[keyof typeof RecordDamage];

/**
 * A record on `key`'s chain, read from the device at `address`, failed
 * verification (`damage`). The record may hold another key of the same
 * hash bucket: then it is `key`'s chain that is cut, and its value unknown.
 * Code ERR_CORRUPT_RECORD.
 */
export class CorruptRecordError extends HlogError {
  readonly key: Buffer;
  readonly damage: RecordDamage;
  readonly recordAddress: number;

  /** `detail`: what the check found, where the damage says too little (a blob's chunk). */
  constructor(key: Uint8Array, address: number, damage: RecordDamage, detail?: string) {
    super(
      'ERR_CORRUPT_RECORD',
      `corrupt record for key '${Buffer.from(key).toString('latin1')}' at log address ${address}: ${damage}${detail === undefined ? '' : ` (${detail})`}`,
      { address },
    );
    this.key = Buffer.from(key);
    this.damage = damage;
    this.recordAddress = address;
  }
}
