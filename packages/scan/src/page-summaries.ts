import {
  EXPIRY_SIZE,
  type HybridLog,
  PAGE_HEADER_SIZE,
  pageUsedOf,
  RECORD_EXPIRY_OFFSET,
  RECORD_FLAGS_OFFSET,
  RECORD_HEADER_SIZE,
  RECORD_KEY_LENGTH_OFFSET,
  RECORD_TYPE_OFFSET,
  RECORD_VALUE_LENGTH_OFFSET,
  RecordFlag,
  type RecordSpace,
  slotSizeFrom,
} from '@strata/hlog';
import { ChunkedPageList } from '@strata/pagebuf';
import type { PageContext } from './page-context.js';

/**
 * In-memory summaries of final pages (below `readOnly`: their records never
 * change again), so a scan with TYPE, a MATCH with a literal prefix, or one
 * that meets only expired records skips pages without reading them.
 *
 * Per page: the set of record types present (a bit mask), the record count,
 * how many records carry an expiry and the latest expiry, and a 512-bit
 * Bloom-style set of key prefixes of 1 to 4 bytes. Each of those can only
 * say "no record here can match" when that is certain: a type bit not set
 * means no record of the type; a prefix bit not set means no key starts with
 * those bytes; all records expired means none is live. False "may match"
 * only costs a read.
 *
 * Pages are summarized when a scan has their bytes anyway (a device page it
 * read, a final page still in memory via `catchUp`), or by `build` (a
 * read-ahead pass, e.g. after a restart: summaries live in memory only and
 * are rebuilt). Pages never change once final and addresses are never reused
 * within a process, so a summary never goes stale.
 */

/** What a scan looks for; a page is skipped when no record on it can match. */
export interface SummaryQuery {
  /** Record type code wanted, or -1 for any. */
  typeCode: number;
  /** Bytes every matching key starts with (empty: no prefix test; nocase patterns pass empty). */
  prefix: Uint8Array;
  /** Expiry clock: pages whose records have all expired by then hold nothing live. */
  now: number;
  /** Treat every summarized page as "cannot match" (a pass that only builds summaries). */
  skipSummarized?: boolean;
}

const S_UNKNOWN = 0;
const S_RECORDS = 1;
/** A blob page (or a page with no records): nothing to visit. */
const S_EMPTY = 2;

const W_STATE = 0;
const W_TYPES = 1;
const W_RECORDS = 2;
const W_EXPIRING = 3;
const W_BLOOM = 4;
const BLOOM_WORDS = 16;
const BLOOM_MASK = BLOOM_WORDS * 32 - 1;
const WORDS = W_BLOOM + BLOOM_WORDS;
/** Prefix lengths summarized: a literal prefix is tested on its first 1..4 bytes. */
const MAX_PREFIX = 4;

export class PageSummaries {
  private readonly words = new ChunkedPageList({ arrayType: Uint32Array });
  private readonly maxExpiry = new ChunkedPageList({ arrayType: Float64Array });
  private readonly bloom = new Uint32Array(BLOOM_WORDS);
  /** In-memory final pages below this were offered to `catchUp` already. */
  private memoryFrontier = 0;
  /** Pages summarized so far. */
  summarized = 0;

  constructor(readonly log: HybridLog) {}

  private pageIndex(page: number): number {
    return Math.floor(page / this.log.pageSize);
  }

  private ensure(p: number): void {
    while (this.maxExpiry.length <= p) {
      this.maxExpiry.append(0);
      for (let w = 0; w < WORDS; w++) this.words.append(0);
    }
  }

  has(page: number): boolean {
    const p = this.pageIndex(page);
    return p < this.maxExpiry.length && this.words.get(p * WORDS + W_STATE) !== S_UNKNOWN;
  }

  /** True only when no record on the page can match `q` (the page need not be read). */
  cannotMatch(page: number, q: SummaryQuery): boolean {
    const p = this.pageIndex(page);
    if (p >= this.maxExpiry.length) return false;
    const w = p * WORDS;
    const words = this.words;
    const state = words.get(w + W_STATE);
    if (state === S_UNKNOWN) return false;
    if (q.skipSummarized === true) return true;
    return this.decide(w, p, state, q);
  }

  private decide(w: number, p: number, state: number, q: SummaryQuery): boolean {
    const words = this.words;
    if (state === S_EMPTY) return true;
    const records = words.get(w + W_RECORDS);
    if (records === 0) return true;
    if (q.typeCode >= 0 && q.typeCode < 32 && (words.get(w + W_TYPES) & (1 << q.typeCode)) === 0)
      return true;
    if (words.get(w + W_EXPIRING) === records && this.maxExpiry.get(p) <= q.now) return true;
    const prefix = q.prefix;
    const n = Math.min(prefix.length, MAX_PREFIX);
    let h = 0x811c9dc5;
    for (let i = 0; i < n; i++) {
      h = Math.imul(h ^ prefix[i]!, 0x01000193);
      const bit = (h >>> 0) & BLOOM_MASK;
      if ((words.get(w + W_BLOOM + (bit >>> 5)) & (1 << (bit & 31))) === 0) return true;
    }
    return false;
  }

  /** Summarizes a final records page whose bytes are in hand (no-op when known or not final). */
  observe(ctx: PageContext): void {
    const page = ctx.address;
    if (page + this.log.pageSize > this.log.readOnly && !ctx.onDisk) return;
    if (this.has(page)) return;
    this.summarize(page, ctx.rec, ctx.base, ctx.used);
  }

  /** Marks `pages` pages from `page` (a blob) as holding no records. */
  observeBlob(page: number, pages: number): void {
    const P = this.log.pageSize;
    for (let i = 0; i < pages; i++) {
      const p = this.pageIndex(page + i * P);
      this.ensure(p);
      if (this.words.get(p * WORDS + W_STATE) === S_UNKNOWN) {
        this.words.set(p * WORDS + W_STATE, S_EMPTY);
        this.summarized++;
      }
    }
  }

  private summarize(page: number, rec: RecordSpace, base: number, used: number): void {
    const bloom = this.bloom;
    bloom.fill(0);
    const bytes = rec.bytes;
    const u32 = rec.u32;
    let types = 0;
    let records = 0;
    let expiring = 0;
    let maxExpiry = 0;
    let off = base + PAGE_HEADER_SIZE;
    const end = base + used;
    // A page walk: header fields loaded inline, at hlog's offsets.
    while (off < end) {
      const flags = bytes[off + RECORD_FLAGS_OFFSET]!;
      if ((flags & RecordFlag.VALID) === 0) break;
      const kl = u32[(off + RECORD_KEY_LENGTH_OFFSET) >>> 2]!;
      const size = slotSizeFrom(
        rec,
        off,
        flags,
        kl,
        u32[(off + RECORD_VALUE_LENGTH_OFFSET) >>> 2]!,
      );
      if (size < 16) break;
      // Every valid record counts, tombstones and invalid ones too: a
      // summary may over-state what a page holds, never under-state it.
      records++;
      const type = bytes[off + RECORD_TYPE_OFFSET]!;
      types |= type < 32 ? 1 << type : 0;
      let ko = off + RECORD_HEADER_SIZE;
      if ((flags & RecordFlag.HAS_EXPIRY) !== 0) {
        const exp = rec.f64[(off + RECORD_EXPIRY_OFFSET) >>> 3]!;
        if (exp !== 0) {
          expiring++;
          if (exp > maxExpiry) maxExpiry = exp;
        }
        ko += EXPIRY_SIZE;
      }
      const n = Math.min(kl, MAX_PREFIX);
      let h = 0x811c9dc5;
      for (let i = 0; i < n; i++) {
        h = Math.imul(h ^ bytes[ko + i]!, 0x01000193);
        const bit = (h >>> 0) & BLOOM_MASK;
        bloom[bit >>> 5]! |= 1 << (bit & 31);
      }
      off += size;
    }
    const p = this.pageIndex(page);
    this.ensure(p);
    const w = p * WORDS;
    const words = this.words;
    words.set(w + W_TYPES, types >>> 0);
    words.set(w + W_RECORDS, records);
    words.set(w + W_EXPIRING, expiring);
    for (let i = 0; i < BLOOM_WORDS; i++) words.set(w + W_BLOOM + i, bloom[i]!);
    this.maxExpiry.set(p, maxExpiry);
    words.set(w + W_STATE, S_RECORDS);
    this.summarized++;
  }

  /**
   * Summarizes the final pages still in memory that were not offered yet:
   * no IO, each page once. Call it often (every scan does) so pages get a
   * summary before they leave memory.
   */
  catchUp(): void {
    const log = this.log;
    const P = log.pageSize;
    const ring = log.ring;
    let page = Math.max(this.memoryFrontier, log.head, log.begin);
    page = Math.floor(page / P) * P;
    const until = Math.floor(log.readOnly / P) * P;
    for (; page < until; page += P) {
      if (this.has(page)) continue;
      if (!log.isFramedPage(page / P)) {
        this.observeBlob(page, 1);
        continue;
      }
      const base = log.offsetOf(page);
      this.summarize(page, ring, base, pageUsedOf(ring, base));
    }
    if (until > this.memoryFrontier) this.memoryFrontier = until;
  }
}
