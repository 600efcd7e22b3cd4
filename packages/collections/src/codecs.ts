import { CollectionError } from './collection-error.js';
import type { CollectionDecoder, CollectionValue } from './collection-value.js';
import { runWhole, type Sliced } from './sliced.js';

/** A decoder that yields between slices (see sliced.ts), for records too large to decode in one step. */
export type SlicedDecoder = (bytes: Uint8Array) => Sliced<CollectionValue>;

/**
 * Decoders by record type. Each collection module registers its own when it
 * is loaded (hash and set here, sorted set and list beside them), so the
 * object cache can turn any collection record back into its structure
 * without knowing the types.
 */
const decoders: (CollectionDecoder | undefined)[] = [];
const slicedDecoders: (SlicedDecoder | undefined)[] = [];

/** Registers the decoder of records of `type` (a RecordType); once per type. */
export function registerCodec(type: number, decoder: CollectionDecoder): void {
  if (!Number.isInteger(type) || type <= 0 || type > 255) {
    throw new CollectionError('ERR_INVALID_ARGUMENT', `not a collection record type: ${type}`);
  }
  const known = decoders[type];
  if (known !== undefined && known !== decoder) {
    throw new CollectionError(
      'ERR_INVALID_ARGUMENT',
      `a codec for type ${type} is registered already`,
    );
  }
  decoders[type] = decoder;
}

/** The decoder of `type`, or undefined when no collection module registered one. */
export function decoderFor(type: number): CollectionDecoder | undefined {
  return decoders[type];
}

/** Registers a sliced decoder for `type`, and the whole-step decoder made from it. */
export function registerSlicedCodec(type: number, sliced: SlicedDecoder): void {
  const known = slicedDecoders[type];
  if (known !== undefined && known !== sliced) {
    throw new CollectionError(
      'ERR_INVALID_ARGUMENT',
      `a codec for type ${type} is registered already`,
    );
  }
  registerCodec(type, known === undefined ? (bytes) => runWhole(sliced(bytes)) : decoders[type]!);
  slicedDecoders[type] = sliced;
}

/** The sliced decoder of `type`, or undefined (then only the whole-step one exists). */
export function slicedDecoderFor(type: number): SlicedDecoder | undefined {
  return slicedDecoders[type];
}
