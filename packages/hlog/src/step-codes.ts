import type { RecordSpace } from './record-layout.js';

// Step outcomes: final ones first, then what the async driver must do.
export const R_OK = 0;
export const R_NOT_FOUND = 1;
export const R_NOT_SET = 2;
export const R_NEED_DISK = 3;
export const R_NEED_SPACE = 4;
export const R_NEED_BLOB_READ = 5;
export const R_NEED_BLOB_WRITE = 6;
export const R_WRONG_TYPE = 7;
export const R_NEED_BLOB_RANGE = 8;

// Where `locate` found the key's newest record.
export const L_NONE = 0;
export const L_FOUND = 1;
export const L_DISK = 2;

// A key's state for the live-key count (before / after a write).
export const K_UNRESOLVED = -1;
export const K_ABSENT = 0;
export const K_PLAIN = 1;
export const K_EXPIRING = 2;

export const EXPIRY_SET = 0;
export const EXPIRY_PERSIST = 1;

/** Bytes read for a record on the device before its size is known. */
export const FIRST_READ = 512;
export const MAX_RETRIES = 1000;

/** What a pending operation learned so far, carried across its retries. */
export class Hint {
  /** The chain head and first on-device address the disk walk started from. */
  walked = false;
  entry = 0;
  start = 0;
  found = false;
  space: RecordSpace | null = null;
  address = 0;
  oldBlobAddress = -1;
  oldBlob: Buffer | null = null;
  newBlobFor: unknown = null;
  newBlobEntry = 0;
  newBlobOld = 0;
  newBlobAddress = 0;
  newBlobValue: Buffer | null = null;
  /** Bytes `[rangeFrom, rangeTo)` of the blob at `rangeAddress`, from `rangeBytes[rangeOffset]`. */
  rangeAddress = -1;
  rangeFrom = 0;
  rangeTo = 0;
  rangeBytes: Buffer | null = null;
  rangeOffset = 0;
  /**
   * The operation goes on over a damaged record on its key's chain (DEL:
   * a tombstone needs none of the damaged bytes); others fail with it.
   */
  tolerateDamage = false;
  /** The walk met a damaged record (only with `tolerateDamage`): the key's newest version is unknown. */
  damaged = false;
  /** A record the caller already holds (compaction): no read needed for it. */
  knownAddress = -1;
  knownSpace: RecordSpace | null = null;
}
