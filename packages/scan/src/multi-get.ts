import { crc32 } from 'node:zlib';
import { hashKey, type ReadResult, RecordFlag, type StoreCore } from '@strata/hlog';
import {
  bytesEqual,
  createRecordBytes,
  EXPIRY_SIZE,
  PAGE_HEADER_SIZE,
  PAGE_MAGIC,
  previousAt,
  RECORD_HEADER_SIZE,
  type RecordBytes,
  valueLengthAt,
} from './record-bytes.js';

/**
 * Batched point reads (MGET): keys whose newest record is in memory are read
 * synchronously; the others are grouped by the device page their chain
 * continues in, and each such page is read once for all of them, all reads
 * in flight together (RocksDB's MultiGet reusing one loaded block). A chain
 * that leaves the page goes to the next round, grouped again.
 *
 * Results are those of `store.get` for each key: before a device result is
 * used, the key's index entry must still be the one the walk started from
 * (else a write raced it) and the record must not have been compacted away;
 * otherwise, and for large values (blobs), the key falls back to `store.get`.
 */

export interface MultiGetOptions {
  /** Clock for expiry, ms since the epoch. Default Date.now (the store's own in tests). */
  clock?: () => number;
}

export interface MultiGetResult {
  results: ReadResult[];
  /** Device page reads issued (one per distinct page per round). */
  pageReads: number;
  /** Keys handed to `store.get` (raced writes, blobs, compaction). */
  fallbacks: number;
}

const TWO_32 = 2 ** 32;
const NOT_FOUND: ReadResult = Object.freeze({ status: 'notFound' as const });

interface Candidate {
  index: number;
  key: Uint8Array;
  hash: number;
  entry: number;
  address: number;
}

export async function multiGet(
  store: StoreCore,
  keys: readonly Uint8Array[],
  options: MultiGetOptions = {},
): Promise<MultiGetResult> {
  const clock = options.clock ?? Date.now;
  const log = store.log;
  const P = log.pageSize;
  const results: ReadResult[] = new Array<ReadResult>(keys.length).fill(NOT_FOUND);
  const fallback: number[] = [];
  let round: Candidate[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const hash = hashKey(key);
    const entry = store.index.find(hash);
    const disk = firstOnDisk(store, key, entry);
    if (disk === 0) {
      // The newest version (or none) is in memory: the store answers at once.
      const v = store.read(key);
      if (v.status === 'found') {
        results[i] = {
          status: 'found',
          value: Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length)),
          expiresAt: v.expiresAt,
        };
      } else if (v.status === 'pending') {
        results[i] = await v.pending;
      }
    } else {
      round.push({ index: i, key, hash, entry, address: disk });
    }
  }
  let pageReads = 0;
  while (round.length > 0) {
    const byPage = new Map<number, Candidate[]>();
    for (const c of round) {
      const page = Math.floor(c.address / P) * P;
      const list = byPage.get(page);
      if (list === undefined) byPage.set(page, [c]);
      else list.push(c);
    }
    pageReads += byPage.size;
    const next: Candidate[] = [];
    await Promise.all(
      [...byPage].map(async ([page, list]) => {
        const rec = await readPage(store, page);
        const now = clock();
        for (const c of list) {
          if (rec === null || store.index.find(c.hash) !== c.entry || c.address < log.begin) {
            fallback.push(c.index);
            continue;
          }
          const r = walkPage(rec, page, c, now, log.begin);
          if (r === 'fallback') fallback.push(c.index);
          else if (r === 'next') next.push(c);
          else results[c.index] = r;
        }
      }),
    );
    round = next;
  }
  for (const i of fallback) results[i] = await store.get(keys[i]!);
  return { results, pageReads, fallbacks: fallback.length };
}

/** First chain address below `head` before the key is met in memory; 0 when memory decides. */
function firstOnDisk(store: StoreCore, key: Uint8Array, entry: number): number {
  const log = store.log;
  const ring = log.ring;
  let a = entry;
  while (a !== 0) {
    if (a < log.begin) return 0;
    if (a < log.head) return a;
    const off = log.offsetOf(a);
    const w = off >>> 2;
    const w1 = ring.u32[w + 1]!;
    const flags = (w1 >>> 16) & 0xff;
    if ((flags & RecordFlag.INVALID) === 0 && ring.u32[w + 2] === key.length) {
      const ko =
        off + RECORD_HEADER_SIZE + ((flags & RecordFlag.HAS_EXPIRY) !== 0 ? EXPIRY_SIZE : 0);
      if (bytesEqual(ring.bytes, ko, key, 0, key.length)) return 0;
    }
    const high = w1 & 0xffff;
    a = high === 0 ? ring.u32[w]! : ring.u32[w]! + high * TWO_32;
  }
  return 0;
}

/** Reads and verifies one device page; null when it does not check out (compacted, torn). */
async function readPage(store: StoreCore, page: number): Promise<RecordBytes | null> {
  const P = store.log.pageSize;
  const rec = createRecordBytes(P);
  let n: number;
  try {
    n = await store.log.device.read(page, rec.bytes);
  } catch {
    return null; // the fallback reports any real error
  }
  const u32 = rec.u32;
  if (n < PAGE_HEADER_SIZE || u32[0] !== PAGE_MAGIC || rec.f64[2] !== page) return null;
  const used = u32[2]!;
  if (used < PAGE_HEADER_SIZE || used > n || (u32[3]! & 1) !== 0) return null;
  if (crc32(rec.bytes.subarray(8, used)) !== u32[1]) return null;
  return rec;
}

/** Follows `c`'s chain inside the page: a result, 'next' (another page), or 'fallback'. */
function walkPage(
  rec: RecordBytes,
  page: number,
  c: Candidate,
  now: number,
  begin: number,
): ReadResult | 'next' | 'fallback' {
  const used = rec.u32[2]!;
  const key = c.key;
  let a = c.address;
  while (a >= page && a < page + used) {
    const off = a - page;
    if (off < PAGE_HEADER_SIZE || off % 8 !== 0) return 'fallback';
    const w = off >>> 2;
    const flags = (rec.u32[w + 1]! >>> 16) & 0xff;
    if ((flags & RecordFlag.VALID) === 0) return 'fallback';
    const hasExpiry = (flags & RecordFlag.HAS_EXPIRY) !== 0;
    const ko = off + RECORD_HEADER_SIZE + (hasExpiry ? EXPIRY_SIZE : 0);
    if (
      (flags & RecordFlag.INVALID) === 0 &&
      rec.u32[w + 2] === key.length &&
      bytesEqual(rec.bytes, ko, key, 0, key.length)
    ) {
      if ((flags & RecordFlag.TOMBSTONE) !== 0) return NOT_FOUND;
      const exp = hasExpiry ? rec.f64[(off + RECORD_HEADER_SIZE) >>> 3]! : 0;
      if (exp !== 0 && exp <= now) return NOT_FOUND;
      if ((flags & RecordFlag.OVERFLOW) !== 0) return 'fallback';
      const vo = ko + key.length;
      const value = Buffer.from(rec.bytes.subarray(vo, vo + valueLengthAt(rec, off)));
      return { status: 'found', value, expiresAt: exp };
    }
    a = previousAt(rec, off);
  }
  if (a === 0 || a < begin) return NOT_FOUND;
  c.address = a;
  return 'next';
}
