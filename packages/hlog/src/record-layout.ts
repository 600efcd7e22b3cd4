/**
 * Record layout on raw bytes. A record starts 8-byte aligned and never spans
 * a page:
 *
 * ```
 * +0  u32  previous address, low 32 bits
 * +4  u16  previous address, high 16 bits (addresses are < 2^48)
 * +6  u8   flags (RecordFlag)
 * +7  u8   type (RecordType: 0 = string, 1-5 the collections)
 * +8  u32  key length
 * +12 u32  value length (for an OVERFLOW record: the blob's length)
 * +16 f64  expiry, ms since the epoch (only with HAS_EXPIRY; 0 = none)
 *     ...  key bytes, then value bytes (OVERFLOW: an f64 blob address)
 *     u32  with CHECKSUM: crc32 of every byte above it (header to the value's end),
 *          unaligned, stored when the page is sealed for flush
 *     pad  to 8 bytes; with FILLER, a u32 at that point holds the slot size
 * ```
 *
 * The checksum is a trailer so that every offset before it (expiry, key,
 * value) is the same with or without it: readers that load fields inline
 * need no change, and records written before it (no CHECKSUM flag) keep
 * their layout. It costs 4 bytes before the 8-byte rounding (0 or 8 bytes
 * a record, 4 on average) and nothing on the write path: the log computes
 * it for a whole page when the page becomes read-only and is written out
 * (`sealRecordChecksums`, record-checksum.ts), so in-place updates in the
 * mutable region pay nothing. Every read of a record from the device checks
 * it (`verifyRecord`) before any byte of the record is used.
 *
 * The slot (bytes the record owns in the log) is the used size rounded to 8,
 * unless the value shrank in place: then FILLER records the original slot
 * size so that a log walk still finds the next record and a later in-place
 * update may grow back into the slack.
 *
 * This module is the record layout's only definition: @strata/scan and
 * every other reader of raw records use these accessors and offsets
 * (exported from the package), never offsets of their own. All accessors
 * take a `RecordSpace` (byte, u32 and f64 views with one 8-aligned origin:
 * the log's ring, a page buffer, a pagebuf frame), so header fields are read
 * as aligned typed array loads with no allocation.
 */

export const RECORD_HEADER_SIZE = 16;
export const EXPIRY_SIZE = 8;
export const OVERFLOW_POINTER_SIZE = 8;
/** Bytes of the checksum trailer of a record with CHECKSUM. */
export const RECORD_CHECKSUM_SIZE = 4;

// Byte offsets of the header fields from the record's start. The accessors
// below read through them; they are exported for walks over whole pages
// that load the fields inline (a call per field there costs ~15% of a
// whole-log pass: each reloads the views and bounds-checks again).
/** u8 flags (RecordFlag). */
export const RECORD_FLAGS_OFFSET = 6;
/** u8 type (RecordType). */
export const RECORD_TYPE_OFFSET = 7;
/** u32 key length. */
export const RECORD_KEY_LENGTH_OFFSET = 8;
/** u32 value length. */
export const RECORD_VALUE_LENGTH_OFFSET = 12;
/** f64 expiry, only with HAS_EXPIRY. */
export const RECORD_EXPIRY_OFFSET = 16;

// The previous address is split: its low 32 bits at +0, its high 16 bits
// at +4, in the u32 word whose upper bytes are flags and type. The accessors
// load and store flags and type through that word: a byte store into a word
// just written whole stalls the next word load (in-place updates measured
// ~10% slower with byte access).
const PREVIOUS_LOW_OFFSET = 0;
const META_OFFSET = 4;
const FLAGS_SHIFT = 8 * (RECORD_FLAGS_OFFSET - META_OFFSET);
const TYPE_SHIFT = 8 * (RECORD_TYPE_OFFSET - META_OFFSET);

export const RecordFlag = {
  /** Set on every record ever written: a zero header is never a record. */
  VALID: 1,
  TOMBSTONE: 2,
  /** Abandoned record: skipped by lookups and log walks alike. */
  INVALID: 4,
  HAS_EXPIRY: 8,
  FILLER: 16,
  /** Value lives in a blob (oversize pages); the inline value is its address. */
  OVERFLOW: 32,
  /**
   * The record ends with a u32 checksum trailer (every record written since
   * the trailer exists; one without it was written before and is verified
   * through its page's checksum).
   */
  CHECKSUM: 64,
} as const;

/** `flags & CHECKSUM` as the trailer's size, without a branch (64 >>> 4 = 4). */
const CHECKSUM_SIZE_SHIFT = 4;

/**
 * Value types, the record's type byte. Collections are serialized values in
 * records of their own type, so a command can tell a key holding the wrong
 * kind of value (Redis's WRONGTYPE) from the record alone.
 */
export const RecordType = {
  STRING: 0,
  HASH: 1,
  SET: 2,
  ZSET: 3,
  LIST: 4,
  STREAM: 5,
  /** A sealed block of a stream's entries, under an internal key (see internal-keys.ts). */
  STREAM_BLOCK: 6,
} as const;

/** One of RecordType's values. */
export type RecordType = (typeof RecordType)[keyof typeof RecordType];

/** Byte, u32 and f64 views of one buffer, with the same (8-aligned) origin. */
export interface RecordSpace {
  readonly bytes: Buffer;
  readonly u32: Uint32Array;
  readonly f64: Float64Array;
}

export function createRecordSpace(size: number): RecordSpace {
  const ab = new ArrayBuffer(size);
  return spaceOver(ab);
}

export function spaceOver(ab: ArrayBuffer): RecordSpace {
  return {
    bytes: Buffer.from(ab),
    u32: new Uint32Array(ab, 0, ab.byteLength >>> 2),
    f64: new Float64Array(ab, 0, ab.byteLength >>> 3),
  };
}

/** Views over `buffer`, or null when it does not start 8-aligned (the caller copies). */
export function spaceOverBytes(buffer: Buffer): RecordSpace | null {
  if (buffer.byteOffset % 8 !== 0) return null;
  return {
    bytes: buffer,
    u32: new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.byteLength >>> 2),
    f64: new Float64Array(buffer.buffer, buffer.byteOffset, buffer.byteLength >>> 3),
  };
}

export function align8(n: number): number {
  return (n + 7) & ~7;
}

const TWO_32 = 2 ** 32;

/** Bytes a new record needs in the log. */
export function recordSize(
  keyLength: number,
  valueLength: number,
  hasExpiry: boolean,
  overflow = false,
): number {
  return align8(
    RECORD_HEADER_SIZE +
      (hasExpiry ? EXPIRY_SIZE : 0) +
      keyLength +
      (overflow ? OVERFLOW_POINTER_SIZE : valueLength) +
      RECORD_CHECKSUM_SIZE,
  );
}

/**
 * Writes a record header (and expiry) at `off`; the caller copies key and
 * value to `keyOffsetOf`/`valueOffsetOf`. `slot` is the allocated size.
 */
export function writeRecordHeader(
  s: RecordSpace,
  off: number,
  previous: number,
  flags: number,
  type: number,
  keyLength: number,
  valueLength: number,
  expiresAt: number,
  slot: number,
): void {
  const hasExpiry = (flags & RecordFlag.HAS_EXPIRY) !== 0;
  s.u32[(off + PREVIOUS_LOW_OFFSET) >>> 2] = previous >>> 0;
  s.u32[(off + META_OFFSET) >>> 2] =
    ((previous / TWO_32) & 0xffff) |
    ((flags | RecordFlag.VALID | RecordFlag.CHECKSUM) << FLAGS_SHIFT) |
    ((type & 0xff) << TYPE_SHIFT);
  s.u32[(off + RECORD_KEY_LENGTH_OFFSET) >>> 2] = keyLength;
  s.u32[(off + RECORD_VALUE_LENGTH_OFFSET) >>> 2] = valueLength;
  if (hasExpiry) s.f64[(off + RECORD_EXPIRY_OFFSET) >>> 3] = expiresAt;
  setSlot(s, off, slot);
}

/** Records the slot size, using FILLER only when padding cannot imply it. */
function setSlot(s: RecordSpace, off: number, slot: number): void {
  const used = align8(usedSize(s, off));
  if (used === slot) {
    clearFlag(s, off, RecordFlag.FILLER);
  } else {
    setFlag(s, off, RecordFlag.FILLER);
    s.u32[(off + used) >>> 2] = slot;
  }
}

export function previousAddress(s: RecordSpace, off: number): number {
  const low = s.u32[(off + PREVIOUS_LOW_OFFSET) >>> 2]!;
  const high = s.u32[(off + META_OFFSET) >>> 2]! & 0xffff;
  return high === 0 ? low : low + high * TWO_32;
}

export function setPreviousAddress(s: RecordSpace, off: number, previous: number): void {
  const w = (off + META_OFFSET) >>> 2;
  s.u32[(off + PREVIOUS_LOW_OFFSET) >>> 2] = previous >>> 0;
  s.u32[w] = ((s.u32[w]! & 0xffff0000) | ((previous / TWO_32) & 0xffff)) >>> 0;
}

export function flagsOf(s: RecordSpace, off: number): number {
  return (s.u32[(off + META_OFFSET) >>> 2]! >>> FLAGS_SHIFT) & 0xff;
}

export function setFlag(s: RecordSpace, off: number, flag: number): void {
  const w = (off + META_OFFSET) >>> 2;
  s.u32[w] = (s.u32[w]! | (flag << FLAGS_SHIFT)) >>> 0;
}

export function clearFlag(s: RecordSpace, off: number, flag: number): void {
  const w = (off + META_OFFSET) >>> 2;
  s.u32[w] = (s.u32[w]! & ~(flag << FLAGS_SHIFT)) >>> 0;
}

/** The record's type byte (a RecordType for records this package wrote). */
export function typeOf(s: RecordSpace, off: number): RecordType {
  return (s.u32[(off + META_OFFSET) >>> 2]! >>> TYPE_SHIFT) as RecordType;
}

export function setTypeOf(s: RecordSpace, off: number, type: RecordType): void {
  const w = (off + META_OFFSET) >>> 2;
  s.u32[w] = ((s.u32[w]! & ~(0xff << TYPE_SHIFT)) | (type << TYPE_SHIFT)) >>> 0;
}

export function keyLengthOf(s: RecordSpace, off: number): number {
  return s.u32[(off + RECORD_KEY_LENGTH_OFFSET) >>> 2]!;
}

export function valueLengthOf(s: RecordSpace, off: number): number {
  return s.u32[(off + RECORD_VALUE_LENGTH_OFFSET) >>> 2]!;
}

export function setValueLength(s: RecordSpace, off: number, valueLength: number): void {
  s.u32[(off + RECORD_VALUE_LENGTH_OFFSET) >>> 2] = valueLength;
}

export function hasExpiry(s: RecordSpace, off: number): boolean {
  return (flagsOf(s, off) & RecordFlag.HAS_EXPIRY) !== 0;
}

/** Expiry in ms since the epoch; 0 when the record has none. */
export function expiresAtOf(s: RecordSpace, off: number): number {
  return hasExpiry(s, off) ? s.f64[(off + RECORD_EXPIRY_OFFSET) >>> 3]! : 0;
}

/** Only for records with HAS_EXPIRY. */
export function setExpiresAt(s: RecordSpace, off: number, expiresAt: number): void {
  s.f64[(off + RECORD_EXPIRY_OFFSET) >>> 3] = expiresAt;
}

export function keyOffsetOf(s: RecordSpace, off: number): number {
  return off + RECORD_HEADER_SIZE + (hasExpiry(s, off) ? EXPIRY_SIZE : 0);
}

export function valueOffsetOf(s: RecordSpace, off: number): number {
  return keyOffsetOf(s, off) + keyLengthOf(s, off);
}

/** An OVERFLOW record's blob address (its inline value; unaligned, as the key's length leaves it). */
export function blobAddressOf(s: RecordSpace, off: number): number {
  return s.bytes.readDoubleLE(valueOffsetOf(s, off));
}

/** Bytes of the record in use (header, expiry, key, inline value, checksum trailer). */
export function usedSize(s: RecordSpace, off: number): number {
  const flags = flagsOf(s, off);
  const inlineValue =
    (flags & RecordFlag.OVERFLOW) !== 0 ? OVERFLOW_POINTER_SIZE : valueLengthOf(s, off);
  return (
    RECORD_HEADER_SIZE +
    ((flags & RecordFlag.HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0) +
    keyLengthOf(s, off) +
    inlineValue +
    ((flags & RecordFlag.CHECKSUM) >>> CHECKSUM_SIZE_SHIFT)
  );
}

/** Offset of the checksum trailer of a record with CHECKSUM: its used bytes end there + 4. */
export function checksumOffsetOf(s: RecordSpace, off: number): number {
  return off + usedSize(s, off) - RECORD_CHECKSUM_SIZE;
}

/** Bytes the record owns in the log: the distance to the next record. */
export function slotSize(s: RecordSpace, off: number): number {
  return slotSizeFrom(s, off, flagsOf(s, off), keyLengthOf(s, off), valueLengthOf(s, off));
}

/** `slotSize`, for a walk that loaded the record's flags and lengths already. */
export function slotSizeFrom(
  s: RecordSpace,
  off: number,
  flags: number,
  keyLength: number,
  valueLength: number,
): number {
  const used = align8(
    RECORD_HEADER_SIZE +
      ((flags & RecordFlag.HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0) +
      keyLength +
      ((flags & RecordFlag.OVERFLOW) !== 0 ? OVERFLOW_POINTER_SIZE : valueLength) +
      ((flags & RecordFlag.CHECKSUM) >>> CHECKSUM_SIZE_SHIFT),
  );
  // A value shrunk in place keeps its slot; FILLER says the size is stored.
  return (flags & RecordFlag.FILLER) === 0 ? used : s.u32[(off + used) >>> 2]!;
}

/** Value capacity of the slot for an in-place update (inline values only; the trailer moves with the value's end). */
export function valueCapacity(s: RecordSpace, off: number): number {
  return (
    slotSize(s, off) -
    (valueOffsetOf(s, off) - off) -
    ((flagsOf(s, off) & RecordFlag.CHECKSUM) >>> CHECKSUM_SIZE_SHIFT)
  );
}

/**
 * Changes the value length in place, keeping the slot. `slot` must be read
 * (slotSize) *before* the new value is written: a FILLER word in the slack
 * may be overwritten by a longer value. The caller checked
 * `newLength <= valueCapacity`.
 */
export function resizeValueInPlace(
  s: RecordSpace,
  off: number,
  newLength: number,
  slot: number,
): void {
  setValueLength(s, off, newLength);
  setSlot(s, off, slot);
}

/** `a[ao, ao + n)` equals `b[bo, bo + n)`? No allocation. */
export function bytesEqual(
  a: Uint8Array,
  ao: number,
  b: Uint8Array,
  bo: number,
  n: number,
): boolean {
  // Short keys compare faster in a loop than through the native call.
  if (n > 32) return Buffer.prototype.compare.call(a, b, bo, bo + n, ao, ao + n) === 0;
  for (let i = 0; i < n; i++) if (a[ao + i] !== b[bo + i]) return false;
  return true;
}

/** Key bytes at `keyOff` in `bytes` equal `key`? No allocation. */
export function keyEquals(
  bytes: Uint8Array,
  keyOff: number,
  keyLength: number,
  key: Uint8Array,
): boolean {
  return keyLength === key.length && bytesEqual(key, 0, bytes, keyOff, keyLength);
}

/** An owned copy of the record's key (for results: never on a record a scan rejects). */
export function copyKey(s: RecordSpace, off: number): Buffer {
  const ko = keyOffsetOf(s, off);
  const kl = keyLengthOf(s, off);
  const key = Buffer.allocUnsafe(kl);
  s.bytes.copy(key, 0, ko, ko + kl);
  return key;
}
