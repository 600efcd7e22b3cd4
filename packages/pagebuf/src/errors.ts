import { type Address, type ByteCount, isStrataError, StrataError } from '@strata/io';

/**
 * Codes @strata/pagebuf adds (bad options still throw io's
 * `InvalidArgumentError`, a failed device read's io error is the `cause`
 * of a PageReadError):
 * - ERR_PAGE_READ: a device read for a frame failed
 * - ERR_POOL_EXHAUSTED: no free frame for a reader that needs one
 * - ERR_FRAME_OWNERSHIP: a frame released twice or to a pool not its own
 * - ERR_READER_CLOSED: an operation on a closed page reader
 * - ERR_READER_BUSY: next() or seek() while another is running
 * - ERR_INDEX_OUT_OF_RANGE: a chunked list index outside the entries it holds
 */
export type PagebufErrorCode =
  | 'ERR_PAGE_READ'
  | 'ERR_POOL_EXHAUSTED'
  | 'ERR_FRAME_OWNERSHIP'
  | 'ERR_READER_CLOSED'
  | 'ERR_READER_BUSY'
  | 'ERR_INDEX_OUT_OF_RANGE';

/**
 * A device read failed for a frame the caller asked for. It carries the
 * address of that read (and the segment, when the device reported one) so
 * that the caller can tell which part of the log is unreadable; the device's
 * own error is the `cause`.
 */
export class PageReadError extends StrataError<PagebufErrorCode> {
  /** Bytes the failed read asked for, starting at `address`. */
  readonly length: ByteCount;

  constructor(address: Address, length: ByteCount, cause: unknown) {
    const segment = isStrataError(cause) ? cause.segment : undefined;
    const why = cause instanceof Error ? cause.message : String(cause);
    super('ERR_PAGE_READ', `read of ${length} bytes at address ${address} failed: ${why}`, {
      address,
      ...(segment === undefined ? {} : { segment }),
      cause,
    });
    this.length = length;
  }
}

/** A frame pool had no free frame for a reader that needed one to make progress. */
export class PoolExhaustedError extends StrataError<PagebufErrorCode> {
  constructor(message: string) {
    super('ERR_POOL_EXHAUSTED', message);
  }
}

/** A frame was released twice, or released to a pool that does not own it. */
export class FrameOwnershipError extends StrataError<PagebufErrorCode> {
  constructor(message: string) {
    super('ERR_FRAME_OWNERSHIP', message);
  }
}

/** An operation on a page reader after `close()`. */
export class ReaderClosedError extends StrataError<PagebufErrorCode> {
  constructor() {
    super('ERR_READER_CLOSED', 'page reader is closed');
  }
}

/** `next()` or `seek()` called while another call on the same reader is still running. */
export class ReaderBusyError extends StrataError<PagebufErrorCode> {
  constructor() {
    super('ERR_READER_BUSY', 'page reader is busy: await the previous next() or seek() first');
  }
}

/**
 * An index outside `[firstIndex, length)` of a chunked list (or a bad
 * truncation point). Its own code: a list index is not a device address
 * (io's `ERR_ADDRESS_OUT_OF_RANGE`).
 */
export class IndexOutOfRangeError extends StrataError<PagebufErrorCode> {
  readonly index: number;

  constructor(message: string, index: number) {
    super('ERR_INDEX_OUT_OF_RANGE', message);
    this.index = index;
  }
}
