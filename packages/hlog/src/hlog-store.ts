import { type Device, DirLock } from '@strata/io';
import { type CheckpointMeta, type CheckpointStore, sealMeta } from './checkpoint-store.js';
import { runCompaction } from './compaction.js';
import { HlogError } from './errors.js';
import type { IndexSnapshot } from './index-snapshot.js';
import type { SkippedPages } from './log-scan.js';
import { type RecoveredCount, type RecoveredLog, recoverLog } from './recovery.js';
import { K_ABSENT, K_EXPIRING, K_UNRESOLVED } from './step-codes.js';
import { StoreCore } from './store.js';
import {
  type CompactionResult,
  consoleLogger,
  DEFAULT_EXPIRY,
  type ExpiryRate,
  type Logger,
  type RecoveryInfo,
  type StoreOptions,
  type StoreStats,
} from './store-options.js';

export type {
  CompactionResult,
  ExpiryRate,
  Logger,
  RecoveryInfo,
  StoreOptions,
  StoreStats,
} from './store-options.js';

/** A tail key whose state at the checkpoint is read from its chain (restoreCount). */
interface ChainRead {
  key: Buffer;
  state: number;
  firstPrevious: number;
}

/** Tail keys whose chain reads are sorted by address together (a bound on their copies: ~10 MB). */
const CHAIN_READS_SORTED = 65536;
/** Chain reads in flight at once (their batch reads: at most ~20 MB). */
const CHAIN_READS_IN_FLIGHT = 4096;

/**
 * The embedded store: StoreCore (sync core + async facade) plus opening with
 * recovery, checkpoints, close, the active expiry cycle and compaction.
 *
 * ```ts
 * const store = await Store.open({ dir: './data', memory: 256 << 20 });
 * await store.set(key, value, { ttlMs: 60_000 });
 * const r = await store.get(key); // { status: 'found', value } | { status: 'notFound' }
 * await store.close(); // checkpoints
 * ```
 */
/** Bytes of the index snapshot copied per event-loop turn (about a millisecond of copying). */
const SNAPSHOT_SLICE_BYTES = 2 << 20;

/** Copies a checkpoint's index snapshot in slices, yielding between them. */
async function copyInSlices(snap: IndexSnapshot): Promise<void> {
  while (!snap.copySome(SNAPSHOT_SLICE_BYTES)) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The lock file of a store's directory. */
const STORE_LOCK = { file: 'store.lock', holder: 'open Store' } as const;

/** A checkpoint hook and what it runs once the fold-over ends (see onBeforeCheckpoint). */
interface CheckpointHook {
  readonly before: () => unknown;
  readonly after: (() => void) | null;
}

export class Store extends StoreCore {
  readonly recovery: RecoveryInfo;
  private readonly device: Device;
  private readonly ownsDevice: boolean;
  private readonly checkpoints: CheckpointStore | null;
  private readonly logger: Logger;
  private readonly checkpointOnClose: boolean;
  private lastSeq: number;
  /** The last checkpoint or commit point (`serially`): settles, never rejects. */
  private checkpointRun: Promise<void> | null = null;
  private compactionRun: Promise<CompactionResult> | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private expiryTimer: NodeJS.Timeout | null = null;
  private expiry: ExpiryRate | null = null;
  private checkpointsTaken = 0;
  private logCommits = 0;
  private checkpointHooks: CheckpointHook[] = [];
  private compactions = 0;
  /** False: the expiry timer drops nothing (Redis's DEBUG SET-ACTIVE-EXPIRE 0); reads still expire keys. */
  activeExpiry = true;
  /** The lock on `dir` (none for a store on a device alone). */
  private lock: DirLock | null = null;
  /**
   * A crash's unreplayed tail lies between the last checkpoint and this
   * session's log (consistentRecovery) until a checkpoint succeeds: a clean
   * close now would span it, so none is recorded.
   */
  private tailBehindNoCheckpoint = false;
  /** Crash tails left unreplayed below the log's end: each checkpoint carries those above `begin`. */
  private unreplayed: SkippedPages[];

  private constructor(options: StoreOptions, r: RecoveredLog) {
    super({ ...options, device: r.device }, r.log, r.index);
    this.device = r.device;
    this.ownsDevice = r.ownsDevice;
    this.checkpoints = r.checkpoints;
    this.recovery = r.recovery;
    this.lastSeq = r.lastSeq;
    this.unreplayed = r.unreplayed;
    this.logger = options.logger ?? consoleLogger;
    this.checkpointOnClose = options.checkpointOnClose ?? true;
    const expiry = options.expiry ?? DEFAULT_EXPIRY;
    if (expiry !== false) this.setExpiryRate(expiry);
    const compaction = options.compaction;
    if (compaction) {
      const t = setInterval(() => {
        if (this.compactionRun === null && this.logBytes() > compaction.maxLogBytes) {
          this.compact().catch((e: unknown) => this.logger.warn(`compaction failed: ${String(e)}`));
        }
      }, compaction.intervalMs ?? 50);
      t.unref();
      this.timers.push(t);
    }
  }

  /** The active expiry cycle's rate, or null when it is off (`expiry: false`, or closed). */
  get expiryRate(): ExpiryRate | null {
    return this.expiry;
  }

  /**
   * Replaces the active expiry cycle's rate (Redis's `hz` and
   * `active-expire-effort` change it live): from now on a slice of
   * `buckets` every `intervalMs`, continuing where the cycle was.
   */
  setExpiryRate(rate: ExpiryRate): void {
    if (this.closed) return;
    if (this.expiryTimer !== null) clearInterval(this.expiryTimer);
    const { intervalMs, buckets } = rate;
    const t = setInterval(() => {
      if (!this.activeExpiry) return;
      this.expireSlice(buckets);
      // Keys with an expiry whose records are anywhere, the device too.
      this.count.expireSome(buckets);
    }, intervalMs);
    t.unref();
    this.expiryTimer = t;
    this.expiry = { intervalMs, buckets };
  }

  private stopExpiry(): void {
    if (this.expiryTimer !== null) clearInterval(this.expiryTimer);
    this.expiryTimer = null;
    this.expiry = null;
  }

  /** Opens (creating or recovering) a store. */
  static async open(options: StoreOptions): Promise<Store> {
    // One open store per directory, in any process: a second one would
    // write its pages over the first one's, and its writes would be lost.
    const lock = options.dir === undefined ? null : DirLock.acquire(options.dir, STORE_LOCK);
    try {
      const r = await recoverLog(options);
      const store = new Store(options, r);
      store.lock = lock;
      await store.restoreCount(r.count);
      if (options.consistentRecovery === true && r.checkpoints !== null) {
        await store.checkpointRecoveredMoment(r.checkpoints);
      }
      return store;
    } catch (e) {
      lock?.release();
      throw e;
    }
  }

  /**
   * The live-key count after recovery: the checkpoint's, adjusted for every
   * key the replayed tail wrote (its state at the checkpoint is known from
   * the count's expiry map, or read from the chain below the tail), or a
   * recount of the whole log when the checkpoint has none.
   */
  private async restoreCount(count: RecoveredCount): Promise<void> {
    this.count.restore(count.snapshot);
    if (count.kind === 'recount') {
      const bg = count.background;
      // After a rebuild the plain keys are recounted while the store serves.
      if (bg !== undefined) this.count.addRecount(bg.start(), bg.provisional);
      return;
    }
    const begin = this.log.begin;
    const reads: ChainRead[] = [];
    let cursor = 0;
    do {
      cursor = count.tail.forSome(cursor, 256, (key, state, firstPrevious) => {
        const prev = this.count.hasExpiring(key)
          ? K_EXPIRING
          : firstPrevious === 0 || firstPrevious < begin
            ? K_ABSENT
            : K_UNRESOLVED;
        // A chain read keeps its key past this call: a copy of the view.
        if (prev === K_UNRESOLVED) reads.push({ key: Buffer.from(key), state, firstPrevious });
        else this.count.changed(key, prev, state, firstPrevious);
      });
      if (reads.length >= CHAIN_READS_SORTED) await this.readChains(reads);
    } while (cursor !== 0);
    await this.readChains(reads);
  }

  /**
   * The chain reads of `reads` (emptied), in address order and a bounded
   * number at a time. The tail's keys come in hash order, their old
   * versions anywhere in the log: taken in that order each read was its
   * own (105,000 overwritten keys: 105,000 reads, 1.3 s); sorted, the reads
   * of one turn lie close together, and the count's batch reads each span
   * of the log once for all of them (ResolutionBatch).
   */
  private async readChains(reads: ChainRead[]): Promise<void> {
    reads.sort((a, b) => a.firstPrevious - b.firstPrevious);
    for (let i = 0; i < reads.length; i += CHAIN_READS_IN_FLIGHT) {
      const end = Math.min(reads.length, i + CHAIN_READS_IN_FLIGHT);
      for (let j = i; j < end; j++) {
        const r = reads[j]!;
        this.count.changed(r.key, K_UNRESOLVED, r.state, r.firstPrevious);
      }
      await this.count.settle();
    }
    reads.length = 0;
  }

  /**
   * `consistentRecovery`: a new store records its empty start as a clean
   * close (a crash before its first checkpoint recovers it empty, rather
   * than from whatever of its log reached the device); a crash's tail left
   * unreplayed is put behind a checkpoint (the new log starts after that
   * tail, which no later recovery or clean close may span).
   */
  private async checkpointRecoveredMoment(checkpoints: CheckpointStore): Promise<void> {
    const r = this.recovery;
    if (r.checkpoint === null && r.scannedBytes === 0 && r.records === 0) {
      await checkpoints.writeCleanClose(this.log.begin);
      return;
    }
    if (r.unreplayedBytes > 0) {
      const at = r.checkpoint === null ? 'its empty start' : `checkpoint ${r.checkpoint}`;
      this.logger.warn(
        `${r.unreplayedBytes} bytes of log written after ${at} (or a clean close after it) ` +
          'before a crash were not replayed: the store is as of that one moment; ' +
          'they stay on the device until compaction',
      );
      this.tailBehindNoCheckpoint = true;
      try {
        await this.checkpoint();
      } catch (e) {
        // Served all the same (a full disk must not keep the data offline);
        // until a checkpoint succeeds a restart recovers this moment again.
        this.logger.warn(`the checkpoint after recovery failed: ${String(e)}`);
      }
    }
  }

  /**
   * Registers `fn` to run synchronously right before every checkpoint's
   * fold-over mark (explicit `checkpoint()`, `close()`, compaction's): a
   * layer that caches writes writes them back into the log there (with
   * `upsert`), so the checkpoint holds everything acknowledged before it.
   * Returns a function that unregisters it.
   *
   * The hooks run in the same synchronous step as the mark. If one of their
   * operations goes pending (a frame to flush first: backpressure), the
   * checkpoint waits for all of them, then runs every hook again and takes
   * the mark only after a round whose operations all completed at once; so
   * a hook may run several times per checkpoint and should write only what
   * changed since its last call. A hook that throws, or a write of its that
   * fails, fails the checkpoint. A hook may also return a promise of writes
   * it started earlier that are still in flight (a cache's background
   * write-back waiting for the device): it is awaited like a pending one.
   *
   * `afterFoldOver` runs once the fold-over ends: in the mark's own step,
   * right after it, or when the fold-over failed. A hook that keeps what it
   * wrote from changing until the mark (a cache holding keys) lets go there.
   */
  onBeforeCheckpoint(fn: () => unknown, afterFoldOver?: () => void): () => void {
    const hook: CheckpointHook = { before: fn, after: afterFoldOver ?? null };
    this.checkpointHooks.push(hook);
    return () => {
      const i = this.checkpointHooks.indexOf(hook);
      if (i >= 0) this.checkpointHooks.splice(i, 1);
    };
  }

  /** Runs the checkpoint hooks; the promises of their operations that went pending. */
  private runCheckpointHooks(): Promise<unknown>[] {
    const captured: Promise<unknown>[] = [];
    if (this.checkpointHooks.length === 0) return captured;
    this.pendingCapture = captured;
    try {
      for (const hook of this.checkpointHooks.slice()) {
        const inFlight = hook.before();
        if (inFlight instanceof Promise) captured.push(inFlight);
      }
    } finally {
      this.pendingCapture = null;
    }
    return captured;
  }

  /**
   * The fold-over of a checkpoint (and of a close without one): once no
   * count resolution is outstanding, runs the hooks and seals the tail in
   * one synchronous step, and returns the sealed point. Whatever made that
   * step impossible (a resolution, a hook's pending write, no free frame)
   * is awaited and the step tried again, hooks included. `atMark` runs in
   * that same step, right after the seal.
   */
  private async foldOver(atMark?: (point: number) => void): Promise<number> {
    try {
      return await this.foldOverSteps(atMark);
    } catch (e) {
      this.afterFoldOver();
      throw e;
    }
  }

  /** The hooks' `afterFoldOver`s (see onBeforeCheckpoint). */
  private afterFoldOver(): void {
    for (const hook of this.checkpointHooks.slice()) hook.after?.();
  }

  private async foldOverSteps(atMark?: (point: number) => void): Promise<number> {
    const log = this.log;
    for (;;) {
      // The count's background resolutions are not waited for here: the
      // checkpoint's count snapshot takes theirs as they finish
      // (KeyCount.markSnapshot). Waiting for a moment with none outstanding
      // never ended while blind writes of keys on the device kept coming.
      const pending = this.runCheckpointHooks();
      if (pending.length > 0) {
        await Promise.all(pending);
        continue;
      }
      const point = log.sealTail();
      if (point !== null) {
        atMark?.(point);
        this.afterFoldOver();
        return point;
      }
      await log.waitForProgress();
    }
  }

  private logBytes(): number {
    return this.log.tail - this.log.begin;
  }

  /**
   * Takes a checkpoint: folds the log over (everything before the tail page
   * becomes read-only), starts a copy-on-write snapshot of the index in the
   * same tick (copied in slices while the flush and a device sync run), then
   * writes index and markers. Resolves with
   * the checkpoint's sequence number (0 without a checkpoint store).
   */
  checkpoint(): Promise<number> {
    return this.serially(() => this.takeCheckpoint());
  }

  /**
   * Runs `step` (a checkpoint or a commit point) once the previous one has
   * settled, whatever its outcome: they fold the log over one at a time.
   */
  private serially<T>(step: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new HlogError('ERR_STORE_CLOSED', 'store is closed'));
    const run = (this.checkpointRun ?? Promise.resolve()).then(step);
    // The caller hears a failure through `run`; the chain itself never rejects.
    this.checkpointRun = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Makes every write so far durable and recoverable without an index
   * snapshot where it can: a commit point (`commit`), or a checkpoint when
   * the point may not be recorded (a crash's unreplayed tail lies behind
   * this session until a checkpoint succeeds). What an embedded store's
   * `sync` policy needs from each group commit.
   */
  async commitLog(): Promise<void> {
    if ((await this.commit()) === null) await this.checkpoint();
  }

  private async takeCheckpoint(): Promise<number> {
    const log = this.log;
    // Writes that failed earlier go first: a checkpoint needs the whole log.
    await log.retryWrites();
    const taken: { snap: IndexSnapshot | null; count: Promise<Uint8Array[]> | null } = {
      snap: null,
      count: null,
    };
    let begin = log.begin;
    const point = await this.foldOver(() => {
      begin = log.begin;
      // Same step as the fold-over: every entry points below the point, and
      // the count is that of the log below it. The index is only marked
      // here (copy-on-write); its chunks are copied in slices below.
      if (this.checkpoints === null) return;
      taken.snap = this.index.beginSnapshot();
      taken.count = this.count.markEncoded();
    });
    const { snap } = taken;
    let count: Uint8Array[] | null = null;
    try {
      // The copy runs beside the flush and the sync.
      const [counted] = await Promise.all([
        taken.count,
        snap === null ? undefined : copyInSlices(snap),
        log.waitFlushed(point).then(() => log.sync()),
      ]);
      count = counted;
    } finally {
      // A failed checkpoint stops the copy-on-write.
      snap?.release();
    }
    if (this.checkpoints === null || snap === null || count === null) return 0;
    const parts = snap.parts();
    parts.push(...count);
    const seq = ++this.lastSeq;
    const meta = await sealMeta(
      {
        version: 1,
        seq,
        epoch: log.epoch,
        begin,
        until: point,
        pageSize: log.pageSize,
        countBytes: count.reduce((n, p) => n + p.byteLength, 0),
        ...this.unreplayedAbove(begin),
        createdAt: Date.now(),
      },
      parts,
    );
    await this.checkpoints.write(seq, meta, parts);
    for (const old of await this.checkpoints.list()) {
      if (old < seq) await this.checkpoints.remove(old);
    }
    this.checkpointsTaken++;
    this.tailBehindNoCheckpoint = false;
    return seq;
  }

  /** The `unreplayed` field of a checkpoint whose log begins at `begin` (none once compaction passed them). */
  private unreplayedAbove(begin: number): Pick<CheckpointMeta, 'unreplayed'> {
    const P = this.log.pageSize;
    this.unreplayed = this.unreplayed.filter((r) => r.address + r.pages * P > begin);
    return this.unreplayed.length === 0 ? {} : { unreplayed: this.unreplayed };
  }

  /**
   * Takes a commit point: a checkpoint's fold-over (the hooks write every
   * dirty collection back, the tail is sealed, in one synchronous step)
   * without the index snapshot; the log below the point is flushed and
   * synced, then the point is recorded (the checkpoint store's clean-close
   * record). The log up to it is one moment: recovery with
   * `consistentRecovery` replays the log after the checkpoint up to it, and
   * a caller with a redo log of its own (the AOF) replays that log from the
   * same moment. Resolves with the point, or null when it may not be
   * recorded: a crash's unreplayed tail lies below this session's log until
   * a checkpoint succeeds (see `tailBehindNoCheckpoint`). Runs one at a time
   * with checkpoints. Costs one sealed page (at most a page of log address
   * space) and one device sync.
   */
  commit(): Promise<number | null> {
    return this.serially(async () => {
      const point = await this.takeCommit();
      if (point !== null) this.logCommits++;
      return point;
    });
  }

  /** A commit point's steps (`commit`; `close` without a checkpoint takes one too). */
  private async takeCommit(): Promise<number | null> {
    const log = this.log;
    await log.retryWrites();
    const point = await this.foldOver();
    await log.waitFlushed(point);
    await log.sync();
    // The log up to `point` is one moment (the fold-over), all on the device.
    if (this.tailBehindNoCheckpoint) return null;
    await this.checkpoints?.writeCleanClose(point);
    return point;
  }

  /**
   * Compacts the log below `until` (default: every whole segment below
   * `head`): live records are copied to the tail, the rest dropped, a
   * checkpoint is taken, then those segments are truncated. Runs in the
   * background in page-sized slices while other operations go on.
   */
  compact(until?: number): Promise<CompactionResult> {
    if (this.compactionRun !== null) return this.compactionRun;
    const run = this.runCompaction(until).finally(() => {
      this.compactionRun = null;
    });
    this.compactionRun = run;
    return run;
  }

  private async runCompaction(until?: number): Promise<CompactionResult> {
    const result = await runCompaction(
      {
        log: this.log,
        copyIfLive: (space, address) => this.copyIfLive(space, address),
        relocateBlobIfLive: (key, address) => this.relocateBlobIfLive(key, address),
        readBlobKey: (address) => this.readBlobKey(address),
        checkpoint: () => this.checkpoint(),
        damage: this.damage,
      },
      until,
    );
    if (result.bytesFreed > 0) this.compactions++;
    return result;
  }

  stats(): StoreStats {
    const core = this.coreStats();
    return {
      ...core,
      memory: {
        logBytes: core.log.memoryBytes,
        logResidentBytes: core.log.residentBytes,
        indexBytes: core.index.bytes,
        rssBytes: process.memoryUsage.rss(),
      },
      device: this.device.stats(),
      logBytes: this.logBytes(),
      checkpoints: this.checkpointsTaken,
      logCommits: this.logCommits,
      compactions: this.compactions,
      recovery: this.recovery,
    };
  }

  /**
   * Checkpoints (when configured), flushes and closes. If the log cannot be
   * persisted (a device failure: `writeError`) it rejects and the store
   * stays open, so that the caller can `retryWrites()` and close again.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const t of this.timers) clearInterval(t);
    this.stopExpiry();
    await this.settleCount();
    if (this.compactionRun !== null) await this.compactionRun.catch(() => undefined);
    if (this.log.failure === undefined) {
      if (this.checkpointOnClose && this.checkpoints !== null) await this.checkpoint();
      // A commit point (after any checkpoint or commit still running).
      else await this.serially(() => this.takeCommit());
    }
    this.closed = true;
    if (this.ownsDevice) await this.device.close();
    this.lock?.release();
  }

  /**
   * Simulates a crash (tests): stops timers, flushing and operations without
   * writing anything more, and closes a device the store opened itself.
   */
  async abandon(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.stopExpiry();
    this.log.halt();
    await this.settleCount();
    this.closed = true;
    if (this.ownsDevice) await this.device.close();
    // As after a crash, the lock file stays: the next open takes it over.
    this.lock?.forget();
  }
}
