import { crc32 } from 'node:zlib';

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
 */

export const PAGE_HEADER_SIZE = 32;
export const PAGE_MAGIC = 0x47505453;

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
  bytes.writeUInt32LE(PAGE_MAGIC, off);
  bytes.writeUInt32LE(0, off + 4);
  bytes.writeUInt32LE(used, off + 8);
  bytes.writeUInt32LE(flags, off + 12);
  bytes.writeDoubleLE(address, off + 16);
  bytes.writeUInt32LE(epoch, off + 24);
  bytes.writeUInt32LE(0, off + 28);
}

/** Computes and stores the checksum of a records page (header written). */
export function sealPageChecksum(bytes: Buffer, off: number): void {
  const used = bytes.readUInt32LE(off + 8);
  bytes.writeUInt32LE(crc32(bytes.subarray(off + 8, off + used)), off + 4);
}

/**
 * A blob is self-describing, so compaction can tell whether it is still
 * referenced: after the page header come `u32 keyLength, u32 0`, the key,
 * then the value. Its checksum runs over header fields, prefix, key, value.
 */
export const BLOB_PREFIX_SIZE = 8;

export function blobChecksum(header: Buffer, prefixAndKey: Uint8Array, value: Uint8Array): number {
  return crc32(value, crc32(prefixAndKey, crc32(header.subarray(8, PAGE_HEADER_SIZE))));
}

/** Parses a header; null when the magic is wrong (an empty or foreign page). */
export function readPageHeader(bytes: Uint8Array, off: number): PageHeader | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.byteLength < off + PAGE_HEADER_SIZE || b.readUInt32LE(off) !== PAGE_MAGIC) return null;
  return {
    checksum: b.readUInt32LE(off + 4),
    used: b.readUInt32LE(off + 8),
    flags: b.readUInt32LE(off + 12),
    address: b.readDoubleLE(off + 16),
    epoch: b.readUInt32LE(off + 24),
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
  return crc32(bytes.subarray(off + 8, off + header.used)) === header.checksum;
}
