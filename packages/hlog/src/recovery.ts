import { DEFAULT_SEGMENT_SIZE, type Device, FileDevice } from '@strata/io';
import { readMode } from '@strata/pagebuf';
import { AccessClock } from './access-clock.js';
import {
  type CheckpointMeta,
  type CheckpointStore,
  FileCheckpointStore,
} from './checkpoint-store.js';
import { HlogError } from './errors.js';
import { HashIndex } from './hash-index.js';
import { HybridLog } from './hybrid-log.js';
import { IndexRebuilder } from './index-rebuild.js';
import { isInternalKey } from './internal-keys.js';
import { decodeKeyCount, type KeyCountSnapshot } from './key-count.js';
import { hashBytes } from './key-hash.js';
import { KeyKind, KeyKindTable } from './key-kind-table.js';
import { KeyStateTable } from './key-state-table.js';
import { type LogScanOptions, type LogScanResult, type SkippedPages, scanLog } from './log-scan.js';
import {
  ParallelIndexRebuilder,
  type RebuildThreads,
  RebuildWorkerFailure,
  rebuildThreads,
  rebuildWorkerUrl,
} from './parallel-rebuild.js';
import {
  expiresAtOf,
  flagsOf,
  keyLengthOf,
  keyOffsetOf,
  previousAddress,
  RecordFlag,
  type RecordSpace,
} from './record-layout.js';
import { consoleLogger, type RecoveryInfo, type StoreOptions } from './store-options.js';
import { TailKeys } from './tail-keys.js';
import { pageSizeMismatch, probePageSize } from './written-page-size.js';

/**
 * The plain keys (values without expiry) of the recovered log, recounted
 * after open: `start` runs the recount (in slices, yielding) and resolves
 * with their number; `provisional` is an upper bound for it meanwhile.
 */
export interface BackgroundRecount {
  start: () => Promise<number>;
  provisional: number;
}

/**
 * How the live-key count comes back: from the checkpoint, adjusted for the
 * keys the replayed tail wrote, or recounted from the whole log. After a
 * whole-log rebuild the snapshot holds the keys with an expiry (found in
 * the rebuild's pass) and `background` recounts the plain keys after open.
 */
export type RecoveredCount =
  | { kind: 'checkpoint'; snapshot: KeyCountSnapshot; tail: TailKeys }
  | { kind: 'recount'; snapshot: KeyCountSnapshot; background?: BackgroundRecount };

export interface RecoveredLog {
  device: Device;
  ownsDevice: boolean;
  checkpoints: CheckpointStore | null;
  log: HybridLog;
  index: HashIndex;
  recovery: RecoveryInfo;
  lastSeq: number;
  count: RecoveredCount;
  /** Crash tails left unreplayed below the log's end (see `CheckpointMeta.unreplayed`): the next checkpoint carries them. */
  unreplayed: SkippedPages[];
}

/**
 * The log line for mid-log damage: where, how much, and what it means for
 * the keys (the rebuild never saw the records in those pages, so a key whose
 * newest version was there is found at the version before it, or not at all).
 */
export function describeSkipped(skipped: readonly SkippedPages[], end: number): string {
  const pages = skipped.reduce((n, r) => n + r.pages, 0);
  const where = skipped
    .map((r) => `${r.address}${r.pages > 1 ? ` (${r.pages} pages)` : ''}: ${r.reason}`)
    .join('; ');
  return (
    `skipped ${pages} damaged page${pages === 1 ? '' : 's'} at [${where}]: ` +
    'the records in them are lost (a key whose newest version was there comes back at its version ' +
    `before, or not at all); the records after them are kept and the log goes on at ${end}, ` +
    'never over the damaged pages'
  );
}

/** What the replay pass found (it may run twice: see the worker's fallback). */
interface Replayed {
  scan: LogScanResult;
  index: HashIndex;
  unreplayedRecords: number;
  tail: TailKeys | null;
  expiring: KeyStateTable | null;
}

/** Records whose recount slots are touched before they are set: their lines stay in L2. */
const TOUCH_BLOCK = 512;

function floorPowerOfTwo(n: number): number {
  return n < 1 ? 1 : 2 ** Math.floor(Math.log2(n));
}

/**
 * Recovery: loads the newest valid checkpoint (index, markers, live-key
 * count) and replays the log after it, or rebuilds the index from the whole
 * log; cuts the log at a torn or corrupt page; opens the log for a new
 * epoch at the recovered tail.
 */
export async function recoverLog(options: StoreOptions): Promise<RecoveredLog> {
  if (options.device === undefined && options.dir === undefined) {
    throw new HlogError('ERR_INVALID_ARGUMENT', 'open needs a dir or a device');
  }
  const compaction = options.compaction;
  if (compaction && !(compaction.maxLogBytes > 0 && Number.isSafeInteger(compaction.maxLogBytes))) {
    // 0 would compact whenever the log is not empty: a mistake such as
    // `8 << 30`, which is 0 in JavaScript (32-bit shifts). A fraction or a
    // size past 2^53 is no byte count either.
    throw new HlogError(
      'ERR_INVALID_ARGUMENT',
      `compaction.maxLogBytes must be a positive whole number of bytes (a safe integer), not ${compaction.maxLogBytes} (8 << 30 is 0 in JavaScript: write 8 * 2 ** 30)`,
    );
  }
  const threadsOption = options.rebuildThreads;
  if (threadsOption !== undefined && !(Number.isSafeInteger(threadsOption) && threadsOption >= 1)) {
    throw new HlogError(
      'ERR_INVALID_ARGUMENT',
      `rebuildThreads must be a whole number >= 1, not ${threadsOption}`,
    );
  }
  const pageSize = options.pageSize ?? 1 << 20;
  const device =
    options.device ??
    new FileDevice({
      dir: options.dir!,
      name: 'log',
      segmentSize: options.segmentSize ?? DEFAULT_SEGMENT_SIZE,
    });
  const checkpoints =
    options.checkpoints !== undefined
      ? options.checkpoints
      : options.dir !== undefined
        ? new FileCheckpointStore(options.dir)
        : null;
  const logger = options.logger ?? consoleLogger;
  const started = performance.now();
  const seqs = checkpoints === null ? [] : (await checkpoints.list()).sort((a, b) => b - a);
  // Index files without their meta are no checkpoint: reported, and numbered past.
  const incomplete = (await checkpoints?.incomplete?.()) ?? [];
  for (const seq of incomplete) {
    logger.warn(
      `checkpoint ${seq} has an index snapshot but no meta file (a checkpoint cut short, or its meta file removed): not used`,
    );
  }
  const lastSeq = Math.max(seqs[0] ?? 0, (await checkpoints?.highest?.()) ?? 0);
  /** Checkpoints that could not be used, and why (reported, never deleted here). */
  const passedOver: Array<{ seq: number; why: string }> = [];

  // 1. The newest checkpoint that verifies, unless told to rebuild.
  let index: HashIndex | null = null;
  let meta: CheckpointMeta | null = null;
  let snapshot: KeyCountSnapshot | null = null;
  const deviceBegin = Math.floor(device.beginAddress / pageSize) * pageSize;
  if (checkpoints !== null && options.rebuildIndex !== true) {
    for (const seq of seqs) {
      const c = await checkpoints.read(seq);
      if (c === null) {
        passedOver.push({ seq, why: 'its meta or index file is incomplete or corrupt' });
        logger.warn(`checkpoint ${seq} is incomplete or corrupt; trying an older one`);
        continue;
      }
      if (c.meta.pageSize !== pageSize) throw pageSizeMismatch(c.meta.pageSize, pageSize);
      if (c.meta.until < deviceBegin) continue;
      // The last page is written up to its used bytes only: the log's end rounds up to a page.
      const logEnd = Math.ceil(device.endAddress / pageSize) * pageSize;
      if (c.meta.until > logEnd) {
        // Its index points into log that is not there (segment files removed or cut short).
        const why = `it covers the log up to ${c.meta.until} but the log ends at ${device.endAddress}`;
        passedOver.push({ seq, why });
        logger.warn(`checkpoint ${seq} cannot be used: ${why}; trying an older one`);
        continue;
      }
      try {
        const countBytes = c.meta.countBytes ?? 0;
        const end = c.index.byteLength - countBytes;
        index = HashIndex.fromSnapshot(c.index.subarray(0, end));
        snapshot = countBytes > 0 ? decodeKeyCount(c.index.subarray(end)) : null;
        meta = c.meta;
        break;
      } catch (e) {
        passedOver.push({ seq, why: String(e) });
        logger.warn(`checkpoint ${seq}: ${String(e)}`);
      }
    }
  }
  if (passedOver.length > 0) {
    logger.warn(
      meta === null
        ? `no checkpoint could be loaded (${passedOver.map((p) => p.seq).join(', ')} unusable): rebuilding the index from the whole log; the checkpoint files are left as they are`
        : `loaded the older checkpoint ${meta.seq} instead of ${passedOver.map((p) => p.seq).join(', ')}; ${options.consistentRecovery === true ? 'the log after it is replayed only up to a clean close recorded after it, if there is one (a crash left none: the store is as of that checkpoint)' : 'the log after it is replayed'}, and the unusable checkpoint files are left as they are`,
    );
  }
  if (meta === null) {
    // No checkpoint says what the log was written with: its pages do.
    const probed = await probePageSize(device, pageSize);
    if (probed !== null && 'written' in probed && probed.written !== pageSize) {
      throw pageSizeMismatch(probed.written, pageSize);
    }
    if (probed !== null && 'atLeast' in probed) {
      throw new HlogError(
        'ERR_PAGE_SIZE_MISMATCH',
        `the log was written with a pageSize of at least ${probed.atLeast}, not ${pageSize}`,
      );
    }
  }
  const begin = Math.max(deviceBegin, meta?.begin ?? 0);
  const from = meta?.until ?? begin;
  // Compaction records the new begin in a checkpoint before it removes
  // segments, so a checkpoint that begins below the first segment file
  // means files at the start of the log are gone: their records are lost.
  const missing: SkippedPages[] = [];
  if (meta !== null && meta.begin < deviceBegin) {
    const first = Math.floor(meta.begin / pageSize) * pageSize;
    missing.push({
      address: first,
      pages: (deviceBegin - first) / pageSize,
      reason: 'segment files missing at the start of the log',
    });
  }
  // A rebuild sizes the index for the log it is about to read (at most one
  // doubling's worth early), so it does not split its way up record by record.
  const configured = options.indexBuckets ?? 1 << 16;
  const estimate = Math.floor((device.endAddress - begin) / 128 / 5.5);
  const initialBuckets = Math.max(configured, floorPowerOfTwo(Math.min(estimate, 1 << 26)));

  // consistentRecovery: the replay stops at the recovered moment.
  const replayTo = await consistentPoint(options, checkpoints, meta);
  // That moment was synced before it was recorded (a checkpoint's fold-over
  // point, a clean close's end): a bad page below it is damage, never a
  // torn tail to cut and write over.
  const durableUntil = Math.max(
    options.durableUntil ?? 0,
    Number.isFinite(replayTo) ? replayTo : 0,
  );

  // 2. Replay the log after it (or the whole log): newest record wins. With
  // a count in the checkpoint, note each key the tail writes. A whole-log
  // rebuild may insert on a worker thread (parallel-rebuild.ts); the pass
  // is the same either way.
  const bytes = Math.max(0, device.endAddress - from);
  const replay = async (threads: RebuildThreads): Promise<Replayed> => {
    const parallel =
      threads === 2
        ? new ParallelIndexRebuilder(
            rebuildWorkerUrl()!,
            initialBuckets,
            bytes,
            new AccessClock(Date.now).fresh,
          )
        : null;
    const into = parallel === null ? (index ?? new HashIndex({ initialBuckets })) : null;
    const rebuilder = parallel ?? new IndexRebuilder(into, bytes);
    let unreplayedRecords = 0;
    const tail = snapshot === null ? null : new TailKeys();
    /** Records of the first page of the tail: with the tail's length, how many keys to make room for. */
    let firstPageRecords = -1;
    const tailBytes = Math.max(0, Math.min(device.endAddress, replayTo) - from);
    // Without a checkpoint the whole log is read here. The keys whose newest
    // record has an expiry are found in this pass (few, and the write path
    // needs them from the start); the plain keys, a table as large as the key
    // set, are recounted after open, in the background (recountPlainKeys).
    const expiring = meta === null ? new KeyStateTable() : null;
    try {
      const scan = await scanLog({
        device,
        pageSize,
        from,
        minEpoch: meta?.epoch ?? 0,
        // Without a checkpoint the first segment may start inside a blob.
        resync: meta === null,
        // Bad pages with valid ones after them are damage, not a torn tail:
        // skipped (their records lost), never written over.
        damage: 'skip',
        ...(durableUntil > 0 ? { durableUntil } : {}),
        ...(options.recoveryMode !== undefined ? { mode: options.recoveryMode } : {}),
        // The worker keeps up, or the scan waits for it between frames.
        ...(parallel === null ? {} : { onPage: () => parallel.pace() }),
        ...(tail === null
          ? {}
          : {
              onPageEnd: (space: RecordSpace) => {
                if (firstPageRecords >= 0) return;
                firstPageRecords = tail.size;
                tail.reserve(Math.ceil((firstPageRecords * tailBytes) / space.bytes.length));
              },
            }),
        onRecord: (space, off, address) => {
          // Past the recovered moment: read (verified, its end found), not replayed.
          if (address >= replayTo) {
            unreplayedRecords++;
            return true;
          }
          const flags = flagsOf(space, off);
          if ((flags & RecordFlag.INVALID) !== 0) return true;
          const ko = keyOffsetOf(space, off);
          const kl = keyLengthOf(space, off);
          const hash = hashBytes(space.bytes, ko, kl);
          rebuilder.add(hash, address);
          if (expiring !== null && address >= begin) {
            if (
              (flags & (RecordFlag.HAS_EXPIRY | RecordFlag.TOMBSTONE)) ===
              RecordFlag.HAS_EXPIRY
            ) {
              const exp = expiresAtOf(space, off);
              if (exp > 0) expiring.set(space.bytes, ko, kl, hash, exp);
              else if (expiring.size > 0) expiring.delete(space.bytes, ko, kl, hash);
            } else if (expiring.size > 0) {
              expiring.delete(space.bytes, ko, kl, hash);
            }
          }
          if (tail !== null) {
            const state = (flags & RecordFlag.TOMBSTONE) !== 0 ? -1 : expiresAtOf(space, off);
            tail.note(space.bytes, ko, kl, hash, state, previousAddress(space, off));
          }
          return true;
        },
      });
      rebuilder.finish();
      const built = parallel === null ? into! : await parallel.built();
      return { scan, index: built, unreplayedRecords, tail, expiring };
    } catch (e) {
      // The worker holds the process open until it is stopped.
      await parallel?.abort();
      throw e;
    }
  };
  const threads = meta === null ? rebuildThreads(options.rebuildThreads, bytes) : 1;
  let replayed: Replayed;
  let usedThreads = threads;
  try {
    replayed = await replay(threads);
  } catch (e) {
    if (!(e instanceof RebuildWorkerFailure)) throw e;
    // Nothing the pass found is kept: it is run again, all of it, on this thread.
    logger.warn(`${e.message}; rebuilding the index on one thread`);
    usedThreads = 1;
    replayed = await replay(1);
  }
  const { scan, unreplayedRecords, tail, expiring } = replayed;
  index = replayed.index;
  const skipped = [...missing, ...scan.skipped];
  if (skipped.length > 0) logger.warn(describeSkipped(skipped, scan.end));
  // The checkpoint's count is adjusted by each tail key's state at the
  // checkpoint, read down its chain; a chain through a skipped page cannot
  // be followed, so after damage the count is recounted from the log.
  // Chains run to lower addresses: damage at or past the recovered moment
  // lies on none of the replayed tail's.
  const useTail = snapshot !== null && tail !== null && skipped.every((r) => r.address >= replayTo);
  if (scan.cutAt !== null) {
    logger.warn(
      `log cut off at ${scan.cutAt}: ${scan.reason}; ${device.endAddress - scan.cutAt} bytes after it are ignored and will be overwritten`,
    );
  }
  const end = scan.cutAt ?? scan.end;
  // The log the index holds: the key recount reads no further.
  const replayedTo = Math.min(end, replayTo);
  if (Number.isFinite(replayTo) && end < replayTo) {
    // The recovered moment was durable up to replayTo (a checkpoint's or a
    // clean close's end): log that is gone before it was lost on the disk
    // (a segment file cut short or removed), never by a crash.
    logger.warn(
      `the log ends at ${end}, before ${replayTo}, where the last ${
        replayTo > (meta?.until ?? 0) ? 'clean close' : 'checkpoint'
      } left it durable: ${replayTo - end} bytes of it are missing (a segment file cut short or removed); the keys whose newest records were there are lost or back at an older version`,
    );
  }

  // Crash tails left unreplayed, the checkpoint's (still in the log) and
  // this one's: the index never points there, so a recount passes over them.
  const unreplayed = (meta?.unreplayed ?? []).filter((r) => r.address + r.pages * pageSize > begin);
  if (end > replayTo) {
    unreplayed.push({
      address: replayTo,
      pages: (end - replayTo) / pageSize,
      reason: 'a crash tail left unreplayed',
    });
  }
  const passOver = [...skipped, ...unreplayed].sort((x, y) => x.address - y.address);

  // 3. A new epoch above every page ever written.
  const persisted = checkpoints === null ? 0 : await checkpoints.readEpoch();
  const epoch = Math.max(persisted, scan.maxEpoch, meta?.epoch ?? 0) + 1;
  if (checkpoints !== null) await checkpoints.writeEpoch(epoch);
  const log = new HybridLog({
    device,
    memory: options.memory ?? 64 << 20,
    pageSize,
    mutableFraction: options.mutableFraction ?? 0.9,
    epoch,
    tailAddress: end,
    beginAddress: begin,
    ...(options.blobChunkSize === undefined ? {} : { blobChunkSize: options.blobChunkSize }),
  });
  const recovery: RecoveryInfo = {
    checkpoint: meta?.seq ?? null,
    scannedFrom: from,
    scannedBytes: scan.bytesRead,
    records: scan.records - unreplayedRecords,
    cutAt: scan.cutAt,
    unreplayedBytes: Math.max(0, end - replayTo),
    replayedTo,
    cutReason: scan.reason,
    skipped,
    passedOver,
    count: useTail ? 'checkpoint' : 'recount',
    ms: performance.now() - started,
    rebuildThreads: usedThreads,
    countMs: 0,
  };
  const counted = performance.now();
  let count: RecoveredCount;
  if (useTail) count = { kind: 'checkpoint', snapshot: snapshot!, tail: tail! };
  else if (expiring !== null) {
    const withExpiry: Array<[string, number]> = [];
    expiring.sweep((key, exp) => {
      withExpiry.push([key.toString('latin1'), exp]);
      return true;
    });
    const keys = index.size;
    count = {
      kind: 'recount',
      snapshot: { plain: 0, expiring: withExpiry },
      background: {
        start: () => recountPlainKeys(device, pageSize, begin, replayedTo, keys, log, passOver),
        // Every record could be a distinct plain key.
        provisional: scan.records,
      },
    };
  } else {
    count = {
      kind: 'recount',
      snapshot: await recountKeys(
        device,
        pageSize,
        begin,
        replayedTo,
        index.size,
        options,
        passOver,
      ),
    };
  }
  recovery.countMs = performance.now() - counted;
  return {
    device,
    ownsDevice: options.device === undefined,
    checkpoints,
    log,
    index,
    recovery,
    lastSeq,
    count,
    unreplayed,
  };
}

/**
 * Where the replay of the log after the checkpoint stops: nowhere (every
 * record replayed) unless `consistentRecovery`; then at the checkpoint's
 * fold-over point, or at a clean close's end after it (both one moment;
 * a new store records its empty start as one). With neither there is no
 * moment to stop at (checkpoint files gone): the whole log is replayed.
 */
async function consistentPoint(
  options: StoreOptions,
  checkpoints: CheckpointStore | null,
  meta: CheckpointMeta | null,
): Promise<number> {
  if (options.consistentRecovery !== true || checkpoints === null) return Number.POSITIVE_INFINITY;
  const closed = await checkpoints.readCleanClose();
  if (meta === null) return closed ?? Number.POSITIVE_INFINITY;
  return closed !== null && closed > meta.until ? closed : meta.until;
}

/**
 * The live-key count from the newest state of every key, fed records in log
 * order: a compact table of the keys and their kind while it runs
 * (KeyKindTable, 8 bytes a slot plus the key's bytes), a map
 * entry only for keys whose newest version has an expiry (which the count
 * keeps anyway). Records are applied at the end of their page, 512 at a
 * time: their table slots are touched first, so the cache misses overlap
 * instead of stalling one by one (the table is as large as the key set).
 */
class Recount {
  private readonly table: KeyKindTable;
  private readonly expiring = new Map<string, number>();
  private readonly offsets: Uint32Array;
  private readonly states: Float64Array;
  private readonly hashes: Float64Array;
  private n = 0;
  private sized = false;

  /** `bytes`: the log about to be read; the first page tells how many records that is. */
  constructor(
    expectedKeys: number,
    pageSize: number,
    private readonly bytes: number,
  ) {
    this.table = new KeyKindTable(expectedKeys);
    // A record takes at least 16 bytes.
    const most = Math.ceil(pageSize / 16);
    this.offsets = new Uint32Array(most);
    this.states = new Float64Array(most);
    this.hashes = new Float64Array(most);
  }

  /** Notes a record of the current page (applied at `endPage`). */
  add(space: RecordSpace, off: number, flags: number, hash: number): void {
    const n = this.n++;
    this.offsets[n] = off;
    this.hashes[n] = hash;
    this.states[n] = (flags & RecordFlag.TOMBSTONE) !== 0 ? -1 : expiresAtOf(space, off);
  }

  endPage(space: RecordSpace): void {
    const n = this.n;
    if (n === 0) return;
    this.n = 0;
    const { table, hashes, offsets, states } = this;
    if (!this.sized) {
      // Records per page x pages: the table's size for a log of distinct keys.
      this.sized = true;
      table.reserve(Math.ceil((n * this.bytes) / space.bytes.length));
    }
    for (let from = 0; from < n; from += TOUCH_BLOCK) {
      const to = Math.min(n, from + TOUCH_BLOCK);
      let sink = 0;
      for (let i = from; i < to; i++) sink += table.touch(hashes[i]!);
      this.sink = sink;
      for (let i = from; i < to; i++) {
        const off = offsets[i]!;
        const ko = keyOffsetOf(space, off);
        const kl = keyLengthOf(space, off);
        const state = states[i]!;
        const kind = state > 0 ? KeyKind.EXPIRING : state === 0 ? KeyKind.PLAIN : KeyKind.DELETED;
        const previous = table.set(space.bytes, ko, kl, hashes[i]!, kind);
        if (state > 0 || previous === KeyKind.EXPIRING) {
          const k = space.bytes.toString('latin1', ko, ko + kl);
          if (state > 0) this.expiring.set(k, state);
          else this.expiring.delete(k);
        }
      }
    }
  }

  /** Keeps the touch loads alive. */
  sink = 0;

  snapshot(): KeyCountSnapshot {
    return { plain: this.table.count(KeyKind.PLAIN), expiring: [...this.expiring] };
  }
}

/** Bytes a background recount reads (and then counts) between two yields. */
const RECOUNT_SLICE = 1 << 20;

/**
 * The plain keys of [begin, end) after a whole-log rebuild, recounted while
 * the store serves: single reads of about a MiB, each counted and followed
 * by a yield to the event loop, so a slice lasts a few milliseconds. Stops
 * (resolving 0) once the log is halted: the store was abandoned. Writes
 * made meanwhile are counted by the store as changes from each key's state
 * in the log, which this count is the base of.
 */
async function recountPlainKeys(
  device: Device,
  pageSize: number,
  begin: number,
  end: number,
  expectedKeys: number,
  log: HybridLog,
  passOver: readonly SkippedPages[],
): Promise<number> {
  const recount = new Recount(expectedKeys, pageSize, 0);
  const size = Math.max(pageSize, RECOUNT_SLICE);
  let stopped = false;
  await recountPass(device, pageSize, begin, end, recount, {
    // Verified by the rebuild's pass; nothing below its end is written again.
    // The pages it found bad, and crash tails left unreplayed, are passed over unread.
    verify: false,
    skip: passOver,
    mode: readMode.adaptive({ minReadSize: size, maxReadSize: size, readsAhead: 1 }),
    onPage: () => {
      if (log.failure !== undefined) {
        stopped = true;
        throw new HlogError('ERR_STORE_CLOSED', 'store closed during the key recount');
      }
      return new Promise<void>((resolve) => setImmediate(resolve));
    },
  }).catch((e: unknown) => {
    if (!stopped) throw e;
  });
  return stopped ? 0 : recount.snapshot().plain;
}

/** The recount of [begin, end) in a pass of its own (a checkpoint without a count). */
async function recountKeys(
  device: Device,
  pageSize: number,
  begin: number,
  end: number,
  expectedKeys: number,
  options: StoreOptions,
  passOver: readonly SkippedPages[],
): Promise<KeyCountSnapshot> {
  const recount = new Recount(expectedKeys, pageSize, 0);
  await recountPass(device, pageSize, begin, end, recount, {
    // The checkpoint's part of the log was not read by this recovery: damage there is skipped too.
    damage: 'skip',
    skip: passOver,
    ...(options.recoveryMode !== undefined ? { mode: options.recoveryMode } : {}),
  });
  return recount.snapshot();
}

/** A pass over [begin, end) feeding `recount` every valid record; `more`: the pass's own options. */
function recountPass(
  device: Device,
  pageSize: number,
  begin: number,
  end: number,
  recount: Recount,
  more: Partial<LogScanOptions>,
): ReturnType<typeof scanLog> {
  return scanLog({
    device,
    pageSize,
    from: Math.floor(begin / pageSize) * pageSize,
    to: end,
    resync: true,
    onRecord: (space, off, address) => {
      const flags = flagsOf(space, off);
      if (address < begin || (flags & RecordFlag.INVALID) !== 0) return true;
      const ko = keyOffsetOf(space, off);
      const kl = keyLengthOf(space, off);
      // Strata's own records are no user's keys (see internal-keys.ts).
      if (isInternalKey(space.bytes, ko, kl)) return true;
      recount.add(space, off, flags, hashBytes(space.bytes, ko, kl));
      return true;
    },
    onPageEnd: (space) => recount.endPage(space),
    ...more,
  });
}
