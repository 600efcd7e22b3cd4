import { mkdir } from 'node:fs/promises';
import type { AofPosition, AppendOnlyFile, CommitEntry } from '@strata/aof';
import {
  FileCheckpointStore,
  foldOverOnOwnTurn,
  type SkippedPages,
  Store,
  type StoreCore,
  type StoreOptions,
} from '@strata/hlog';
import { DEFAULT_SEGMENT_SIZE, type Device, FileDevice } from '@strata/io';
import { DatabaseDirectories, type DatabaseProvider, describeSize } from '@strata/resp';
import { checkAofCheckpoints, type MissingCheckpointPolicy } from './aof-checkpoint-guard.js';
import { AofCheckpointStore } from './aof-checkpoint-store.js';
import { ClippedDevice } from './clipped-device.js';
import { commitDue, type Mark, markAfterCheckpoint, markOf } from './commit-marks.js';
import { logCorruptRecords } from './corrupt-record-log.js';
import { type PersistenceLogger, seconds } from './persistence-logger.js';
import { ReadErrorLogDevice } from './read-error-device.js';
import { SaveStatus } from './save-status.js';
import { logWriteErrors } from './write-error-log.js';

export type DatabaseStoreOptions = Omit<
  StoreOptions,
  'dir' | 'device' | 'logger' | 'checkpointOnClose' | 'checkpoints'
>;

export interface DatabasesOptions {
  /** Database n lives in `<dir>/<n>`. */
  readonly dir: string;
  readonly count: number;
  readonly store: DatabaseStoreOptions;
  readonly logger: PersistenceLogger;
  /** Bytes of decoded collections each database caches (default: half its log memory). */
  readonly collectionMemory?: number;
  /** With the AOF on, a database whose checkpoint is missing under its log (`aof-missing-checkpoint`). */
  readonly missingCheckpoint?: MissingCheckpointPolicy;
  /** With the AOF on, the stores' clock (an AofClock: what AOF records are stamped with, replay sets it). */
  readonly aofClock?: () => number;
}

/** The pieces of an hlog store that the AOF coordinates (device and checkpoints). */
interface AofStoreParts {
  device: Device;
  checkpoints: AofCheckpointStore;
  /** The end of the checkpoint (or commit point) the AOF names: the log below it was synced. */
  durableUntil?: number;
}

/** Where a database's recovery started and what it read (INFO persistence, the start-up log). */
interface RecoverySource {
  /** `commit`: the log was read up to a commit point (the AOF replays from its position). */
  readonly to: 'checkpoint' | 'commit' | 'log';
  readonly records: number;
  readonly bytes: number;
  /** Time to load the checkpoint and read the log (hlog's RecoveryInfo.ms). */
  readonly ms: number;
}

/** What a database's recovery passed over (hlog's RecoveryInfo). */
interface RecoveryDamage {
  skipped: readonly SkippedPages[];
  unusableCheckpoints: number;
}

/** An AOF file this large is rotated at a commit point (see Databases.commit). */
const ROTATE_AT_COMMIT_BYTES = 64 * 1024 * 1024;

/** Entries `a` and `b` of `map` trade places (a missing one stays missing). */
function swapEntries<V>(map: Map<number, V>, a: number, b: number): void {
  const va = map.get(a);
  const vb = map.get(b);
  if (vb === undefined) map.delete(a);
  else map.set(a, vb);
  if (va === undefined) map.delete(b);
  else map.set(b, va);
}

/**
 * strata-server's databases: one hlog Store per database in `<dir>/<n>`,
 * opened on first use (the same layout as @strata/resp's storeDatabases,
 * SWAPDB's record included: `DatabaseDirectories`, so either reads the
 * other's data), with a log line for every open, recovery,
 * checkpoint and close, and the change tracking periodic checkpoints need.
 */
export class Databases implements DatabaseProvider {
  readonly count: number;
  /** The checkpoints' outcomes (INFO persistence's rdb_* fields). */
  readonly saveStatus = new SaveStatus();
  private readonly marks = new Map<number, Mark>();
  /** Databases whose last checkpoint failed (a repeat is logged at verbose level). */
  private readonly failingSaves = new Set<number>();
  /** Checkpoints in progress, so FLUSHDB and close wait for them. */
  private readonly saving = new Map<number, Promise<void>>();
  /** The devices the stores use (opened here, so the store does not own them). */
  private readonly devices = new Map<number, Device>();
  private aof: AppendOnlyFile | null = null;
  private readonly dirs: DatabaseDirectories;
  /** What each open database's recovery could not use: INFO persistence's recovery_* fields. */
  private readonly damage = new Map<number, RecoveryDamage>();
  /** Log memory of a database opened from now on (CONFIG SET maxmemory changes it). */
  private memory: number | undefined;
  /** Per database, what it had at its last commit point or checkpoint (PeriodicCommits). */
  private readonly commitMarks = new Map<number, Mark>();
  /** Databases that recovered their log up to the AOF's commit point: the AOF replays from its position. */
  private readonly resume = new Map<number, AofPosition>();
  /** Databases whose commit point could not be read back: reopened at the checkpoint. */
  private readonly pastCommit = new Set<number>();
  private readonly sources = new Map<number, RecoverySource>();
  /** Commit points recorded, and those that failed (INFO persistence). */
  readonly commitStatus = { taken: 0, failed: 0, lastAt: 0 };

  constructor(private readonly options: DatabasesOptions) {
    this.count = options.count;
    this.dirs = new DatabaseDirectories(options.dir);
    this.memory = options.store.memory;
    const memory = options.collectionMemory;
    if (memory !== undefined) this.collectionBudget = () => memory;
  }

  /** Set from `collectionMemory`; without it the keyspace's default applies. */
  readonly collectionBudget?: (index: number, store: StoreCore) => number;

  private path(index: number): Promise<string> {
    return this.dirs.pathOf(index);
  }

  /**
   * The log memory of the databases opened from now on: on first use, and
   * a FLUSHDB's or FLUSHALL's new store. Open stores are changed by their
   * own `setMemory` (CONFIG SET maxmemory does both: live-parameters.ts).
   */
  setMemory(bytes: number): void {
    this.memory = bytes;
  }

  /**
   * SWAPDB: the two databases trade directories (recorded before this
   * resolves, so a restart opens each index on the other's data) and
   * their change tracking (a checkpoint in flight stays under its index:
   * FLUSHDB and close only wait for it). Not with the AOF on: its positions and
   * checkpoints are per index (strata-server refuses SWAPDB then).
   */
  async swap(a: number, b: number): Promise<void> {
    if (this.aof !== null) throw new Error('SWAPDB is not supported while appendonly is yes');
    await this.dirs.swap(a, b);
    swapEntries(this.marks, a, b);
    // Each store keeps its device: it follows the store to its new index.
    swapEntries(this.devices, a, b);
  }

  /**
   * Turns the AOF coordination on (null: off) for the databases opened
   * from now on: each store opens at the checkpoint the AOF names and
   * reports every checkpoint it takes to the AOF, which records its
   * position. At start, before any database opens; live (CONFIG SET
   * appendonly), before every open database is opened again.
   */
  useAof(aof: AppendOnlyFile | null): void {
    this.aof = aof;
  }

  /** Before the AOF replays: no database holds a log without the checkpoint the AOF names. */
  checkAofCheckpoints(): Promise<void> {
    if (this.aof === null) return Promise.resolve();
    const { store, logger } = this.options;
    return checkAofCheckpoints(this.aof, this.count, (i) => this.path(i), {
      policy: this.options.missingCheckpoint ?? 'refuse',
      pageSize: store.pageSize ?? 1 << 20,
      segmentSize: store.segmentSize ?? DEFAULT_SEGMENT_SIZE,
      warn: (m) => logger.warning(m),
    });
  }

  open(index: number): Promise<StoreCore> {
    return this.openStore(index, false);
  }

  /** `fresh`: a new, empty database (FLUSHDB) whatever the AOF's entry says. */
  private async openStore(index: number, fresh: boolean): Promise<StoreCore> {
    const { logger } = this.options;
    const dir = await this.path(index);
    await mkdir(dir, { recursive: true });
    let store: Store;
    let commit: CommitEntry | undefined;
    // With the AOF on, a database it has no entry for gets one: a checkpoint right after opening.
    const adopt = this.aof !== null && (fresh || this.aof.checkpointOf(index) === undefined);
    try {
      // Its reads' failures are logged once (each command meeting one answers its error).
      const file = new ReadErrorLogDevice(this.logDevice(dir), `DB ${index}`, dir, logger);
      const { commit: clippedAt, ...parts } =
        this.aof === null
          ? { device: file as Device, commit: undefined }
          : await this.aofParts(index, dir, fresh, file);
      commit = clippedAt;
      this.devices.set(index, parts.device);
      store = await Store.open({
        ...this.options.store,
        ...(this.memory === undefined ? {} : { memory: this.memory }),
        ...(this.aof !== null && this.options.aofClock !== undefined
          ? { clock: this.options.aofClock }
          : {}),
        dir,
        ...parts,
        // Without the AOF a crash recovers one moment: the last checkpoint
        // (or clean close), never a tail of strings without the collection
        // changes the object cache held. With the AOF's entry, the device is
        // clipped at its checkpoint and the AOF replays the rest, onto an
        // empty store when that checkpoint is gone (no checkpoint at open
        // then: it would move the AOF's position past what must replay).
        consistentRecovery: this.aof === null || adopt,
        // Shutdown checkpoints explicitly, to log it and to know the result.
        checkpointOnClose: false,
        logger: { warn: (m) => logger.warning(`DB ${index}: ${m}`) },
      });
    } catch (e) {
      logger.warning(`Failed to open DB ${index} in ${dir}: ${(e as Error).message}`);
      await this.closeDevice(index).catch(() => undefined);
      throw e;
    }
    if (commit !== undefined) {
      const point = commit.mark * (this.options.store.pageSize ?? 1 << 20);
      const r = store.recovery;
      if (r.replayedTo < point || r.skipped.length > 0 || r.cutAt !== null) {
        // The log up to the commit point is not all there: the AOF cannot
        // resume at its position. Opened again at the checkpoint (the AOF
        // replays everything after it, as before commit points), and the
        // commit point dropped first: the new session writes over its log.
        logger.warning(
          `DB ${index}: the log could not be read up to its commit point at ${point} ` +
            `(read to ${r.replayedTo}${r.cutAt === null ? '' : `, cut at ${r.cutAt}: ${r.cutReason}`}` +
            `${r.skipped.length > 0 ? ', damaged pages skipped' : ''}); opening at checkpoint ` +
            `${r.checkpoint} instead, and the AOF replays every command after it`,
        );
        await store.abandon();
        await this.closeDevice(index);
        this.pastCommit.add(index);
        await this.aof!.forgetCommit(index);
        return this.openStore(index, fresh);
      }
      this.resume.set(index, commit.position);
    } else this.resume.delete(index);
    logWriteErrors(store, `DB ${index}`, dir, logger);
    logCorruptRecords(store, `DB ${index}`, dir, logger);
    // Its AOF records carry the log page each change saw: no fold-over between a change and its record.
    if (this.aof !== null) store.onBeforeCheckpoint(foldOverOnOwnTurn());
    const r = store.recovery;
    this.damage.set(index, { skipped: r.skipped, unusableCheckpoints: r.passedOver.length });
    if (r.checkpoint === null && r.records === 0 && r.scannedBytes === 0) {
      logger.notice(`DB ${index} created in ${dir}`);
    } else {
      const from =
        r.checkpoint === null ? 'no checkpoint, index rebuilt' : `checkpoint ${r.checkpoint}`;
      const pages = r.skipped.reduce((n, run) => n + run.pages, 0);
      const to =
        commit !== undefined
          ? `, log read up to the commit point at ${r.replayedTo}`
          : r.unreplayedBytes > 0 || r.replayedTo > r.scannedFrom
            ? `, log read up to ${r.replayedTo}`
            : '';
      logger.notice(
        `DB ${index} loaded from disk: ${from}${to}, ${r.records} records replayed from the log ` +
          `(${describeSize(r.scannedBytes)} of log) in ${seconds(r.ms)} seconds` +
          (pages > 0 ? `, ${pages} damaged page${pages === 1 ? '' : 's'} skipped` : ''),
      );
    }
    this.sources.set(index, {
      to: commit !== undefined ? 'commit' : r.replayedTo > r.scannedFrom ? 'log' : 'checkpoint',
      records: r.records,
      bytes: r.scannedBytes,
      ms: r.ms,
    });
    const s = store.stats();
    logger.verbose(
      `DB ${index}: log ${describeSize(s.logBytes)} on disk, ${s.index.entries} index entries, ` +
        `${describeSize(s.memory.logBytes)} of log memory`,
    );
    const opened = markOf(store);
    this.marks.set(index, opened);
    this.commitMarks.set(index, opened);
    if (adopt) {
      // The AOF's entry for this database: a checkpoint of what it holds now,
      // before any command runs on it.
      await this.save(index, store);
    }
    return store;
  }

  /** The segment files of a database's log, as hlog's Store would open them itself. */
  private logDevice(dir: string): FileDevice {
    return new FileDevice({
      dir,
      name: 'log',
      segmentSize: this.options.store.segmentSize ?? DEFAULT_SEGMENT_SIZE,
    });
  }

  private async aofParts(
    index: number,
    dir: string,
    fresh: boolean,
    file: Device,
  ): Promise<AofStoreParts & { commit: CommitEntry | undefined }> {
    const aof = this.aof!;
    const { logger } = this.options;
    const entry = fresh ? undefined : aof.checkpointOf(index);
    const inner = new FileCheckpointStore(dir);
    let device: Device = file;
    let approved: number | null = null;
    let durableUntil: number | undefined;
    let commit: CommitEntry | undefined;
    if (entry !== undefined) {
      // Other checkpoints stay until a newer one is recorded in the AOF
      // (AofCheckpointStore.write removes them then): nothing is deleted
      // before this run's state is durable.
      const present = (await inner.list()).includes(entry.id);
      if (!present) {
        // checkAofCheckpoints let it through: no log is left (FLUSHDB's crash
        // window), or aof-missing-checkpoint is rebuild.
        logger.warning(
          file.endAddress === 0
            ? `DB ${index}: checkpoint ${entry.id} named by the AOF is gone and no log is left ` +
                '(FLUSHDB before a crash); the database starts empty and the AOF replays onto it'
            : `DB ${index}: checkpoint ${entry.id} named by the AOF is gone; rebuilding the index ` +
                "from the log up to that checkpoint's end, then the AOF replays onto it",
        );
      }
      approved = present ? entry.id : null;
      const pageSize = this.options.store.pageSize ?? 1 << 20;
      // The log up to the checkpoint's end is its state (a rebuild reads
      // exactly that), synced before the checkpoint was recorded: a bad page
      // there is damage to skip, never a torn tail to write over. With a
      // commit point after it, the log up to the commit point is one moment
      // too, synced before the AOF recorded it: read up to there (the AOF
      // resumes at the commit's position; openStore checks it was all read).
      commit =
        present && !this.pastCommit.has(index) && entry.commit !== undefined
          ? entry.commit
          : undefined;
      durableUntil = (commit?.mark ?? entry.mark) * pageSize;
      device = new ClippedDevice(file, durableUntil);
    }
    aof.resetMarks(index);
    const checkpoints = new AofCheckpointStore(
      inner,
      approved,
      entry === undefined,
      async (seq, meta) => {
        await aof.recordCheckpoint(index, seq, meta.until / meta.pageSize);
      },
    );
    // `commit`: the commit point the device is clipped at, if any: the store must read its log up to it.
    return { device, checkpoints, ...(durableUntil === undefined ? {} : { durableUntil }), commit };
  }

  private async closeDevice(index: number): Promise<void> {
    const device = this.devices.get(index);
    this.devices.delete(index);
    if (device !== undefined && !device.closed) await device.close();
  }

  async flush(
    index: number,
    store: StoreCore,
    lazily?: (removed: Promise<void>) => void,
  ): Promise<StoreCore> {
    await this.saving.get(index)?.catch(() => undefined);
    // Nothing of the old log is kept, so there is nothing to checkpoint.
    if (store instanceof Store) await store.abandon();
    await this.closeDevice(index);
    // FLUSHALL ASYNC: renamed aside, removed after the reply (DatabaseDirectories.empty).
    await this.dirs.empty(index, lazily);
    this.options.logger.verbose(`DB ${index} flushed`);
    return this.openStore(index, true);
  }

  /**
   * DEBUG RELOAD: the store is dropped without writing anything more and
   * the database opened again from disk, as after a crash: from its last
   * checkpoint (with the AOF on, the one the AOF names) and the log since.
   */
  async reopen(index: number, store: StoreCore): Promise<StoreCore> {
    await this.saving.get(index)?.catch(() => undefined);
    if (store instanceof Store) await store.abandon();
    await this.closeDevice(index);
    this.options.logger.verbose(`DB ${index} dropped from memory by DEBUG RELOAD`);
    return this.openStore(index, false);
  }

  /** The databases with a directory on disk (DEBUG DIGEST opens them). */
  stored(): Promise<readonly number[]> {
    return this.dirs.stored(this.count);
  }

  /**
   * Runs `work` on database `index` after its checkpoint, commit point or
   * compaction in flight (never beside one), tracked as the one in flight
   * until it settles (FLUSHDB, DEBUG RELOAD and close wait for it).
   */
  private afterSaving(index: number, work: () => Promise<void>): Promise<void> {
    const previous = this.saving.get(index);
    const tracked: Promise<void> = (async () => {
      await previous?.catch(() => undefined);
      await work();
    })().finally(() => {
      if (this.saving.get(index) === tracked) this.saving.delete(index);
    });
    this.saving.set(index, tracked);
    return tracked;
  }

  /** Takes a checkpoint of one database (SAVE, BGSAVE, periodic, shutdown). */
  save(index: number, store: StoreCore): Promise<void> {
    if (!(store instanceof Store)) return Promise.resolve();
    return this.afterSaving(index, async () => {
      const done = this.saveStatus.begin();
      try {
        // Commands from now on go to a new AOF file, so the cut after this
        // checkpoint can drop the old one.
        await this.aof?.rotate();
        await this.checkpoint(index, store);
        this.failingSaves.delete(index);
        done(true);
      } catch (e) {
        // Retried every 5 seconds while it fails: the first failure is the warning.
        const again = this.failingSaves.has(index);
        this.failingSaves.add(index);
        const line = `DB ${index} checkpoint failed: ${(e as Error).message}`;
        if (again) this.options.logger.verbose(`${line} (again)`);
        else this.options.logger.warning(line);
        done(false);
        throw e;
      }
      const removed = (await this.aof?.cut()) ?? [];
      if (removed.length > 0) {
        this.options.logger.verbose(
          `AOF cut after DB ${index}'s checkpoint: removed file${removed.length === 1 ? '' : 's'} ${removed.join(', ')}`,
        );
      }
    });
  }

  private async checkpoint(index: number, store: Store): Promise<void> {
    const { logger } = this.options;
    const mark = markOf(store);
    const started = performance.now();
    const seq = await store.checkpoint();
    const after = markAfterCheckpoint(mark, markOf(store));
    this.marks.set(index, after);
    this.commitMarks.set(index, after);
    logger.notice(
      `DB ${index} saved on disk: checkpoint ${seq}, log ${describeSize(store.stats().logBytes)}, ` +
        `in ${seconds(performance.now() - started)} seconds`,
    );
  }

  /**
   * A commit point of one database (PeriodicCommits): the store's log is
   * folded over (dirty collections written back), flushed and synced, and
   * the point recorded, in the store's directory and, with the AOF, in its
   * manifest with the position of the first command after it (the AOF is
   * synced through that position first). Runs after a checkpoint or
   * compaction in flight, never beside one. Failures are counted and
   * logged once; the next round tries again.
   */
  commit(index: number, store: StoreCore): Promise<void> {
    if (!(store instanceof Store)) return Promise.resolve();
    return this.afterSaving(index, async () => {
      const mark = markOf(store);
      try {
        // A large AOF file starts a new one first: the commands after this
        // point then go there, and a restart that resumes here does not
        // read (and skip) the old file's commands at all.
        if (this.aof !== null && this.aof.info().currentSize >= ROTATE_AT_COMMIT_BYTES) {
          await this.aof.rotate();
        }
        const point = await store.commit();
        if (point !== null && this.aof !== null) {
          const recorded = await this.aof.recordCommit(index, point / store.log.pageSize);
          if (recorded !== null) this.pastCommit.delete(index);
        }
        this.commitMarks.set(index, { ...mark, tail: store.stats().log.tail });
        this.commitStatus.taken++;
        this.commitStatus.lastAt = Date.now();
      } catch (e) {
        if (this.commitStatus.failed++ === 0) {
          this.options.logger.warning(`DB ${index} commit point failed: ${(e as Error).message}`);
        } else {
          this.options.logger.verbose(`DB ${index} commit point failed: ${(e as Error).message}`);
        }
      }
    });
  }

  /**
   * Whether `store` is due a commit point: it changed since its last commit
   * point or checkpoint (see changesSinceCheckpoint). With the AOF on, only
   * once its log has grown by a quarter page since: the AOF holds every
   * change anyway, and the point only bounds what it replays, so a trickle
   * of writes does not seal a page (a page of log address space) each round.
   */
  commitDue(index: number, store: StoreCore): boolean {
    if (!(store instanceof Store)) return false;
    return commitDue(
      this.commitMarks.get(index),
      markOf(store),
      this.aof !== null,
      store.log.pageSize,
    );
  }

  /**
   * Per database, where the AOF's replay starts instead of its checkpoint's
   * position: the databases opened so far whose log was read up to their
   * commit point.
   */
  resumePositions(): ReadonlyMap<number, AofPosition> {
    return this.resume;
  }

  /**
   * Compacts one database's log (live records of the oldest segments copied
   * to the tail, a checkpoint, the segments freed), logged like a
   * checkpoint. Runs in the background in page-sized slices; FLUSHDB and
   * close wait for it as for a checkpoint.
   */
  compact(index: number, store: StoreCore): Promise<void> {
    if (!(store instanceof Store)) return Promise.resolve();
    const { logger } = this.options;
    return this.afterSaving(index, async () => {
      const before = store.stats().logBytes;
      logger.notice(`DB ${index}: log ${describeSize(before)} on disk, compacting...`);
      await this.aof?.rotate();
      const started = performance.now();
      try {
        const r = await store.compact();
        logger.notice(
          `DB ${index} compacted: ${r.copied} records copied, ${r.dropped} dropped, ` +
            `${describeSize(r.bytesFreed)} freed, log ${describeSize(store.stats().logBytes)}, ` +
            `in ${seconds(performance.now() - started)} seconds` +
            (r.damagedAt === null
              ? ''
              : `; stopped before the damaged page at log address ${r.damagedAt}, kept with all after it`),
        );
      } catch (e) {
        logger.warning(`DB ${index} compaction failed: ${(e as Error).message}`);
        throw e;
      }
      await this.aof?.cut();
    });
  }

  /**
   * INFO persistence's recovery fields (strata's own): the damaged pages the
   * open databases' recoveries skipped (`db@address+pages`), and the
   * checkpoints they could not use.
   */
  recoveryInfoLines(): string[] {
    let pages = 0;
    let unusable = 0;
    const runs: string[] = [];
    for (const [index, d] of [...this.damage].sort((a, b) => a[0] - b[0])) {
      unusable += d.unusableCheckpoints;
      for (const run of d.skipped) {
        pages += run.pages;
        runs.push(`${index}@${run.address}+${run.pages}`);
      }
    }
    let records = 0;
    let bytes = 0;
    let ms = 0;
    const from: string[] = [];
    for (const [index, src] of [...this.sources].sort((a, b) => a[0] - b[0])) {
      records += src.records;
      bytes += src.bytes;
      ms += src.ms;
      from.push(`${index}=${src.to}`);
    }
    return [
      // Strata's own: what the open databases' recoveries read from their logs
      // past their checkpoints, and to where (a commit point, the log's end
      // or a clean close, or the checkpoint alone).
      `recovery_log_records:${records}`,
      `recovery_log_bytes:${bytes}`,
      `recovery_log_ms:${Math.round(ms)}`,
      `recovery_log_to:${from.join(',')}`,
      `commit_points:${this.commitStatus.taken}`,
      `commit_points_failed:${this.commitStatus.failed}`,
      `last_commit_time:${Math.floor(this.commitStatus.lastAt / 1000)}`,
      `recovery_skipped_pages:${pages}`,
      `recovery_skipped_ranges:${runs.join(',')}`,
      `recovery_unusable_checkpoints:${unusable}`,
    ];
  }

  /** Bytes of log `store` holds on disk. */
  logBytes(store: StoreCore): number {
    return store instanceof Store ? store.stats().logBytes : 0;
  }

  /** A checkpoint or compaction of the database is running. */
  busy(index: number): boolean {
    return this.saving.has(index);
  }

  /**
   * Writes to `store` since its last checkpoint, or null when nothing
   * changed. (An EXPIRE that rewrites a record's expiry in place moves no
   * counter; the next checkpoint after any other change, or shutdown, has it.)
   */
  changesSinceCheckpoint(index: number, store: StoreCore): number | null {
    if (!(store instanceof Store)) return null;
    const before = this.marks.get(index);
    const now = markOf(store);
    if (before !== undefined && before.tail === now.tail && before.counters === now.counters) {
      return null;
    }
    return now.writes - (before?.writes ?? 0);
  }

  /**
   * Whether close checkpoints (shutdown's `nosave` turns it off: the log is
   * still flushed and synced, and the next start replays its tail).
   */
  checkpointOnClose = true;

  /** Shutdown: checkpoints (unless the log failed, or `checkpointOnClose` is off), then closes. */
  async close(index: number, store: StoreCore): Promise<void> {
    await this.saving.get(index)?.catch(() => undefined);
    if (store instanceof Store) {
      let error: unknown = null;
      try {
        if (this.checkpointOnClose) await this.save(index, store);
      } catch (e) {
        error = e;
      }
      await store.close();
      await this.closeDevice(index);
      this.marks.delete(index);
      if (error !== null) throw error;
    }
  }
}
