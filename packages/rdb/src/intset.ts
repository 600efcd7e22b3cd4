import { RdbError } from './errors.js';
import { int64Entry, type PackedEntry } from './packed-entry.js';

// Intset (src/intset.c): <encoding u32le: 2, 4 or 8> <length u32le> then
// `length` sorted little-endian signed integers of that width.

/** The members of an intset blob, in its (ascending) order. */
export function readIntset(is: Buffer, base = 0): PackedEntry[] {
  const bad = (why: string, at: number): RdbError =>
    new RdbError('ERR_RDB_CORRUPT', `invalid intset: ${why}`, base + at);
  if (is.length < 8) throw bad('shorter than its header', 0);
  const width = is.readUInt32LE(0);
  const n = is.readUInt32LE(4);
  if (width !== 2 && width !== 4 && width !== 8) throw bad(`bad encoding ${width}`, 0);
  if (8 + n * width !== is.length)
    throw bad(`${n} members of ${width} bytes do not fill ${is.length} bytes`, 4);
  const out: PackedEntry[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = 8 + i * width;
    out[i] =
      width === 2
        ? is.readInt16LE(at)
        : width === 4
          ? is.readInt32LE(at)
          : int64Entry(is.readBigInt64LE(at));
  }
  return out;
}
