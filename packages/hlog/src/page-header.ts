import { crc32 } from 'node:zlib';
import type { RecordSpace } from './record-layout.js';

/**
 * Every page (and every blob, which occupies whole pages) starts with a
 * 32-byte header:
 *
 * ```
 * +0  u32 magic 'STPG'
 * +4  u32 crc32 of bytes [8, used) (a blob: the same over all its pages)
 * +8  u32 used: bytes of the page in use, header included (blob: all its bytes)
 * +12 u32 flags (PageFlag)
 * +16 f64 the page's own address (a page copied elsewhere is caught)
 * +24 u32 epoch: the store session that wrote it (stale pages are caught)
 * +28 u32 reserved
 * ```
 *
 * Pages are written once, in full, when they become read-only; a checkpoint
 * seals the tail page first. So a page on disk is final or torn, and the
 * checksum tells which.
 *
 * The page layout's only definition, as record-layout.ts is the records':
 * every reader of device pages (hlog's `scanLog`, @strata/scan's iterator)
 * checks them with `checkPageHeader` and `pageChecksumMatches`.
 */

export const PAGE_HEADER_SIZE = 32;
export const PAGE_MAGIC = 0x47505453;

// Byte offsets of the header's fields (the diagram above), the one place
// they are written down: every accessor below, and the log's own inline
// writes, go through these.
const MAGIC_AT = 0;
const CHECKSUM_AT = 4;
const USED_AT = 8;
const FLAGS_AT = 12;
const ADDRESS_AT = 16;
const EPOCH_AT = 24;
const RESERVED_AT = 28;

export const PageFlag = {
  /** A blob: one value spread over whole pages, not records. */
  BLOB: 1,
} as const;

export interface PageHeader {
  used: number;
  flags: number;
  address: number;
  epoch: number;
  checksum: number;
}

/** Writes the header fields (not the checksum) of the page at `bytes[off]`. */
export function writePageHeader(
  bytes: Buffer,
  off: number,
  used: number,
  flags: number,
  address: number,
  epoch: number,
): void {
  bytes.writeUInt32LE(PAGE_MAGIC, off + MAGIC_AT);
  bytes.writeUInt32LE(0, off + CHECKSUM_AT);
  bytes.writeUInt32LE(used, off + USED_AT);
  bytes.writeUInt32LE(flags, off + FLAGS_AT);
  bytes.writeDoubleLE(address, off + ADDRESS_AT);
  bytes.writeUInt32LE(epoch, off + EPOCH_AT);
  bytes.writeUInt32LE(0, off + RESERVED_AT);
}

/**
 * Writes the header of a records page opening at `s[base]` (8-aligned)
 * through the typed views: word stores, no checksum yet (it is sealed when
 * the page is written out). The log's page-opening insert calls this.
 */
export function writeOpenPageHeader(
  s: RecordSpace,
  base: number,
  used: number,
  address: number,
  epoch: number,
): void {
  const u32 = s.u32;
  const w = base >>> 2;
  u32[w + (MAGIC_AT >>> 2)] = PAGE_MAGIC;
  u32[w + (CHECKSUM_AT >>> 2)] = 0;
  u32[w + (USED_AT >>> 2)] = used;
  u32[w + (FLAGS_AT >>> 2)] = 0;
  s.f64[(base + ADDRESS_AT) >>> 3] = address;
  u32[w + (EPOCH_AT >>> 2)] = epoch;
  u32[w + (RESERVED_AT >>> 2)] = 0;
}

/** Index of the used-bytes word of the page at `base` in `s.u32`: the log keeps it current as it appends. */
export function pageUsedWord(base: number): number {
  return (base + USED_AT) >>> 2;
}

/** crc32 of the page at `bytes[off]` using `used` bytes: what its header must hold. */
export function pageChecksum(bytes: Uint8Array, off: number, used: number): number {
  return crc32(bytes.subarray(off + USED_AT, off + used));
}

/** Computes and stores the checksum of a records page (header written). */
export function sealPageChecksum(bytes: Buffer, off: number): void {
  bytes.writeUInt32LE(
    pageChecksum(bytes, off, bytes.readUInt32LE(off + USED_AT)),
    off + CHECKSUM_AT,
  );
}

/**
 * A blob is self-describing, so compaction can tell whether it is still
 * referenced: after the page header come `u32 keyLength, u32 chunkShift`,
 * the key, the chunk table (blob-layout.ts; none when `chunkShift` is 0, a
 * blob written before tables existed), then the value. Its checksum runs
 * over header fields, prefix, key, table, value.
 */
export const BLOB_PREFIX_SIZE = 8;

/** Writes a blob's prefix (after its page header): the key's length, then the chunk shift. */
export function writeBlobPrefix(head: Buffer, keyLength: number, chunkShift: number): void {
  head.writeUInt32LE(keyLength, PAGE_HEADER_SIZE);
  head.writeUInt32LE(chunkShift, PAGE_HEADER_SIZE + 4);
}

/** The key length a blob's prefix holds (`head` starts at the blob's first page). */
export function blobKeyLength(head: Buffer): number {
  return head.readUInt32LE(PAGE_HEADER_SIZE);
}

/** log2 of the blob's chunk size; 0: no chunk table (only a whole read verifies it). */
export function blobChunkShift(head: Buffer): number {
  return head.readUInt32LE(PAGE_HEADER_SIZE + 4);
}

/** Stores a blob's checksum in its header. */
export function setBlobChecksum(head: Buffer, checksum: number): void {
  head.writeUInt32LE(checksum, CHECKSUM_AT);
}

export function blobChecksum(header: Buffer, prefixAndKey: Uint8Array, value: Uint8Array): number {
  return crc32(value, crc32(prefixAndKey, crc32(header.subarray(USED_AT, PAGE_HEADER_SIZE))));
}

/** Parses a header; null when the magic is wrong (an empty or foreign page). */
export function readPageHeader(bytes: Uint8Array, off: number): PageHeader | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.byteLength < off + PAGE_HEADER_SIZE || b.readUInt32LE(off + MAGIC_AT) !== PAGE_MAGIC) {
    return null;
  }
  return {
    checksum: b.readUInt32LE(off + CHECKSUM_AT),
    used: b.readUInt32LE(off + USED_AT),
    flags: b.readUInt32LE(off + FLAGS_AT),
    address: b.readDoubleLE(off + ADDRESS_AT),
    epoch: b.readUInt32LE(off + EPOCH_AT),
  };
}

/** Does the records page at `bytes[off]` (with `available` bytes) check out? */
export function verifyRecordsPage(
  bytes: Uint8Array,
  off: number,
  available: number,
  header: PageHeader,
): boolean {
  if (header.used < PAGE_HEADER_SIZE || header.used > available) return false;
  return pageChecksum(bytes, off, header.used) === header.checksum;
}

// Header fields through a RecordSpace (`base` 8-aligned): one load each, no
// allocation, for the readers' per-page checks.

export function pageUsedOf(s: RecordSpace, base: number): number {
  return s.u32[(base + USED_AT) >>> 2]!;
}

export function pageFlagsOf(s: RecordSpace, base: number): number {
  return s.u32[(base + FLAGS_AT) >>> 2]!;
}

export function pageChecksumOf(s: RecordSpace, base: number): number {
  return s.u32[(base + CHECKSUM_AT) >>> 2]!;
}

export function pageEpochOf(s: RecordSpace, base: number): number {
  return s.u32[(base + EPOCH_AT) >>> 2]!;
}

function pageAddressOf(s: RecordSpace, base: number): number {
  return s.f64[(base + ADDRESS_AT) >>> 3]!;
}

/**
 * What `checkPageHeader` found: a number, so checking a page allocates
 * nothing. Each reader decides what a failure means (recovery cuts the log
 * there, a scan skips a page that is not a page start or throws).
 */
export const PageCheck = {
  /** A records page; its checksum is checked once its `used` bytes are in hand. */
  RECORDS: 0,
  /** The first page of a blob (its checksum covers all its pages). */
  BLOB: 1,
  /** An all-zero header: a page never written. */
  EMPTY: 2,
  /** Not our magic (a foreign page, or the inside of a blob). */
  NO_HEADER: 3,
  /** A page written for another address (copied elsewhere). */
  ADDRESS_MISMATCH: 4,
  /** Written by a session older than the reader accepts (beyond a cut). */
  STALE: 5,
  /** A records page whose used length is below its header or past `limit`. */
  BAD_LENGTH: 6,
  /** A blob whose length is below its header. */
  BAD_BLOB_LENGTH: 7,
} as const;

/** One of PageCheck's values. */
export type PageCheck = (typeof PageCheck)[keyof typeof PageCheck];

/**
 * Checks the header at `s[base]` (32 bytes there) of the page expected at
 * `address`: magic, own address, epoch not below `minEpoch`, and the used
 * length (a records page uses at most `limit` bytes: the page size, or what
 * the caller holds of it).
 */
export function checkPageHeader(
  s: RecordSpace,
  base: number,
  address: number,
  minEpoch: number,
  limit: number,
): PageCheck {
  const u32 = s.u32;
  const w = base >>> 2;
  if (u32[w + (MAGIC_AT >>> 2)] !== PAGE_MAGIC) {
    for (let i = 0; i < PAGE_HEADER_SIZE >>> 2; i++) {
      if (u32[w + i] !== 0) return PageCheck.NO_HEADER;
    }
    return PageCheck.EMPTY;
  }
  if (pageAddressOf(s, base) !== address) return PageCheck.ADDRESS_MISMATCH;
  if (pageEpochOf(s, base) < minEpoch) return PageCheck.STALE;
  const used = pageUsedOf(s, base);
  if ((pageFlagsOf(s, base) & PageFlag.BLOB) !== 0) {
    return used < PAGE_HEADER_SIZE ? PageCheck.BAD_BLOB_LENGTH : PageCheck.BLOB;
  }
  return used < PAGE_HEADER_SIZE || used > limit ? PageCheck.BAD_LENGTH : PageCheck.RECORDS;
}

/** Does the checksum of the records page at `s[base]` (header checked, `used` bytes there) match? */
export function pageChecksumMatches(s: RecordSpace, base: number): boolean {
  return pageChecksum(s.bytes, base, pageUsedOf(s, base)) === pageChecksumOf(s, base);
}
