/**
 * One element of a listpack, ziplist or intset: the bytes of a string
 * element, or an integer element. An integer outside the safe range of a JS
 * number is given as its decimal bytes (Redis treats the two forms alike).
 */
export type PackedEntry = Buffer | number;

/** An entry as bytes (integers as their decimal form, as Redis replies with them). */
export function entryBytes(e: PackedEntry): Buffer {
  return typeof e === 'number' ? Buffer.from(String(e)) : e;
}

/** An int64 read from bytes, as a number when that is exact. */
export function int64Entry(v: bigint): PackedEntry {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(v)
    : Buffer.from(v.toString());
}
