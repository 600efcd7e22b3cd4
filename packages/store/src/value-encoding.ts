import { bytesOf } from '@strata/hlog';
import { StoreError } from './store-error.js';

/** How values are given and given back, as level's encodings: bytes, UTF-8 text, or JSON. */
export type ValueEncoding = 'buffer' | 'utf8' | 'json';

/** What a value is in JavaScript under each encoding. */
export type ValueOf<E extends ValueEncoding> = E extends 'buffer'
  ? Buffer
  : E extends 'utf8'
    ? string
    : unknown;

/** What a value read back as `V` is written as: a string or bytes under 'utf8' and 'buffer', anything under 'json'. */
export type WriteOf<V> = V extends string | Buffer ? KeyInput : V;

/** What a key, field or member is given as: a string (UTF-8) or bytes. */
export type KeyInput = string | Uint8Array;

/** `arg` as a Buffer: a string as UTF-8, bytes as they are; anything else a TypeError naming `name`. */
export function bytesArg(arg: KeyInput, name: string): Buffer {
  const u = bytesOf(arg, name);
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

export function isValueEncoding(e: unknown): e is ValueEncoding {
  return e === 'buffer' || e === 'utf8' || e === 'json';
}

/** A value in `encoding` as the bytes stored. */
export function encodeValue(encoding: ValueEncoding, value: unknown, name: string): Buffer {
  if (encoding !== 'json') return bytesArg(value as KeyInput, name);
  const text = JSON.stringify(value);
  // JSON.stringify gives undefined for undefined, functions and symbols: nothing to store.
  if (text === undefined) throw new TypeError(`${name} cannot be stored as JSON: ${typeof value}`);
  return Buffer.from(text, 'utf8');
}

/** Stored bytes as a value in `encoding`. */
export function decodeValue(encoding: ValueEncoding, bytes: Buffer): unknown {
  if (encoding === 'buffer') return bytes;
  return decodeText(encoding, bytes.toString('utf8'));
}

/**
 * The value in `bytes[start, end)`, a view of memory that changes (the
 * log's): copied out once, as a Buffer or straight into the string.
 */
export function decodeView(
  encoding: ValueEncoding,
  bytes: Buffer,
  start: number,
  end: number,
): unknown {
  if (encoding !== 'buffer') return decodeText(encoding, bytes.toString('utf8', start, end));
  const out = Buffer.allocUnsafe(end - start);
  bytes.copy(out, 0, start, end);
  return out;
}

function decodeText(encoding: 'utf8' | 'json', text: string): unknown {
  if (encoding === 'utf8') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new StoreError('ERR_DECODE', `a stored value is not JSON: ${(e as Error).message}`, {
      cause: e,
    });
  }
}
