import {
  blobValueOffset,
  chunkMatches,
  chunkTableMatches,
  chunkTableSize,
  isChunkShift,
} from './blob-layout.js';
import type { CoreState } from './core-state.js';
import { HlogError } from './errors.js';
import {
  BLOB_PREFIX_SIZE,
  blobChecksum,
  blobChunkShift,
  blobKeyLength,
  PAGE_HEADER_SIZE,
  PageFlag,
  readPageHeader,
} from './page-header.js';

/** Bytes of a blob's value read by `readBlobRange`: the range starts at `bytes[offset]`. */
export interface BlobRange {
  readonly bytes: Buffer;
  readonly offset: number;
}

/**
 * Reads bytes `[from, to)` (`from < to <= length`) of the value of the blob
 * at `address`: its head through the chunk table (verified by the table's
 * checksum), then the whole chunks covering the range into one buffer, each
 * verified against its entry. A blob written before chunk tables is read
 * and verified whole. A chunk that fails is ERR_CORRUPT; the others stay
 * readable.
 */
export async function readBlobRange(
  c: CoreState,
  address: number,
  keyLength: number,
  length: number,
  from: number,
  to: number,
): Promise<BlobRange> {
  let shift = c.log.blobChunkShift;
  let head = await readHead(c, address, keyLength, length, shift);
  const written = blobChunkShift(head);
  if (!isChunkShift(written)) throw cutShort(address);
  if (written === 0) return { bytes: await readBlob(c, address, keyLength, length), offset: from };
  if (written !== shift) {
    // Written with another chunk size: its table has another length.
    shift = written;
    head = await readHead(c, address, keyLength, length, shift);
  }
  const header = readPageHeader(head, 0);
  if (
    header === null ||
    (header.flags & PageFlag.BLOB) === 0 ||
    header.address !== address ||
    header.used !== blobValueOffset(keyLength, length, shift) + length ||
    blobKeyLength(head) !== keyLength ||
    blobChunkShift(head) !== shift ||
    !chunkTableMatches(head, length)
  ) {
    throw new HlogError('ERR_CORRUPT', `blob at ${address}: its chunk table failed its checksum`, {
      address,
    });
  }
  const size = 2 ** shift;
  const first = Math.floor(from / size);
  const last = Math.ceil(to / size);
  const start = first * size;
  const end = Math.min(length, last * size);
  const bytes = Buffer.allocUnsafe(end - start);
  c.counters.diskReads++;
  const n = await c.log.device.read(
    address + blobValueOffset(keyLength, length, shift) + start,
    bytes,
  );
  if (n < bytes.length) {
    throw cutShort(address);
  }
  for (let i = first; i < last; i++) {
    const at = i * size - start;
    if (!chunkMatches(head, i, bytes.subarray(at, Math.min(bytes.length, at + size)))) {
      throw new HlogError('ERR_CORRUPT', `blob at ${address}: chunk ${i} failed its checksum`, {
        address,
      });
    }
  }
  return { bytes, offset: from - start };
}

/** The blob's header, prefix, key and a table for chunks of `2^shift` bytes. */
async function readHead(
  c: CoreState,
  address: number,
  keyLength: number,
  length: number,
  shift: number,
): Promise<Buffer> {
  const head = Buffer.alloc(
    PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + keyLength + chunkTableSize(length, shift),
  );
  c.counters.diskReads++;
  const n = await c.log.device.read(address, head);
  if (n < PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE) throw cutShort(address);
  return head;
}

function cutShort(address: number): HlogError {
  return new HlogError('ERR_CORRUPT', `blob at ${address} is cut short or unreadable`, {
    address,
  });
}

/**
 * Reads and verifies a blob's value, whole (the page header's checksum runs
 * over all of it). The read assumes this log's chunk size; a blob written
 * with another (or none) is read again only when its head says the value
 * lies elsewhere.
 */
export async function readBlob(
  c: CoreState,
  address: number,
  keyLength: number,
  length: number,
): Promise<Buffer> {
  let at = blobValueOffset(keyLength, length, c.log.blobChunkShift);
  let buf = Buffer.allocUnsafe(at + length);
  c.counters.diskReads++;
  let n = await c.log.device.read(address, buf);
  if (n >= PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE) {
    const shift = blobChunkShift(buf);
    if (!isChunkShift(shift)) throw cutShort(address);
    const written = blobValueOffset(keyLength, length, shift);
    if (written > at) {
      buf = Buffer.allocUnsafe(written + length);
      c.counters.diskReads++;
      n = await c.log.device.read(address, buf);
    }
    at = written;
  }
  const used = at + length;
  const header = n < used ? null : readPageHeader(buf, 0);
  if (
    header === null ||
    (header.flags & PageFlag.BLOB) === 0 ||
    header.used !== used ||
    blobKeyLength(buf) !== keyLength ||
    blobChecksum(buf, buf.subarray(PAGE_HEADER_SIZE, at), buf.subarray(at, used)) !==
      header.checksum
  ) {
    throw new HlogError('ERR_CORRUPT', `blob at ${address} failed its checksum`, { address });
  }
  return buf.subarray(at, used);
}

/** The key a blob was written for (compaction), or null if it is not a blob. */
export async function readBlobKey(c: CoreState, address: number): Promise<Buffer | null> {
  const head = Buffer.alloc(PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE);
  if ((await c.log.device.read(address, head)) < head.length) return null;
  const header = readPageHeader(head, 0);
  if (header === null || (header.flags & PageFlag.BLOB) === 0) return null;
  const key = Buffer.alloc(blobKeyLength(head));
  if ((await c.log.device.read(address + head.length, key)) < key.length) return null;
  return key;
}
