import { crc32 } from 'node:zlib';
import { PAGE_HEADER_SIZE, pageUsedOf } from './page-header.js';
import {
  checksumOffsetOf,
  flagsOf,
  RECORD_HEADER_SIZE,
  RecordFlag,
  type RecordSpace,
  slotSize,
  usedSize,
} from './record-layout.js';

/**
 * The per-record checksum (record-layout.ts's trailer): crc32 (zlib's
 * polynomial, so `crc32` of node:zlib gives the same value) of the record's
 * bytes from its header to its value's end.
 *
 * Why per record and not the page's: a point read (GET of a key on the
 * device) reads only the record's bytes, a few hundred of the page's 1 MiB;
 * the page checksum could only be checked by reading the whole page.
 *
 * Short ranges are summed here in JavaScript, on the bytes in place: the
 * native crc32 takes a whole Uint8Array, and a view per record would be an
 * allocation per record (a page of small records holds tens of thousands).
 * Long ones go to the native call, whose fixed cost is then small.
 */

/** Bytes from which a range is summed by the native crc32 (a view made for it). */
const NATIVE_FROM = 256;

const TABLE = makeTables();

function makeTables(): Int32Array {
  // Slicing-by-4: four 256-entry tables, one after the other. Int32, not
  // Uint32: entries above 2^31 would leave V8's small integers (measured
  // ~20% slower).
  const t = new Int32Array(4 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 4; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

/** crc32 of `bytes[from, to)`, as `crc32(bytes.subarray(from, to))` of node:zlib. */
export function crc32Range(bytes: Uint8Array, from: number, to: number): number {
  if (to - from >= NATIVE_FROM) return crc32(bytes.subarray(from, to));
  const t = TABLE;
  let c = ~0;
  let i = from;
  const end4 = to - 3;
  for (; i < end4; i += 4) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    c =
      t[768 + (c & 0xff)]! ^
      t[512 + ((c >>> 8) & 0xff)]! ^
      t[256 + ((c >>> 16) & 0xff)]! ^
      t[c >>> 24]!;
  }
  for (; i < to; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function readU32(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0
  );
}

function writeU32(bytes: Uint8Array, at: number, v: number): void {
  bytes[at] = v & 0xff;
  bytes[at + 1] = (v >>> 8) & 0xff;
  bytes[at + 2] = (v >>> 16) & 0xff;
  bytes[at + 3] = v >>> 24;
}

/**
 * Stores the checksum of every record with CHECKSUM on the records page at
 * `s[base]` (its header's used bytes current). The log calls this when the
 * page becomes read-only, before the page's own checksum: from then on the
 * page never changes.
 */
export function sealRecordChecksums(s: RecordSpace, base: number): void {
  const end = base + pageUsedOf(s, base);
  const bytes = s.bytes;
  let off = base + PAGE_HEADER_SIZE;
  while (off + RECORD_HEADER_SIZE <= end) {
    const size = slotSize(s, off);
    if ((flagsOf(s, off) & RecordFlag.CHECKSUM) !== 0) {
      const at = checksumOffsetOf(s, off);
      if (at + 4 > end) break;
      writeU32(bytes, at, crc32Range(bytes, off, at));
    }
    // A slot is never 0 (a header at least); a page written by this log is whole.
    if (size <= 0) break;
    off += size;
  }
}

/** What `verifyRecord` found. A number: checking a record allocates nothing. */
export const RecordCheck = {
  /** The trailer matches. */
  OK: 0,
  /** A record without CHECKSUM (written before it existed): its page's checksum vouches for it. */
  NO_CHECKSUM: 1,
  /** Not a record: the VALID flag is clear (zeros: a hole, a truncated file). */
  NOT_A_RECORD: 2,
  /** Its sizes do not fit: shorter than a header, longer than the bytes `limit` allows. */
  BAD_LENGTH: 3,
  /** The trailer does not match the bytes. */
  MISMATCH: 4,
} as const;

/** One of RecordCheck's values. */
export type RecordCheck = (typeof RecordCheck)[keyof typeof RecordCheck];

/**
 * Checks the record at `s[off]`, of which `available` bytes are in hand
 * (what a device read returned, never past the record's page): a VALID
 * record whose used bytes lie within them and whose trailer matches.
 */
export function verifyRecord(s: RecordSpace, off: number, available: number): RecordCheck {
  if (available < RECORD_HEADER_SIZE) return RecordCheck.NOT_A_RECORD;
  const flags = flagsOf(s, off);
  if ((flags & RecordFlag.VALID) === 0) return RecordCheck.NOT_A_RECORD;
  const used = usedSize(s, off);
  if (used < RECORD_HEADER_SIZE || used > available) return RecordCheck.BAD_LENGTH;
  if ((flags & RecordFlag.CHECKSUM) === 0) return RecordCheck.NO_CHECKSUM;
  const at = off + used - 4;
  return crc32Range(s.bytes, off, at) === readU32(s.bytes, at)
    ? RecordCheck.OK
    : RecordCheck.MISMATCH;
}
