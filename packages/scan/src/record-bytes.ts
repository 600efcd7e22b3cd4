import { RecordFlag } from '@strata/hlog';

/**
 * Raw record access for scans. Mirrors @strata/hlog's record layout
 * (record-layout.ts there, which is not exported): a 16-byte header
 * (previous address in 48 bits, flags, type, key length, value length), an
 * optional f64 expiry, the key, the value. A record is read in place, through
 * typed views over the bytes that hold it (the log's ring or a pagebuf frame),
 * so reading a field is one aligned load and allocates nothing.
 */

/** Byte, u32 and f64 views of one buffer, with the same origin (8-aligned). */
export interface RecordBytes {
  readonly bytes: Buffer;
  readonly u32: Uint32Array;
  readonly f64: Float64Array;
}

export const RECORD_HEADER_SIZE = 16;
export const EXPIRY_SIZE = 8;
export const PAGE_HEADER_SIZE = 32;
/** 'STPG', the first word of every page and blob on the device. */
export const PAGE_MAGIC = 0x47505453;
/** Page flag: a blob (one large value over whole pages), not records. */
export const PAGE_FLAG_BLOB = 1;

const TWO_32 = 2 ** 32;
const FILLER = RecordFlag.FILLER;
const OVERFLOW = RecordFlag.OVERFLOW;
const HAS_EXPIRY = RecordFlag.HAS_EXPIRY;

/** Views over `buffer`, or null when it does not start 8-aligned (the caller copies). */
export function recordBytesOver(buffer: Buffer): RecordBytes | null {
  if (buffer.byteOffset % 8 !== 0) return null;
  return {
    bytes: buffer,
    u32: new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.byteLength >>> 2),
    f64: new Float64Array(buffer.buffer, buffer.byteOffset, buffer.byteLength >>> 3),
  };
}

export function createRecordBytes(size: number): RecordBytes {
  const views = recordBytesOver(Buffer.from(new ArrayBuffer(size)));
  if (views === null) throw new Error('unreachable: a fresh ArrayBuffer is aligned');
  return views;
}

export function flagsAt(r: RecordBytes, off: number): number {
  return (r.u32[(off >>> 2) + 1]! >>> 16) & 0xff;
}

export function typeAt(r: RecordBytes, off: number): number {
  return r.u32[(off >>> 2) + 1]! >>> 24;
}

export function keyLengthAt(r: RecordBytes, off: number): number {
  return r.u32[(off >>> 2) + 2]!;
}

export function valueLengthAt(r: RecordBytes, off: number): number {
  return r.u32[(off >>> 2) + 3]!;
}

export function previousAt(r: RecordBytes, off: number): number {
  const w = off >>> 2;
  const high = r.u32[w + 1]! & 0xffff;
  return high === 0 ? r.u32[w]! : r.u32[w]! + high * TWO_32;
}

/** Expiry in ms since the epoch, 0 when the record has none. */
export function expiresAtAt(r: RecordBytes, off: number): number {
  return (flagsAt(r, off) & HAS_EXPIRY) !== 0 ? r.f64[(off + RECORD_HEADER_SIZE) >>> 3]! : 0;
}

export function keyOffsetAt(r: RecordBytes, off: number): number {
  return off + RECORD_HEADER_SIZE + ((flagsAt(r, off) & HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0);
}

/** Bytes the record owns in the log: the distance to the next record. */
export function slotSizeAt(r: RecordBytes, off: number): number {
  const flags = flagsAt(r, off);
  const used =
    RECORD_HEADER_SIZE +
    ((flags & HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0) +
    keyLengthAt(r, off) +
    ((flags & OVERFLOW) !== 0 ? 8 : valueLengthAt(r, off));
  const aligned = (used + 7) & ~7;
  // A value shrunk in place keeps its slot; FILLER says the size is stored.
  return (flags & FILLER) === 0 ? aligned : r.u32[(off + aligned) >>> 2]!;
}

/** `a[ao, ao + n)` equals `b[bo, bo + n)`? No allocation. */
export function bytesEqual(
  a: Uint8Array,
  ao: number,
  b: Uint8Array,
  bo: number,
  n: number,
): boolean {
  if (n > 32) return Buffer.prototype.compare.call(a, b, bo, bo + n, ao, ao + n) === 0;
  for (let i = 0; i < n; i++) if (a[ao + i] !== b[bo + i]) return false;
  return true;
}

/** An owned copy of the record's key (for results only: never on a rejected record). */
export function copyKey(r: RecordBytes, off: number): Buffer {
  const ko = keyOffsetAt(r, off);
  const kl = keyLengthAt(r, off);
  const key = Buffer.allocUnsafe(kl);
  r.bytes.copy(key, 0, ko, ko + kl);
  return key;
}
