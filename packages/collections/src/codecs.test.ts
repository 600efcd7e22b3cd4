import { describe, expect, it } from 'vitest';
import { decoderFor, registerCodec, registerSlicedCodec, slicedDecoderFor } from './codecs.js';
import { CollectionError } from './collection-error.js';
import type { CollectionValue } from './collection-value.js';

function fakeValue(bytes: Uint8Array): CollectionValue {
  const copy = Buffer.from(bytes);
  return {
    type: 200,
    size: copy.length,
    memoryBytes: () => copy.length,
    encode: () => copy,
    *encodeSliced() {
      yield;
      return copy;
    },
    encoding: () => 'listpack',
  };
}

describe('codecs', () => {
  it('registers a decoder once per type and finds it', () => {
    expect(decoderFor(200)).toBeUndefined();
    registerCodec(200, fakeValue);
    registerCodec(200, fakeValue); // the same decoder again is harmless (module loaded twice)
    const decode = decoderFor(200);
    expect(decode?.(Buffer.from('abc')).encode().toString()).toBe('abc');
  });

  it('refuses a second decoder for a type and types that are no collection', () => {
    registerCodec(201, fakeValue);
    expect(() => registerCodec(201, (b) => fakeValue(b))).toThrow(CollectionError);
    expect(() => registerCodec(0, fakeValue)).toThrow(/not a collection record type/);
    expect(() => registerCodec(256, fakeValue)).toThrow(CollectionError);
  });

  it('derives the whole-step decoder from a sliced one, which yields between slices', () => {
    let yields = 0;
    registerSlicedCodec(202, function* (bytes) {
      for (let i = 0; i < 3; i++) {
        yields++;
        yield;
      }
      return fakeValue(bytes);
    });
    expect(decoderFor(202)?.(Buffer.from('xyz')).encode().toString()).toBe('xyz');
    expect(yields).toBe(3);
    const job = slicedDecoderFor(202)!(Buffer.from('q'));
    expect(job.next().done).toBe(false);
    expect(() =>
      registerSlicedCodec(202, function* (b) {
        yield;
        return fakeValue(b);
      }),
    ).toThrow(CollectionError);
  });
});
