import {
  align8,
  bytesEqual,
  createRecordSpace,
  expiresAtOf,
  flagsOf,
  hashKey,
  keyLengthOf,
  keyOffsetOf,
  PAGE_HEADER_SIZE,
  previousAddress,
  RECORD_HEADER_SIZE,
  type ReadResult,
  RecordCheck,
  RecordFlag,
  type RecordSpace,
  type StoreCore,
  typeOf,
  usedSize,
  valueLengthOf,
  verifyRecord,
} from '@strata/hlog';

/**
 * Batched point reads (MGET): keys whose newest record is in memory are read
 * synchronously; the others are sorted by the device address their chain
 * continues at, and read together, all reads in flight at once (RocksDB's
 * MultiGet reusing one loaded block). A read covers only the wanted records:
 * from the lowest address to the highest plus an estimate of a record's size
 * (512 bytes, then the largest record seen); wanted ranges that overlap or
 * lie less than `maxGap` apart are one read, so a cluster of keys costs one
 * read of its bytes and a key far from the others about a record, never a
 * whole page. A record running past its read, or a chain continuing outside
 * it, goes to the next round, grouped again.
 *
 * Results are those of `store.get` for each key: records are checked as
 * `store.get` checks them (valid flag, size inside its page); before a device
 * result is used, the key's index entry must still be the one the walk
 * started from (else a write raced it) and the record must not have been
 * compacted away; otherwise, and for large values (blobs), the key falls back
 * to `store.get`.
 */

export interface MultiGetOptions {
  /** Clock for expiry, ms since the epoch. Default Date.now (the store's own in tests). */
  clock?: () => number;
  /**
   * Wanted byte ranges less than this apart are read as one (default 64 KiB):
   * reading the gap costs less than another read.
   */
  maxGap?: number;
}

export interface MultiGetResult {
  results: ReadResult[];
  /**
   * Device reads issued: one per range of wanted records (a record's bytes,
   * or a cluster's, gaps under `maxGap` included) per round.
   */
  pageReads: number;
  /** Bytes those reads asked for. */
  bytesRead: number;
  /** Keys handed to `store.get` (raced writes, blobs, compaction). */
  fallbacks: number;
}

/** First read of a record of unknown size (as `store.get`), until records are seen. */
const FIRST_READ = 512;
/** The estimate grows to the largest record seen, up to this. */
const MAX_ESTIMATE = 16 * 1024;
const DEFAULT_MAX_GAP = 64 * 1024;
const NOT_FOUND: ReadResult = Object.freeze({ status: 'notFound' as const });

interface Candidate {
  index: number;
  key: Uint8Array;
  hash: number;
  entry: number;
  address: number;
  /** Bytes to read at `address` (its record's size once seen), 0 for the estimate. */
  need: number;
}

export async function multiGet(
  store: StoreCore,
  keys: readonly Uint8Array[],
  options: MultiGetOptions = {},
): Promise<MultiGetResult> {
  const clock = options.clock ?? Date.now;
  // Whether the command touches its keys (the access clock) is known now;
  // the records read from the device below are touched with it.
  const touching = store.access.touching;
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
          type: v.type,
        };
      } else if (v.status === 'pending') {
        results[i] = await v.pending;
      }
    } else {
      round.push({ index: i, key, hash, entry, address: disk, need: 0 });
    }
  }
  let pageReads = 0;
  let bytesRead = 0;
  const maxGap = options.maxGap ?? DEFAULT_MAX_GAP;
  let estimate = FIRST_READ;
  while (round.length > 0) {
    const spans = planSpans(round, P, estimate, maxGap);
    pageReads += spans.length;
    const next: Candidate[] = [];
    await Promise.all(
      spans.map(async (span) => {
        const got = await readSpan(store, span);
        bytesRead += span.end - span.start;
        const now = clock();
        for (const c of span.candidates) {
          if (got === null || store.index.find(c.hash) !== c.entry || c.address < log.begin) {
            fallback.push(c.index);
            continue;
          }
          const r = walkSpan(got, span, P, c, now, log.begin);
          if (r === 'fallback') fallback.push(c.index);
          else if (r === 'next') next.push(c);
          else {
            results[c.index] = r;
            if (r.status === 'found') store.touchKey(c.key, touching);
          }
        }
        if (got !== null && got.largest > estimate) estimate = Math.min(got.largest, MAX_ESTIMATE);
      }),
    );
    round = next;
  }
  for (const i of fallback) {
    // The read starts now, so it takes the command's touching, not the clock's.
    const outer = store.access.touching;
    store.access.touching = touching;
    const pending = store.get(keys[i]!);
    store.access.touching = outer;
    results[i] = await pending;
  }
  return { results, pageReads, bytesRead, fallbacks: fallback.length };
}

/** One device read: `[start, end)` inside the pages of its records, for `candidates`. */
interface Span {
  start: number;
  end: number;
  candidates: Candidate[];
}

/**
 * Groups a round's addresses into device reads: each record wants
 * `[address, address + need)` (its size when a previous read saw its header,
 * else the estimate), clipped to its page; wanted ranges that overlap or lie
 * less than `maxGap` apart become one read (a cluster of keys is one read of
 * the bytes that hold it, not of whole pages; keys far apart are each read on
 * their own, about a record's worth).
 */
function planSpans(
  round: readonly Candidate[],
  pageSize: number,
  estimate: number,
  maxGap: number,
): Span[] {
  const sorted = [...round].sort((x, y) => x.address - y.address);
  const spans: Span[] = [];
  let cur: Span | null = null;
  for (const c of sorted) {
    const start = c.address - (c.address % 8);
    const pageEnd = (Math.floor(c.address / pageSize) + 1) * pageSize;
    const end = Math.min(
      pageEnd,
      start + Math.max(c.need > 0 ? c.need : estimate, RECORD_HEADER_SIZE),
    );
    if (cur !== null && start - cur.end <= maxGap) {
      if (end > cur.end) cur.end = end;
      cur.candidates.push(c);
    } else {
      cur = { start, end, candidates: [c] };
      spans.push(cur);
    }
    c.need = 0;
  }
  return spans;
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
    if (
      (flagsOf(ring, off) & RecordFlag.INVALID) === 0 &&
      keyLengthOf(ring, off) === key.length &&
      bytesEqual(ring.bytes, keyOffsetOf(ring, off), key, 0, key.length)
    ) {
      return 0;
    }
    a = previousAddress(ring, off);
  }
  return 0;
}

/**
 * Bytes of one span as read, and the largest record met in them (the next
 * estimate). It holds its views rather than being one: hlog's accessors,
 * inlined everywhere, then see one shape of RecordSpace only.
 */
interface SpanBytes {
  readonly space: RecordSpace;
  length: number;
  largest: number;
}

/** Reads one span; null when the read fails (compacted away: `store.get` reports real errors). */
async function readSpan(store: StoreCore, span: Span): Promise<SpanBytes | null> {
  const rec = createRecordSpace(align8(span.end - span.start));
  let n: number;
  try {
    n = await store.log.device.read(span.start, rec.bytes.subarray(0, span.end - span.start));
  } catch {
    return null;
  }
  return { space: rec, length: n, largest: 0 };
}

/**
 * Follows `c`'s chain inside the span: a result, 'next' (an address outside
 * it, or a record whose end it does not hold: `c.need` says how much to read
 * there), or 'fallback'. Records are checked as `store.get` checks them (valid
 * flag, size inside the page, the record's checksum); the page checksum is
 * not, as the span is not the whole page.
 */
function walkSpan(
  got: SpanBytes,
  span: Span,
  pageSize: number,
  c: Candidate,
  now: number,
  begin: number,
): ReadResult | 'next' | 'fallback' {
  const key = c.key;
  const rec = got.space;
  const read = span.start + got.length;
  let a = c.address;
  while (a >= span.start && a + RECORD_HEADER_SIZE <= read) {
    const inPage = a % pageSize;
    if (inPage < PAGE_HEADER_SIZE || a % 8 !== 0) return 'fallback';
    const off = a - span.start;
    const flags = flagsOf(rec, off);
    if ((flags & RecordFlag.VALID) === 0) return 'fallback';
    const kl = keyLengthOf(rec, off);
    const ko = keyOffsetOf(rec, off);
    // The bytes in use (not the slot: a FILLER's slack need not be read).
    const size = align8(usedSize(rec, off));
    if (size > pageSize - inPage) return 'fallback';
    if (size > got.largest) got.largest = size;
    if (a + size > read) {
      // The record runs past the bytes read: read it whole next round, unless
      // this read already asked for it and came back short.
      if (a + size <= span.end) return 'fallback';
      c.address = a;
      c.need = size;
      return 'next';
    }
    // Nothing of a record is used before it verifies; one that does not (or
    // has no checksum: its page vouches for it) goes to `store.get`, which
    // verifies it and reports the damage with the key.
    if (verifyRecord(rec, off, read - a) !== RecordCheck.OK) return 'fallback';
    if (
      (flags & RecordFlag.INVALID) === 0 &&
      kl === key.length &&
      bytesEqual(rec.bytes, ko, key, 0, key.length)
    ) {
      if ((flags & RecordFlag.TOMBSTONE) !== 0) return NOT_FOUND;
      const exp = expiresAtOf(rec, off);
      if (exp !== 0 && exp <= now) return NOT_FOUND;
      if ((flags & RecordFlag.OVERFLOW) !== 0) return 'fallback';
      const vo = ko + key.length;
      const value = Buffer.from(rec.bytes.subarray(vo, vo + valueLengthOf(rec, off)));
      return { status: 'found', value, expiresAt: exp, type: typeOf(rec, off) };
    }
    a = previousAddress(rec, off);
  }
  if (a === 0 || a < begin) return NOT_FOUND;
  // A short read (the device ended): what it lacks is not there to read again.
  if (read < span.end && a >= span.start && a < span.end) return 'fallback';
  c.address = a;
  return 'next';
}
