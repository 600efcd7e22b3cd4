import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  isInternalKey,
  keyLengthOf,
  keyOffsetOf,
  PAGE_HEADER_SIZE,
  PAGE_MAGIC,
  PageFlag,
  slotSize,
  spaceOverBytes,
} from '@strata/hlog';
import { scanSegmentFiles } from '@strata/io';

/**
 * Which log pages hold a record (any version) of which key, read from an
 * undamaged database directory with hlog's own layout accessors: a damage
 * campaign's ground truth for "this key could have been hit". A blob counts
 * for every page it covers; the records of strata's internal keys (a
 * stream's blocks) are kept apart, since a stream's value depends on them.
 */
export interface LogKeyMap {
  readonly pageSize: number;
  readonly segmentSize: number;
  /** Page address -> the user keys with a record (or blob) on it. */
  readonly keysOnPage: ReadonlyMap<number, ReadonlySet<string>>;
  /** Pages holding records of internal keys. */
  readonly internalPages: ReadonlySet<number>;
}

export async function mapLogKeys(
  dbDir: string,
  pageSize: number,
  segmentSize: number,
): Promise<LogKeyMap> {
  const segments = scanSegmentFiles(dbDir, 'log');
  const keysOnPage = new Map<number, Set<string>>();
  const internalPages = new Set<number>();
  const note = (page: number, key: Buffer) => {
    if (isInternalKey(key)) {
      internalPages.add(page);
      return;
    }
    let set = keysOnPage.get(page);
    if (set === undefined) {
      set = new Set();
      keysOnPage.set(page, set);
    }
    set.add(key.toString('latin1'));
  };
  const last = Math.max(-1, ...segments.keys());
  // The whole log in one buffer by logical address (a test's log is small).
  const log = Buffer.alloc((last + 1) * segmentSize + pageSize);
  for (const [n] of segments) {
    const bytes = await readFile(join(dbDir, `log.${n}`));
    bytes.copy(log, n * segmentSize);
  }
  const space = spaceOverBytes(log);
  if (space === null) throw new Error('the log buffer is not 8-aligned');
  for (let page = 0; page + PAGE_HEADER_SIZE <= log.length - pageSize; ) {
    if (log.readUInt32LE(page) !== PAGE_MAGIC || log.readDoubleLE(page + 16) !== page) {
      page += pageSize;
      continue;
    }
    const used = log.readUInt32LE(page + 8);
    if ((log.readUInt32LE(page + 12) & PageFlag.BLOB) !== 0) {
      const keyLength = log.readUInt32LE(page + PAGE_HEADER_SIZE);
      const key = log.subarray(
        page + PAGE_HEADER_SIZE + 8,
        page + PAGE_HEADER_SIZE + 8 + keyLength,
      );
      const pages = Math.max(1, Math.ceil(used / pageSize));
      for (let i = 0; i < pages; i++) note(page + i * pageSize, Buffer.from(key));
      page += pages * pageSize;
      continue;
    }
    for (let off = page + PAGE_HEADER_SIZE; off < page + used; ) {
      const size = slotSize(space, off);
      if (size <= 0) break;
      const k = keyOffsetOf(space, off);
      note(page, Buffer.from(log.subarray(k, k + keyLengthOf(space, off))));
      off += size;
    }
    page += pageSize;
  }
  return { pageSize, segmentSize, keysOnPage, internalPages };
}

/**
 * The user keys a damage to segment `segment` over the file's byte ranges
 * may have hit: every key with a record on a page the ranges touch;
 * `streams` too when a page of internal records was touched.
 */
export function keysHit(
  map: LogKeyMap,
  segment: number,
  ranges: readonly { from: number; to: number }[],
  streams: readonly string[],
): Set<string> {
  const hit = new Set<string>();
  const base = segment * map.segmentSize;
  for (const { from, to } of ranges) {
    if (to <= from) continue;
    const first = Math.floor((base + from) / map.pageSize) * map.pageSize;
    for (let page = first; page < base + to; page += map.pageSize) {
      for (const k of map.keysOnPage.get(page) ?? []) hit.add(k);
      if (map.internalPages.has(page)) for (const s of streams) hit.add(s);
    }
  }
  return hit;
}
