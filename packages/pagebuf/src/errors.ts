import { type Address, type ByteCount, StrataError } from '@strata/io';

/**
 * A device read failed for a frame the caller asked for. It carries the
 * address of that read (and the segment, when the device reported one) so
 * that the caller can tell which part of the log is unreadable; the device's
 * own error is the `cause`.
 */
export class PageReadError extends StrataError {
  /** Bytes the failed read asked for, starting at `address`. */
  readonly length: ByteCount;

  constructor(address: Address, length: ByteCount, cause: unknown) {
    const segment = cause instanceof StrataError ? cause.segment : undefined;
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
export class PoolExhaustedError extends StrataError {
  constructor(message: string) {
    super('ERR_POOL_EXHAUSTED', message);
  }
}

/** A frame was released twice, or released to a pool that does not own it. */
export class FrameOwnershipError extends StrataError {
  constructor(message: string) {
    super('ERR_FRAME_OWNERSHIP', message);
  }
}

/** An operation on a page reader after `close()`. */
export class ReaderClosedError extends StrataError {
  constructor() {
    super('ERR_READER_CLOSED', 'page reader is closed');
  }
}

/** `next()` or `seek()` called while another call on the same reader is still running. */
export class ReaderBusyError extends StrataError {
  constructor() {
    super('ERR_READER_BUSY', 'page reader is busy: await the previous next() or seek() first');
  }
}
