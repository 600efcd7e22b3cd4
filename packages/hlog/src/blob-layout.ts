import { crc32 } from 'node:zlib';
import {
  BLOB_PREFIX_SIZE,
  blobChunkShift,
  blobKeyLength,
  PAGE_HEADER_SIZE,
} from './page-header.js';

/**
 * A blob's chunk table: what lets a read of part of a large value verify
 * only the bytes it loads. The value is cut into chunks of `2^shift` bytes
 * (the shift is the prefix's second word; 0 marks a blob written before the
 * table existed, which only a whole read can verify). After the key:
 *
 * ```
 * u32  table checksum: crc32 of the header's bytes [8, 32), the prefix,
 *      the key and the chunk entries (so a ranged read trusts the entries)
 * u32  per chunk: crc32 of the chunk's bytes, seeded with the crc32 of the
 *      header's bytes [8, 32) (length, flags, address, epoch: a chunk from
 *      another blob or session does not match)
 * ```
 *
 * then the value. The page header's checksum still runs over everything
 * after its first 8 bytes, table included, so whole-log readers (LogPages,
 * recovery, compaction) and whole-value reads check a blob as before.
 */

/** Default chunk size of new blobs: 64 KiB. */
export const DEFAULT_BLOB_CHUNK_SHIFT = 16;

/** A chunk shift a blob may hold: 0 (no table) or 9..24 (512 bytes to 16 MiB). */
export function isChunkShift(shift: number): boolean {
  return shift === 0 || (shift >= 9 && shift <= 24);
}

/** Bytes of a blob's table (its checksum and one entry per chunk) for a value of `length`. */
export function chunkTableSize(length: number, shift: number): number {
  return shift === 0 ? 0 : 4 + 4 * chunkCount(length, shift);
}

export function chunkCount(length: number, shift: number): number {
  return Math.ceil(length / 2 ** shift);
}

/** Offset of the value from the blob's start (header, prefix, key, table). */
export function blobValueOffset(keyLength: number, length: number, shift: number): number {
  return PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + keyLength + chunkTableSize(length, shift);
}

/** The seed of every chunk's checksum: crc32 of the header's bytes [8, 32). */
function chunkSeed(head: Buffer): number {
  return crc32(head.subarray(8, PAGE_HEADER_SIZE));
}

/**
 * Fills the table of `head` (header, prefix and key written, room for the
 * table after the key) from `value`.
 */
export function writeChunkTable(head: Buffer, value: Uint8Array): void {
  const shift = blobChunkShift(head);
  const size = 2 ** shift;
  const seed = chunkSeed(head);
  const tableAt = PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + blobKeyLength(head);
  const chunks = chunkCount(value.length, shift);
  for (let i = 0; i < chunks; i++) {
    const from = i * size;
    const sum = crc32(value.subarray(from, Math.min(value.length, from + size)), seed);
    head.writeUInt32LE(sum, tableAt + 4 + 4 * i);
  }
  head.writeUInt32LE(tableChecksum(head, tableAt, chunks), tableAt);
}

function tableChecksum(head: Buffer, tableAt: number, chunks: number): number {
  const fields = crc32(head.subarray(8, tableAt));
  return crc32(head.subarray(tableAt + 4, tableAt + 4 + 4 * chunks), fields);
}

/** Does the table in `head` (the blob's first bytes, through the table) match its checksum? */
export function chunkTableMatches(head: Buffer, length: number): boolean {
  const shift = blobChunkShift(head);
  const tableAt = PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + blobKeyLength(head);
  const chunks = chunkCount(length, shift);
  return head.readUInt32LE(tableAt) === tableChecksum(head, tableAt, chunks);
}

/**
 * Does chunk `i`, whose bytes are `chunk`, match its entry in `head`'s
 * table (checked by `chunkTableMatches`)?
 */
export function chunkMatches(head: Buffer, i: number, chunk: Uint8Array): boolean {
  const tableAt = PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + blobKeyLength(head);
  return head.readUInt32LE(tableAt + 4 + 4 * i) === crc32(chunk, chunkSeed(head));
}
