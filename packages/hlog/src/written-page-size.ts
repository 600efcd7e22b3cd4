import type { Device } from '@strata/io';
import { FileCheckpointStore } from './checkpoint-store.js';
import { HlogError } from './errors.js';
import {
  PAGE_HEADER_SIZE,
  PageFlag,
  type PageHeader,
  readPageHeader,
  verifyRecordsPage,
} from './page-header.js';

/** The smallest page size a log can have (HybridLog's minimum). */
const MIN_PAGE_SIZE = 512;
/** The largest: a page never spans segments, and no option allows more. */
const MAX_PAGE_SIZE = 1 << 30;

/**
 * The refusal of a log written with another page size: read with the wrong
 * one, every page boundary is misplaced and recovery would misread it (or
 * cut it as torn). Code ERR_PAGE_SIZE_MISMATCH, naming both sizes.
 */
export function pageSizeMismatch(written: number, configured: number): HlogError {
  return new HlogError(
    'ERR_PAGE_SIZE_MISMATCH',
    `the log was written with pageSize ${written}, not ${configured}`,
  );
}

/** The page header at `address`, if one is there and names that address. */
async function headerAt(device: Device, address: number) {
  const buf = Buffer.alloc(PAGE_HEADER_SIZE);
  if ((await device.read(address, buf)) < PAGE_HEADER_SIZE) return null;
  const h = readPageHeader(buf, 0);
  return h !== null && h.address === address ? h : null;
}

/**
 * Whether the records page at `address` (its header read) checks out: a
 * header whose `used` was damaged says nothing about the page size.
 */
async function intact(device: Device, address: number, h: PageHeader): Promise<boolean> {
  if ((h.flags & PageFlag.BLOB) !== 0) return true;
  if (h.used < PAGE_HEADER_SIZE || h.used > MAX_PAGE_SIZE) return false;
  const page = Buffer.alloc(h.used);
  if ((await device.read(address, page)) < h.used) return false;
  return verifyRecordsPage(page, 0, h.used, h);
}

/**
 * The page size a log without a usable checkpoint was written with, as far
 * as its pages tell. The first page's header is at the log's begin: a
 * records page using more than `configured` bytes was written with larger
 * pages (the next header, at begin + its size, names it). A header naming
 * its own address at begin + p, p < `configured`, means pages of p bytes:
 * inside a page's records no such header is, and damage does not make one
 * (a damaged page past `configured` could, so larger sizes are not guessed
 * from headers alone). Null when the log does not say otherwise (empty,
 * starting inside a blob, a first page that is a blob, or consistent).
 */
export async function probePageSize(
  device: Device,
  configured: number,
): Promise<{ written: number } | { atLeast: number } | null> {
  const begin = device.beginAddress;
  const end = device.endAddress;
  if (end - begin < PAGE_HEADER_SIZE) return null;
  const first = await headerAt(device, begin);
  if (first === null || (first.flags & PageFlag.BLOB) !== 0) return null;
  // Only an intact first page says anything (damage is recovery's to handle).
  if (!(await intact(device, begin, first))) return null;
  const larger = first.used > configured;
  // Smaller pages than the first page's used bytes cannot be: the search starts above them.
  const from = larger
    ? configured * 2
    : 2 ** Math.ceil(Math.log2(Math.max(MIN_PAGE_SIZE, first.used)));
  const to = larger ? MAX_PAGE_SIZE : configured / 2;
  for (let p = from; p <= to && begin + p < end; p *= 2) {
    const h = await headerAt(device, begin + p);
    if (h !== null && (await intact(device, begin + p, h))) return { written: p };
  }
  return larger ? { atLeast: first.used } : null;
}

/**
 * The page size of the newest checkpoint in `dir` whose meta file reads
 * (the index is not read), or null when there is none: what a log in
 * `dir` was written with, for an opener that adopts it.
 */
export async function checkpointPageSize(dir: string): Promise<number | null> {
  const store = new FileCheckpointStore(dir);
  for (const seq of (await store.list()).sort((a, b) => b - a)) {
    const meta = await store.readMeta(seq);
    if (meta !== null) return meta.pageSize;
  }
  return null;
}
