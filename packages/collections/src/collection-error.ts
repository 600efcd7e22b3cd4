// StrataError through hlog's re-export: collections has no @strata/io dependency of its own.
import { StrataError } from '@strata/io';

export type CollectionErrorCode =
  | 'ERR_INVALID_ARGUMENT'
  /** A collection record's bytes do not decode. */
  | 'ERR_CORRUPT'
  /** No codec is registered for a record's type. */
  | 'ERR_NO_CODEC';

/** Errors of @strata/collections, with a stable `code`. */
export class CollectionError extends StrataError<CollectionErrorCode> {
  override readonly name = 'CollectionError';

  constructor(code: CollectionErrorCode, message: string) {
    super(code, message);
  }
}
