import {
  type CollectionStore,
  reclaimBlocks,
  STREAM_SID_END,
  StreamValue,
  streamBlockKeyParts,
  streamBuildsInFlight,
  streamSidOf,
} from '@strata/collections';
import {
  blobAddressOf,
  flagsOf,
  keyLengthOf,
  keyOffsetOf,
  RecordFlag,
  type RecordSpace,
  RecordType,
  typeOf,
  valueLengthOf,
  valueOffsetOf,
} from '@strata/hlog';
import { LogIterator, wholeLogMode } from '@strata/scan';

/**
 * The stream block GC: deletes the block records no stream head refers to
 * any more, which the removals that know their head cannot reach (a blind
 * SET over a head not cached, a stream expired while not cached, blocks
 * queued for deletion when the process died, a RESTORE that failed
 * halfway). See docs/notes/streams-storage-design.md, "The block GC".
 *
 * One pass: walk the whole log, every record live or superseded, marking
 * the stream ID of every head (a large head's first bytes read from its
 * blob) and noting each block key's newest record (a tombstone unnotes
 * it); mark as well every head written while the pass runs (the store's
 * `writeWatch`: a write may land in place, at an address the walk has
 * passed, as a cached head's write-back over its old record or a RENAME
 * over another key does); once the walk has reached the tail, in the same
 * synchronous step, mark the heads in the collection cache (decoded, maybe
 * not written yet) and queue for deletion (stream-reclaim.ts, in the
 * background) the blocks below the tail at the pass's start whose stream
 * ID is unmarked. A block's head is in the log or the cache from the
 * moment the block is sealed (sealing happens on a cached head, and the
 * cache keeps an entry until its write-back is in the log), except while
 * a stream is built outside the cache (COPY, MOVE, RESTORE, the RDB
 * import: stream-builds.ts): a pass that meets one deletes nothing.
 * Marking superseded heads too needs no liveness check, at the price that
 * an orphan is collected only once compaction dropped the last head naming
 * it: the server runs a pass after each compaction.
 *
 * A pass gives up, deleting nothing, on a damaged page or a head it cannot
 * read: either could be the one naming a block.
 */

export type BlockGcResult =
  | {
      readonly status: 'swept';
      /** Head records and cached heads seen (with a stream ID or not). */
      readonly heads: number;
      /** Block keys whose newest record is a block. */
      readonly blocks: number;
      /** Those with no head: queued for deletion. */
      readonly orphans: number;
      /** Records walked. */
      readonly records: number;
    }
  | {
      readonly status: 'skipped';
      readonly reason: 'building' | 'damaged page' | 'unreadable head' | 'busy';
    };

/** Walks over the new tail a pass makes before it gives up on a log that never stops growing. */
const MAX_ROUNDS = 64;
/** Longest run without yielding to the event loop, ms. */
const SLICE_MS = 2;

interface BlockSeen {
  readonly sid: string;
  readonly address: number;
}

interface BlobHead {
  readonly blobAddress: number;
  readonly keyLength: number;
  readonly valueLength: number;
}

/** What the passes over one database's cache did (INFO storage). */
export interface BlockGcStats {
  passes: number;
  skipped: number;
  /** Blocks queued for deletion as orphans. */
  orphans: number;
}

const statsByCache = new WeakMap<CollectionStore, BlockGcStats>();

/** The passes' counts for `cache` (zeros before the first). */
export function blockGcStats(cache: CollectionStore): BlockGcStats {
  let s = statsByCache.get(cache);
  if (s === undefined) {
    s = { passes: 0, skipped: 0, orphans: 0 };
    statsByCache.set(cache, s);
  }
  return s;
}

/** One pass over `cache`'s store (see above), counted in blockGcStats. */
export async function collectOrphanBlocks(cache: CollectionStore): Promise<BlockGcResult> {
  const r = await pass(cache);
  const s = blockGcStats(cache);
  s.passes++;
  if (r.status === 'skipped') s.skipped++;
  else s.orphans += r.orphans;
  return r;
}

async function pass(cache: CollectionStore): Promise<BlockGcResult> {
  if (streamBuildsInFlight(cache) > 0) return skipped('building');
  const store = cache.store;
  if (store.writeWatch !== null) return skipped('busy');
  const log = store.log;
  const startTail = log.tail;
  const marked = new Set<string>();
  /** By block key (latin1): its newest record, when that is a block. */
  const blocks = new Map<string, BlockSeen>();
  const blobHeads: BlobHead[] = [];
  let heads = 0;
  let unreadable = false;
  /** A head's stream ID as streamSidOf read it: marked, none, or not a head (the pass gives up). */
  const mark = (sid: string | null | undefined): void => {
    if (sid === undefined) unreadable = true;
    else if (sid !== null) marked.add(sid);
  };

  const onRecord = (s: RecordSpace, off: number, address: number): boolean => {
    const flags = flagsOf(s, off);
    if ((flags & RecordFlag.INVALID) !== 0) return true;
    const type = typeOf(s, off);
    if (type === RecordType.STREAM && (flags & RecordFlag.TOMBSTONE) === 0) {
      heads++;
      if ((flags & RecordFlag.OVERFLOW) !== 0) {
        blobHeads.push({
          blobAddress: blobAddressOf(s, off),
          keyLength: keyLengthOf(s, off),
          valueLength: valueLengthOf(s, off),
        });
        return true;
      }
      mark(streamSidOf(s.bytes, valueOffsetOf(s, off), valueLengthOf(s, off)));
      return true;
    }
    if (type !== RecordType.STREAM_BLOCK && (flags & RecordFlag.TOMBSTONE) === 0) return true;
    const at = keyOffsetOf(s, off);
    const length = keyLengthOf(s, off);
    const parts = streamBlockKeyParts(s.bytes, at, length);
    if (parts === null) return true;
    const key = s.bytes.toString('latin1', at, at + length);
    // The newest record of a key is the last one met: a block is written
    // anew or changed in place (XDEL), never moved below its newest record.
    if ((flags & RecordFlag.TOMBSTONE) !== 0 || type !== RecordType.STREAM_BLOCK)
      blocks.delete(key);
    else blocks.set(key, { sid: parts.sid, address });
    return true;
  };

  // Heads written during the pass: a write may land in place, at an
  // address the walk has passed (a cached head written back over its old
  // record, RENAME over a key), so the walk alone could miss its stream ID.
  const watch = (type: RecordType, value: Uint8Array): void => {
    if (type === RecordType.STREAM) mark(streamSidOf(value, 0, value.length));
  };
  let iterator: LogIterator | null = null;
  let sliceStart = performance.now();
  const onPage = async (): Promise<void> => {
    // A large head's stream ID: the first bytes of its blob.
    for (const b of blobHeads.splice(0)) {
      // A blob compaction freed belongs to a superseded head (a live one's
      // is copied with it): it names no block a live head does not.
      if (b.blobAddress < log.begin) continue;
      const end = Math.min(b.valueLength, STREAM_SID_END);
      let sid: string | null | undefined;
      try {
        const bytes = await store.readOverflowRange(
          b.blobAddress,
          b.keyLength,
          b.valueLength,
          0,
          end,
        );
        sid = streamSidOf(bytes, 0, bytes.length);
      } catch {
        sid = b.blobAddress < log.begin ? null : undefined;
      }
      mark(sid);
    }
    if (performance.now() - sliceStart >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  };

  let records = 0;
  let orphans: Buffer[] = [];
  try {
    store.writeWatch = watch;
    iterator = new LogIterator(log, { mode: wholeLogMode(log.pageSize), damage: store.damage });
    let from = log.begin;
    for (let round = 0; ; round++) {
      if (round === MAX_ROUNDS) return skipped('busy');
      const r = await iterator.iterate({ from, onRecord, onPage });
      records += r.records;
      if (r.damagedPages > 0) return skipped('damaged page');
      if (unreadable) return skipped('unreadable head');
      from = r.next;
      if (from < log.tail || blobHeads.length > 0) continue;
      // At the tail: the cache and the decision in this same step, so no
      // head is written in between.
      cache.forEachCached((_key, value) => {
        if (!(value instanceof StreamValue)) return;
        heads++;
        mark(value.sid?.toString('latin1') ?? null);
      });
      if (streamBuildsInFlight(cache) > 0) return skipped('building');
      orphans = [];
      for (const [key, b] of blocks) {
        if (b.address < startTail && !marked.has(b.sid)) orphans.push(Buffer.from(key, 'latin1'));
      }
      break;
    }
  } finally {
    if (store.writeWatch === watch) store.writeWatch = null;
    await iterator?.close();
  }
  // No head names them, and none can come to (a new stream ID is random).
  if (orphans.length > 0) void reclaimBlocks(cache, orphans);
  return { status: 'swept', heads, blocks: blocks.size, orphans: orphans.length, records };
}

function skipped(reason: Extract<BlockGcResult, { status: 'skipped' }>['reason']): BlockGcResult {
  return { status: 'skipped', reason };
}
