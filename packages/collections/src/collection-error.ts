export type CollectionErrorCode =
  | 'ERR_INVALID_ARGUMENT'
  /** A collection record's bytes do not decode. */
  | 'ERR_CORRUPT'
  /** No codec is registered for a record's type. */
  | 'ERR_NO_CODEC';

/** Errors of @strata/collections, with a stable `code`. */
export class CollectionError extends Error {
  override readonly name = 'CollectionError';

  constructor(
    readonly code: CollectionErrorCode,
    message: string,
  ) {
    super(message);
  }
}
