import type { Device, DeviceStatsSnapshot } from '@strata/io';
import type { ReadMode } from '@strata/pagebuf';
import type { CheckpointStore } from './checkpoint-store.js';
import type { StoreCoreOptions } from './core-state.js';
import type { HashIndexStats } from './hash-index.js';
import type { HybridLogStats } from './hybrid-log.js';
import type { SkippedPages } from './log-scan.js';

export interface Logger {
  warn(message: string): void;
}

/** The active expiry cycle: a slice of `buckets` index buckets every `intervalMs`. */
export interface ExpiryRate {
  readonly intervalMs: number;
  readonly buckets: number;
}

/** 100 ms (Redis's default hz 10), 1024 buckets a slice. */
export const DEFAULT_EXPIRY: ExpiryRate = { intervalMs: 100, buckets: 1024 };

export interface StoreOptions extends Omit<StoreCoreOptions, 'device'> {
  /** Directory for log segments (`log.<n>`) and checkpoints. */
  dir?: string;
  /** A device to use instead of files in `dir` (the store does not close it). */
  device?: Device;
  /** Segment size of the file device created for `dir`. Default 1 GiB. */
  segmentSize?: number;
  /** Default: files in `dir`; none (no checkpoints, recovery rebuilds) with only a device. */
  checkpoints?: CheckpointStore | null;
  /** Read mode of whole-log recovery. Default adaptive read-ahead. */
  recoveryMode?: ReadMode;
  /** Ignore checkpoints and rebuild the index from the whole log. */
  rebuildIndex?: boolean;
  /**
   * Threads of a whole-log index rebuild (no usable checkpoint): 1 rebuilds
   * on the calling thread; 2 or more read and verify the log on the calling
   * thread while a worker thread inserts into the index (two are used at
   * most). Default: `os.availableParallelism()` for a log of 256 MiB or more,
   * else 1 (a worker costs more than it saves on a small log). Same index
   * and count either way; 1 when the worker's script is not there (running
   * from TypeScript sources).
   */
  rebuildThreads?: number;
  /**
   * The log below this address is known to have been synced (the end of a
   * checkpoint the caller holds on to, as the AOF's): bad pages there are
   * damage, skipped, never a torn tail to cut and write over.
   */
  durableUntil?: number;
  /** Active expiry: a slice of `buckets` index buckets every `intervalMs`. Default 100 ms, 1024. */
  expiry?: ExpiryRate | false;
  /** Background compaction once the log exceeds `maxLogBytes`. Default off. */
  compaction?: { maxLogBytes: number; intervalMs?: number } | false;
  /** Checkpoint on close (when there is a checkpoint store). Default true. */
  checkpointOnClose?: boolean;
  /**
   * Recover the state of one moment: the newest checkpoint, plus the log
   * after it only up to the end of a clean close (`readCleanClose`); the
   * tail a crash left past that point is kept on the device but not
   * replayed, and open then checkpoints (so the next tail starts after it),
   * as it does for a new, empty store. Default false: every record that
   * reached the device is replayed, which after a crash is no one moment
   * (pages reach the device as they leave memory, each with the in-place
   * updates it got until then; a cache above the store, such as
   * @strata/collections', writes its changes back later still).
   */
  consistentRecovery?: boolean;
  logger?: Logger;
}

export interface RecoveryInfo {
  /** Checkpoint loaded, or null when the index was rebuilt from the log. */
  checkpoint: number | null;
  /** Log scanned (from the checkpoint, or from `begin`). */
  scannedFrom: number;
  scannedBytes: number;
  records: number;
  /** Where a torn or corrupt page cut the log off, or null. */
  cutAt: number | null;
  /**
   * Bytes of log after the recovered moment that were not replayed
   * (`consistentRecovery`: a crash's tail past the checkpoint or clean
   * close), kept on the device; 0 otherwise.
   */
  unreplayedBytes: number;
  /**
   * The end of the log the recovered index holds: the checkpoint's end plus
   * the replayed tail (a commit point's or clean close's end when that is
   * where the replay stopped). A caller that recorded a commit point checks
   * against it that the log up to the point was all there.
   */
  replayedTo: number;
  cutReason: string | null;
  /**
   * Runs of damaged pages in the middle of the log that were passed over
   * (bad pages followed by valid ones: not a torn tail). Their records are
   * lost; the log after them is kept and never written over.
   */
  skipped: readonly SkippedPages[];
  /** Checkpoints newer than the one loaded (or all, after a rebuild) that could not be used, and why. */
  passedOver: ReadonlyArray<{ seq: number; why: string }>;
  /**
   * Where the live-key count came from: the checkpoint (adjusted for the
   * replayed tail) or a recount of the whole log (no checkpoint, or one
   * without a count).
   */
  count: 'checkpoint' | 'recount';
  /** Time to load the checkpoint, replay or rebuild the index, and cut a torn tail. */
  ms: number;
  /**
   * Threads the index was rebuilt with (`rebuildThreads`): 2 when a worker
   * inserted while this thread read the log; 1 otherwise (and after a
   * checkpoint, whose tail is replayed on this thread).
   */
  rebuildThreads: 1 | 2;
  /**
   * Time of a whole-log recount of live keys made during open (a checkpoint
   * without a count). ~0 with a count in the checkpoint, and after a rebuild,
   * whose recount of the plain keys runs in the background after open
   * (`exactCount` waits for it).
   */
  countMs: number;
}

export interface CompactionResult {
  /** New begin address (everything below was dropped). */
  until: number;
  scanned: number;
  copied: number;
  dropped: number;
  bytesFreed: number;
  /**
   * A damaged page that stopped compaction short (`until` is at most that
   * page): it and everything after it were kept. Null when none.
   */
  damagedAt: number | null;
}

export interface StoreStats {
  log: HybridLogStats;
  index: HashIndexStats;
  ops: Record<string, number>;
  /**
   * logBytes: the log's memory budget; logResidentBytes: the part of it the
   * tail has reached (the rest was never touched, so it is not resident).
   */
  memory: { logBytes: number; logResidentBytes: number; indexBytes: number; rssBytes: number };
  device: DeviceStatsSnapshot;
  /** Bytes the log holds on the device (`tail - begin`). */
  logBytes: number;
  checkpoints: number;
  /** Log commits (`commitLog`) and commit points (`commit`) that completed since open. */
  logCommits: number;
  compactions: number;
  recovery: RecoveryInfo;
}

export const consoleLogger: Logger = { warn: (m) => console.warn(`[@strata/hlog] ${m}`) };
