import {
  DEFAULT_SEGMENT_SIZE,
  type Device,
  type DeviceStatsSnapshot,
  FileDevice,
} from '@strata/io';
import type { ReadMode } from '@strata/pagebuf';
import {
  type CheckpointMeta,
  type CheckpointStore,
  FileCheckpointStore,
  sealMeta,
} from './checkpoint-store.js';
import { HlogError } from './errors.js';
import { HashIndex, type HashIndexStats } from './hash-index.js';
import { HybridLog, type HybridLogStats } from './hybrid-log.js';
import { IndexRebuilder } from './index-rebuild.js';
import { hashBytes } from './key-hash.js';
import { scanLog } from './log-scan.js';
import {
  createRecordSpace,
  expiresAtOf,
  flagsOf,
  keyLengthOf,
  keyOffsetOf,
  RecordFlag,
  slotSize,
} from './record-layout.js';
import { StoreCore, type StoreCoreOptions } from './store.js';

export interface Logger {
  warn(message: string): void;
}

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
  /** Active expiry: a slice of `buckets` index buckets every `intervalMs`. Default 100 ms, 1024. */
  expiry?: { intervalMs: number; buckets: number } | false;
  /** Background compaction once the log exceeds `maxLogBytes`. Default off. */
  compaction?: { maxLogBytes: number; intervalMs?: number } | false;
  /** Checkpoint on close (when there is a checkpoint store). Default true. */
  checkpointOnClose?: boolean;
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
  cutReason: string | null;
  ms: number;
}

export interface CompactionResult {
  /** New begin address (everything below was dropped). */
  until: number;
  scanned: number;
  copied: number;
  dropped: number;
  bytesFreed: number;
}

export interface StoreStats {
  log: HybridLogStats;
  index: HashIndexStats;
  ops: Record<string, number>;
  memory: { logBytes: number; indexBytes: number; rssBytes: number };
  device: DeviceStatsSnapshot;
  /** Bytes the log holds on the device (`tail - begin`). */
  logBytes: number;
  checkpoints: number;
  compactions: number;
  recovery: RecoveryInfo;
}

function floorPowerOfTwo(n: number): number {
  return n < 1 ? 1 : 2 ** Math.floor(Math.log2(n));
}

const consoleLogger: Logger = { warn: (m) => console.warn(`[@strata/hlog] ${m}`) };

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
export class Store extends StoreCore {
  readonly recovery: RecoveryInfo;
  private readonly device: Device;
  private readonly ownsDevice: boolean;
  private readonly checkpoints: CheckpointStore | null;
  private readonly logger: Logger;
  private readonly checkpointOnClose: boolean;
  private lastSeq: number;
  private checkpointRun: Promise<number> | null = null;
  private compactionRun: Promise<CompactionResult> | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private checkpointsTaken = 0;
  private compactions = 0;

  private constructor(
    options: StoreOptions,
    device: Device,
    ownsDevice: boolean,
    checkpoints: CheckpointStore | null,
    log: HybridLog,
    index: HashIndex,
    recovery: RecoveryInfo,
    lastSeq: number,
  ) {
    super({ ...options, device }, log, index);
    this.device = device;
    this.ownsDevice = ownsDevice;
    this.checkpoints = checkpoints;
    this.recovery = recovery;
    this.lastSeq = lastSeq;
    this.logger = options.logger ?? consoleLogger;
    this.checkpointOnClose = options.checkpointOnClose ?? true;
    const expiry = options.expiry ?? { intervalMs: 100, buckets: 1024 };
    if (expiry !== false) {
      const t = setInterval(() => this.expireSlice(expiry.buckets), expiry.intervalMs);
      t.unref();
      this.timers.push(t);
    }
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

  /** Opens (creating or recovering) a store. */
  static async open(options: StoreOptions): Promise<Store> {
    if (options.device === undefined && options.dir === undefined) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'open needs a dir or a device');
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
    const lastSeq = seqs[0] ?? 0;

    // 1. The newest checkpoint that verifies, unless told to rebuild.
    let index: HashIndex | null = null;
    let meta: CheckpointMeta | null = null;
    const deviceBegin = Math.floor(device.beginAddress / pageSize) * pageSize;
    if (checkpoints !== null && options.rebuildIndex !== true) {
      for (const seq of seqs) {
        const c = await checkpoints.read(seq);
        if (c === null) {
          logger.warn(`checkpoint ${seq} is incomplete or corrupt; trying an older one`);
          continue;
        }
        if (c.meta.pageSize !== pageSize) {
          throw new HlogError(
            'ERR_INVALID_ARGUMENT',
            `the log was written with pageSize ${c.meta.pageSize}, not ${pageSize}`,
          );
        }
        if (c.meta.until < deviceBegin) continue;
        try {
          index = HashIndex.fromSnapshot(c.index);
          meta = c.meta;
          break;
        } catch (e) {
          logger.warn(`checkpoint ${seq}: ${String(e)}`);
        }
      }
    }
    const begin = Math.max(deviceBegin, meta?.begin ?? 0);
    const from = meta?.until ?? begin;
    // A rebuild sizes the index for the log it is about to read (at most one
    // doubling's worth early), so it does not split its way up record by record.
    const configured = options.indexBuckets ?? 1 << 16;
    const estimate = Math.floor((device.endAddress - begin) / 128 / 5.5);
    index ??= new HashIndex({
      initialBuckets: Math.max(configured, floorPowerOfTwo(Math.min(estimate, 1 << 26))),
    });

    // 2. Replay the log after it (or the whole log): newest record wins.
    const rebuilder = new IndexRebuilder(index);
    const scan = await scanLog({
      device,
      pageSize,
      from,
      minEpoch: meta?.epoch ?? 0,
      // Without a checkpoint the first segment may start inside a blob.
      resync: meta === null,
      ...(options.recoveryMode !== undefined ? { mode: options.recoveryMode } : {}),
      onRecord: (space, off, address) => {
        if ((flagsOf(space, off) & RecordFlag.INVALID) !== 0) return;
        rebuilder.add(
          hashBytes(space.bytes, keyOffsetOf(space, off), keyLengthOf(space, off)),
          address,
        );
      },
    });
    rebuilder.flush();
    if (scan.cutAt !== null) {
      logger.warn(
        `log cut off at ${scan.cutAt}: ${scan.reason}; ${device.endAddress - scan.cutAt} bytes after it are ignored and will be overwritten`,
      );
    }
    const tail = scan.cutAt ?? scan.end;

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
      tailAddress: tail,
      beginAddress: begin,
    });
    const recovery: RecoveryInfo = {
      checkpoint: meta?.seq ?? null,
      scannedFrom: from,
      scannedBytes: scan.bytesRead,
      records: scan.records,
      cutAt: scan.cutAt,
      cutReason: scan.reason,
      ms: performance.now() - started,
    };
    const store = new Store(
      options,
      device,
      options.device === undefined,
      checkpoints,
      log,
      index,
      recovery,
      lastSeq,
    );
    // 4. The live-key count, from the whole recovered log (newest record wins).
    const states = new Map<string, number>();
    await scanLog({
      device,
      pageSize,
      from: Math.floor(begin / pageSize) * pageSize,
      to: tail,
      resync: true,
      ...(options.recoveryMode !== undefined ? { mode: options.recoveryMode } : {}),
      onRecord: (space, off, address) => {
        const flags = flagsOf(space, off);
        if (address < begin || (flags & RecordFlag.INVALID) !== 0) return;
        const ko = keyOffsetOf(space, off);
        const k = space.bytes.toString('latin1', ko, ko + keyLengthOf(space, off));
        states.set(k, (flags & RecordFlag.TOMBSTONE) !== 0 ? -1 : expiresAtOf(space, off));
      },
    });
    store.setCountFrom(states);
    return store;
  }

  private logBytes(): number {
    return this.log.tail - this.log.begin;
  }

  /**
   * Takes a checkpoint: folds the log over (everything before the tail page
   * becomes read-only), snapshots the index in the same tick, waits for the
   * flush and a device sync, then writes index and markers. Resolves with
   * the checkpoint's sequence number (0 without a checkpoint store).
   */
  checkpoint(): Promise<number> {
    if (this.closed) return Promise.reject(new HlogError('ERR_STORE_CLOSED', 'store is closed'));
    const run = (this.checkpointRun ?? Promise.resolve(0))
      .catch(() => 0)
      .then(() => this.takeCheckpoint());
    this.checkpointRun = run;
    return run;
  }

  private async takeCheckpoint(): Promise<number> {
    const log = this.log;
    // Writes that failed earlier go first: a checkpoint needs the whole log.
    await log.retryWrites();
    let point = log.sealTail();
    while (point === null) {
      await log.waitForProgress();
      point = log.sealTail();
    }
    // Same tick as the fold-over: every entry points below `point`.
    const parts = this.checkpoints === null ? [] : this.index.snapshot();
    const begin = log.begin;
    await log.waitFlushed(point);
    await log.sync();
    if (this.checkpoints === null) return 0;
    const seq = ++this.lastSeq;
    const meta = sealMeta(
      {
        version: 1,
        seq,
        epoch: log.epoch,
        begin,
        until: point,
        pageSize: log.pageSize,
        createdAt: Date.now(),
      },
      parts,
    );
    await this.checkpoints.write(seq, meta, parts);
    for (const old of await this.checkpoints.list()) {
      if (old < seq) await this.checkpoints.remove(old);
    }
    this.checkpointsTaken++;
    return seq;
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
    const log = this.log;
    const S = this.device.segmentSize;
    const limit = Math.floor(Math.min(log.head, log.flushedUntil) / S) * S;
    const target = Math.min(until ?? limit, limit);
    const begin = log.begin;
    const result: CompactionResult = {
      until: begin,
      scanned: 0,
      copied: 0,
      dropped: 0,
      bytesFreed: 0,
    };
    if (target <= begin) return result;
    // Copies of live records, collected per page and processed between pages.
    const batch: Array<{ address: number; bytes: Uint8Array }> = [];
    const blobs: number[] = [];
    const processBatch = async (): Promise<void> => {
      for (const r of batch) {
        const space = createRecordSpace(r.bytes.length);
        space.bytes.set(r.bytes);
        const copied = await this.copyIfLive(space, r.address);
        if (copied) result.copied++;
        else result.dropped++;
      }
      batch.length = 0;
    };
    const scan = await scanLog({
      device: this.device,
      pageSize: log.pageSize,
      from: begin,
      to: target,
      onRecord: (space, off, address) => {
        result.scanned++;
        const flags = flagsOf(space, off);
        if ((flags & (RecordFlag.INVALID | RecordFlag.TOMBSTONE)) !== 0) {
          result.dropped++;
          return;
        }
        // A copy: the scanner reuses its page buffer (Buffer#slice would be a view).
        batch.push({
          address,
          bytes: Uint8Array.prototype.slice.call(space.bytes, off, off + slotSize(space, off)),
        });
      },
      onBlob: (address) => {
        blobs.push(address);
      },
      onPage: async () => {
        if (batch.length > 0) await processBatch();
        // Let other operations run between slices.
        await new Promise<void>((resolve) => setImmediate(resolve));
      },
    });
    await processBatch();
    if (scan.cutAt !== null) {
      // Never drop what could not be read and checked.
      throw new HlogError(
        'ERR_CORRUPT',
        `compaction stopped at ${scan.cutAt ?? scan.end}: ${scan.reason ?? 'short log'}`,
        { address: scan.cutAt ?? scan.end },
      );
    }
    // Blobs in the range may belong to live records beyond it: move those.
    for (const address of blobs) {
      const key = await this.readBlobKey(address);
      if (key !== null && (await this.relocateBlobIfLive(key, address))) result.copied++;
    }
    // Drop the range (a blob crossing its end stays, from its start), make
    // the copies and the new begin durable in a checkpoint, then free the
    // segments: a crash at any point leaves a consistent store.
    const newBegin = scan.end;
    log.dropUntil(newBegin);
    await this.checkpoint();
    await log.truncateDevice();
    result.until = newBegin;
    result.bytesFreed = newBegin - begin;
    this.compactions++;
    return result;
  }

  stats(): StoreStats {
    const core = this.coreStats();
    return {
      ...core,
      memory: {
        logBytes: core.log.memoryBytes,
        indexBytes: core.index.bytes,
        rssBytes: process.memoryUsage.rss(),
      },
      device: this.device.stats(),
      logBytes: this.logBytes(),
      checkpoints: this.checkpointsTaken,
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
    await this.settleCount();
    if (this.compactionRun !== null) await this.compactionRun.catch(() => undefined);
    if (this.log.failure === undefined) {
      if (this.checkpointOnClose && this.checkpoints !== null) await this.checkpoint();
      else {
        await this.log.retryWrites();
        await this.log.sealAndFlush();
        await this.log.sync();
      }
    }
    this.closed = true;
    if (this.ownsDevice) await this.device.close();
  }

  /**
   * Simulates a crash (tests): stops timers, flushing and operations without
   * writing anything more, and closes a device the store opened itself.
   */
  async abandon(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.log.halt();
    await this.settleCount();
    this.closed = true;
    if (this.ownsDevice) await this.device.close();
  }
}
