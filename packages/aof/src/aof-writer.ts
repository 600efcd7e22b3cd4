import { crc32 } from 'node:zlib';
import { CommandEncoder } from '@strata/protocol';
import { AofError, describeError } from './errors.js';
import type { AofFileHandle } from './file-system.js';
import type { FsyncPolicy } from './fsync-policy.js';

/** A place in the AOF: file sequence number and byte offset in it. */
export interface AofPosition {
  readonly file: number;
  readonly offset: number;
}

export function comparePositions(a: AofPosition, b: AofPosition): number {
  return comparePositionTo(a.file, a.offset, b);
}

/** comparePositions of (`file`, `offset`) and `b`, with no position object made (per command read). */
export function comparePositionTo(file: number, offset: number, b: AofPosition): number {
  return file !== b.file ? file - b.file : offset - b.offset;
}

export interface AofWriterOptions {
  policy: FsyncPolicy;
  /** Called with the error when writing or syncing starts failing, and with null once it works again. */
  onStatus?: (error: AofError | null) => void;
  /** Wait before retrying a failed write or sync. Default 100 ms. */
  retryMs?: number;
  /** `everysec` period. Default 1000 ms. */
  syncIntervalMs?: number;
  /**
   * `always`: syncs allowed in flight at once. A batch is written and its
   * sync starts while earlier ones still run (each sync covers every byte
   * written before it started), so commit latency is one sync, not a queue
   * of them. Default 3 (Node's thread pool has 4 threads).
   */
  maxSyncsInFlight?: number;
  /**
   * Bytes of zeros kept written (and synced) ahead of the data, in chunks of
   * this size, so an fdatasync after an append within them has no file size
   * to journal: only the data blocks (measured on ext4: see the README).
   * The reader takes a zero-filled end for the end of the file; a clean
   * close and a rotation cut the zeros off. Default 1 MiB (one write and
   * one sync of zeros per MiB of commands); 0 turns it off.
   */
  preallocateBytes?: number;
}

/** Zeros written ahead of the data, a slice (256 KiB) per event-loop turn. */
const ZEROS = Buffer.alloc(256 << 10);

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A batch nobody waited on (a rejection during shutdown) must not crash the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** One AOF file being appended to. */
class Target {
  readonly encoder = new CommandEncoder();
  /** Bytes appended: written + being written + encoded. */
  logical: number;
  /** Bytes on the file (a prefix of what was appended). */
  written: number;
  /** Bytes known durable. */
  synced: number;
  /** Database of the last command; -1 forces a SELECT. */
  db = -1;
  /** Time stamp of the last command; -1: none written to this file yet. */
  time = -1;
  /** With `always`: bytes written and not yet known durable, with their end offsets. */
  readonly unsynced: { end: number; data: Buffer }[] = [];
  /** End of the zeros written ahead of the data (>= written). */
  allocated: number;
  /** The running extension of the zeros, if any. */
  extending: Promise<void> | null = null;
  /** Where the encoded bytes no `#CRC:` line covers yet start (logical offset). */
  crcFrom: number;
  /** crc32 of the bytes before `crcFrom` that no `#CRC:` line covers (a reopened file's end). */
  crcSeed: number;

  constructor(
    readonly file: number,
    readonly handle: AofFileHandle,
    size: number,
    uncheckedCrc = 0,
  ) {
    this.logical = size;
    this.written = size;
    this.synced = size;
    this.allocated = size;
    this.crcFrom = size;
    this.crcSeed = uncheckedCrc;
  }

  /**
   * Ends the bytes encoded since the last `#CRC:` line with one holding
   * their crc32, so a loader tells a changed byte from the command that was
   * written (a flipped bit inside a value still parses).
   */
  sealChecksum(): void {
    const fresh = this.logical - this.crcFrom;
    if (fresh === 0) return;
    const crc = crc32(this.encoder.tail(fresh), this.crcSeed);
    this.logical += this.encoder.annotate(CRC_LABEL, crc);
    this.crcFrom = this.logical;
    this.crcSeed = 0;
  }
}

const SELECT = Buffer.from('SELECT');
/** `#MS:<unix ms>`: the time the commands after it ran at (see `append`). */
export const TIME_LABEL = Buffer.from('MS:');
/** `#CRC:<crc32>`: the checksum of the bytes since the previous one (or the file's start). */
export const CRC_LABEL = Buffer.from('CRC:');
const DIGITS = Array.from({ length: 16 }, (_, i) => Buffer.from(String(i)));

/**
 * Appends commands to the current AOF file with Redis's fsync policies.
 *
 * Group commit: commands appended in one turn of the event loop are written
 * with one write when the loop next idles (setImmediate, like Redis's
 * beforeSleep); with `always` that write is followed by one fdatasync and
 * the batch's promise settles after it. Commands appended while a write or
 * sync runs form the next batch, so a busy server syncs back to back and
 * each sync carries every command that arrived meanwhile.
 *
 * A failed write keeps the bytes and retries every `retryMs` (the status
 * callback reports the error, then null once a write and sync succeed); with
 * `always` the waiting batch is rejected, so its replies become errors.
 */
export class AofWriter {
  private readonly targets: Target[] = [];
  private batch: Deferred | null = null;
  /** The scheduled write (setImmediate), if one is. */
  private scheduled: NodeJS.Immediate | null = null;
  private running = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private syncTimer: NodeJS.Timeout | null = null;
  private backgroundSync: Promise<void> | null = null;
  private writeError: AofError | null = null;
  private syncError: AofError | null = null;
  private reported: AofError | null = null;
  private closed = false;
  private idle: Deferred | null = null;
  /** `always`: syncs running, and a waiter for a free slot. */
  private syncsInFlight = 0;
  private slot: Deferred | null = null;
  /** Moves on every failed sync: a sync launched before a failure proves nothing. */
  private failures = 0;
  private readonly runBound = () => {
    this.scheduled = null;
    void this.run();
  };
  /** Write/sync counters for INFO and tests. */
  readonly stats = { writes: 0, syncs: 0, batches: 0, bytes: 0, failures: 0 };

  constructor(
    file: number,
    handle: AofFileHandle,
    size: number,
    private readonly options: AofWriterOptions,
    /** crc32 of the file's end after its last `#CRC:` line (see readAofFile's `uncheckedCrc`). */
    uncheckedCrc?: number,
  ) {
    this.targets.push(new Target(file, handle, size, uncheckedCrc));
    if (options.policy === 'everysec') {
      this.syncTimer = setInterval(() => this.syncInBackground(), options.syncIntervalMs ?? 1000);
      this.syncTimer.unref();
    }
  }

  get policy(): FsyncPolicy {
    return this.options.policy;
  }

  /**
   * Switches the fsync policy live (CONFIG SET appendfsync). To `always`:
   * what `everysec` or `no` left unsynced is synced now, and from the next
   * batch on each one is synced before its commands are answered. Away
   * from `always`: a batch waiting is answered once written, as the new
   * policy says. `everysec` runs its timer, the others none.
   */
  setPolicy(policy: FsyncPolicy): void {
    if (this.closed || policy === this.options.policy) return;
    this.options.policy = policy;
    if (policy === 'everysec' && this.syncTimer === null) {
      this.syncTimer = setInterval(
        () => this.syncInBackground(),
        this.options.syncIntervalMs ?? 1000,
      );
      this.syncTimer.unref();
    } else if (policy !== 'everysec' && this.syncTimer !== null) {
      clearInterval(this.syncTimer);
      this.syncTimer = null;
    }
    if (policy === 'always') this.syncInBackground();
    // A batch held for its sync is answered by the next run, once written.
    else if (this.batch !== null) this.schedule();
  }

  /** The error writes are failing with, or null. */
  get error(): AofError | null {
    return this.writeError ?? this.syncError;
  }

  private get current(): Target {
    return this.targets[this.targets.length - 1]!;
  }

  /** Where the next command will start. */
  position(): AofPosition {
    const t = this.current;
    return { file: t.file, offset: t.logical };
  }

  get currentFile(): number {
    return this.current.file;
  }

  get currentSize(): number {
    return this.current.logical;
  }

  /** Bytes appended and not yet written. */
  get pendingBytes(): number {
    let n = 0;
    for (const t of this.targets) n += t.encoder.length;
    return n;
  }

  /**
   * Appends one command of database `db`. With `always` returns the promise
   * of the batch it joined (settled once its bytes are synced); otherwise
   * undefined. `time` (ms since the epoch): when it ran; written as a
   * `#MS:<time>` annotation line before it when it differs from the last
   * one in the file (replay runs each command at its time).
   */
  append(db: number, argv: readonly Uint8Array[], time?: number): Promise<void> | undefined {
    if (this.closed) throw new AofError('ERR_AOF_CLOSED', 'the append-only file is closed');
    const t = this.current;
    if (time !== undefined && time !== t.time) {
      t.logical += t.encoder.annotate(TIME_LABEL, time);
      t.time = time;
    }
    if (t.db !== db) {
      t.logical += t.encoder.encode([SELECT, DIGITS[db] ?? Buffer.from(String(db))]);
      t.db = db;
    }
    t.logical += t.encoder.encode(argv);
    this.schedule();
    if (this.options.policy !== 'always') return undefined;
    this.batch ??= deferred();
    return this.batch.promise;
  }

  /**
   * Continues in a new (empty, already created) file: commands appended from
   * now on go there. The old file is written out, synced and closed first.
   */
  switchTo(file: number, handle: AofFileHandle): void {
    this.targets.push(new Target(file, handle, 0));
    this.schedule();
  }

  /** Resolves once everything appended so far is written (and synced with `always`). */
  async drain(): Promise<void> {
    while (
      this.running ||
      this.scheduled !== null ||
      this.syncsInFlight > 0 ||
      this.pendingBytes > 0 ||
      this.targets.length > 1
    ) {
      if (this.retryTimer !== null) throw this.error ?? new AofError('ERR_AOF_WRITE', 'retrying');
      this.idle ??= deferred();
      await this.idle.promise;
    }
  }

  /**
   * Resolves once every byte before `position` is written and synced,
   * whatever the policy (a store's commit point is recorded only when the
   * commands it holds are durable here too). A position in a file already
   * retired was synced when it was. Woken after every batch written, not
   * only when the writer idles, so a busy server does not hold it back.
   */
  async syncThrough(position: AofPosition): Promise<void> {
    for (;;) {
      const e = this.error;
      if (e !== null) throw e;
      const t = this.targets.find((x) => x.file === position.file);
      if (t === undefined) {
        if (position.file < this.current.file) return;
        throw new AofError('ERR_INVALID_ARGUMENT', `no AOF file ${position.file} yet`);
      }
      if (t.written >= position.offset) {
        if (t.synced < position.offset) await this.sync(t, null);
        return;
      }
      this.schedule();
      this.idle ??= deferred();
      await this.idle.promise;
    }
  }

  /** Writes everything out, syncs (whatever the policy) and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.syncTimer !== null) clearInterval(this.syncTimer);
    this.syncTimer = null;
    try {
      if (this.retryTimer === null) await this.drain();
      await this.backgroundSync;
      const t = this.current;
      await this.cutZeros(t).catch(() => undefined);
      if (this.error === null) {
        await t.handle.datasync();
        t.synced = t.written;
      }
    } finally {
      if (this.retryTimer !== null) clearTimeout(this.retryTimer);
      for (const t of this.targets) await t.handle.close().catch(() => undefined);
    }
    if (this.error !== null) throw this.error;
  }

  private schedule(): void {
    if (this.scheduled !== null || this.running || this.retryTimer !== null) return;
    this.scheduled = setImmediate(this.runBound);
  }

  /**
   * Writes what was appended into the page cache now, instead of at the
   * scheduled write: the server calls it before the replies of a turn
   * leave, as Redis writes the AOF in `beforeSleep` before it writes to
   * clients, so a process crash (kill -9) cannot take a write that was
   * acknowledged with `everysec` or `no`; only a power loss can, within
   * the policy's second. `always` needs nothing here (its replies wait for
   * their sync). Nothing is done while a write runs or waits for a retry:
   * that write carries these bytes when it loops.
   */
  writeNow(): void {
    if (this.scheduled === null || this.options.policy === 'always') return;
    clearImmediate(this.scheduled);
    // The write itself is run()'s synchronous first step.
    this.runBound();
  }

  private async run(): Promise<void> {
    this.running = true;
    let batch: Deferred | null = null;
    const always = this.options.policy === 'always';
    const maxSyncs = Math.max(1, this.options.maxSyncsInFlight ?? 3);
    try {
      for (;;) {
        // Wait for a sync slot first: whatever arrives meanwhile joins this batch.
        if (always) while (this.syncsInFlight >= maxSyncs) await this.freeSlot();
        batch = this.batch;
        this.batch = null;
        const generation = this.failures;
        for (const t of this.targets) {
          t.sealChecksum();
          if (t.encoder.length > 0) this.writeOut(t);
        }
        this.preallocate(this.current);
        // Retire files left by a rotation: synced, so nothing after them is
        // ever durable while they are not.
        while (this.targets.length > 1) {
          const old = this.targets[0]!;
          while (this.syncsInFlight > 0) await this.freeSlot();
          await this.backgroundSync;
          // A zero tail left (the cut failed) reads as the file's end anyway.
          await this.cutZeros(old).catch(() => undefined);
          await this.sync(old, null);
          await old.handle.close();
          this.targets.shift();
        }
        this.stats.batches++;
        this.writeError = null;
        this.report();
        if (always) {
          // Not awaited: the next batch is written while this sync runs.
          void this.sync(this.current, batch, generation).catch(() => undefined);
        } else batch?.resolve();
        batch = null;
        // A waiter on a position (syncThrough) need not wait for an idle moment.
        this.wakeIdle();
        if (this.pendingBytes === 0) break;
      }
    } catch (e) {
      const err =
        e instanceof AofError
          ? e
          : new AofError('ERR_AOF_WRITE', (e as Error).message ?? String(e), { cause: e });
      this.stats.failures++;
      this.report();
      batch?.reject(err);
      // The batch that failed and anything appended since wait for the retry.
      this.scheduleRetry();
    } finally {
      this.running = false;
      this.wakeIdle();
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== null) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.schedule();
    }, this.options.retryMs ?? 100);
  }

  private wakeIdle(): void {
    const idle = this.idle;
    this.idle = null;
    idle?.resolve();
  }

  private freeSlot(): Promise<void> {
    this.slot ??= deferred();
    return this.slot.promise;
  }

  /**
   * Writes the target's encoded bytes at its end (synchronously with the
   * node file system: into the page cache); on failure keeps them for the
   * retry.
   */
  private writeOut(t: Target): void {
    const data = t.encoder.take();
    let done = 0;
    try {
      while (done < data.length) {
        const r = t.handle.write(data.subarray(done), t.written);
        if (typeof r !== 'number') throw new Error('an asynchronous file handle in the sync path');
        this.stats.writes++;
        if (r <= 0) throw new Error('short write');
        done += r;
        t.written += r;
      }
    } catch (e) {
      t.encoder.unshift(data.subarray(done));
      if (done > 0 && this.options.policy === 'always')
        t.unsynced.push({ end: t.written, data: data.subarray(0, done) });
      this.writeError = new AofError('ERR_AOF_WRITE', errorText(e), {
        cause: e,
        operation: 'write',
      });
      throw this.writeError;
    }
    this.stats.bytes += data.length;
    if (this.options.policy === 'always') t.unsynced.push({ end: t.written, data });
  }

  /**
   * Syncs the target; settles `batch` (whose bytes were written before) with
   * the outcome. A failed sync makes every byte not yet known durable be
   * written again, and no sync that started before the failure counts.
   */
  private async sync(t: Target, batch: Deferred | null, generation = this.failures): Promise<void> {
    const until = t.written;
    this.syncsInFlight++;
    try {
      // A sync failed since the batch was written: its bytes wait for the rewrite.
      if (generation !== this.failures) throw this.staleSync();
      if (t.synced < until) await t.handle.datasync();
      if (generation !== this.failures) throw this.staleSync();
      this.stats.syncs++;
      if (until > t.synced) t.synced = until;
      let drop = 0;
      while (drop < t.unsynced.length && t.unsynced[drop]!.end <= t.synced) drop++;
      if (drop > 0) t.unsynced.splice(0, drop);
      this.syncError = null;
      batch?.resolve();
    } catch (e) {
      if (generation === this.failures) {
        this.failures++;
        this.syncError = new AofError('ERR_AOF_WRITE', errorText(e), {
          cause: e,
          operation: 'fsync',
        });
        // After a failed fsync the kernel may have dropped the dirty pages:
        // write those bytes again before trusting a later sync (PostgreSQL's
        // fsyncgate). Only `always` keeps them; the other policies promise less.
        if (t.unsynced.length > 0) {
          t.encoder.unshift(Buffer.concat(t.unsynced.map((u) => u.data)));
          t.unsynced.length = 0;
          t.written = t.synced;
        }
        this.stats.failures++;
        this.scheduleRetry();
      }
      batch?.reject(this.syncError);
      throw this.syncError;
    } finally {
      this.syncsInFlight--;
      const slot = this.slot;
      this.slot = null;
      slot?.resolve();
      this.report();
      this.wakeIdle();
    }
  }

  /** Why a sync launched before a failed one proves nothing (that failure, even once a later sync worked). */
  private staleSync(): AofError {
    return (
      this.syncError ??
      new AofError('ERR_AOF_WRITE', 'an fsync failed after these bytes were written', {
        operation: 'fsync',
      })
    );
  }

  /**
   * Keeps `preallocateBytes` of zeros ahead of the data: when less than half
   * a chunk is left, the next chunk is written (a 256 KiB slice per turn,
   * always at or past the data's end, so zeros never land on data) and
   * synced, in the background. Failing (a full disk) only stops it.
   */
  private preallocate(t: Target): void {
    const chunk = this.options.preallocateBytes ?? 1 << 20;
    if (chunk <= 0 || t.extending !== null || this.closed) return;
    if (t.allocated - t.written >= chunk / 2) return;
    t.extending = (async () => {
      let at = Math.max(t.allocated, t.written);
      const end = at + chunk;
      while (at < end && !this.closed && t === this.current) {
        at = Math.max(at, t.written);
        const n = Math.min(ZEROS.length, end - at);
        const r = t.handle.write(ZEROS.subarray(0, n), at);
        at += typeof r === 'number' ? r : await r;
        t.allocated = Math.max(t.allocated, at);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      // The new size durable once: later data syncs inside it leave the inode alone.
      await t.handle.datasync();
    })()
      .catch(() => {
        // No room for zeros: appends extend the file as they go.
        t.allocated = Number.POSITIVE_INFINITY;
      })
      .finally(() => {
        t.extending = null;
      });
  }

  /** Cuts the zeros past the data off (rotation, close): only a crash leaves a zero tail. */
  private async cutZeros(t: Target): Promise<void> {
    await t.extending;
    if (t.allocated === t.written) return;
    t.allocated = t.written;
    await t.handle.truncate(t.written);
  }

  /** `everysec`: one sync a second of what was written, off the append path. */
  private syncInBackground(): void {
    if (this.backgroundSync !== null) return;
    const t = this.current;
    if (t.synced === t.written && this.syncError === null) return;
    this.backgroundSync = this.sync(t, null)
      .catch(() => undefined)
      .finally(() => {
        this.backgroundSync = null;
        this.report();
      });
  }

  private report(): void {
    const e = this.error;
    if (e === this.reported) return;
    if (e !== null && this.reported !== null) return; // still failing
    this.reported = e;
    this.options.onStatus?.(e);
  }
}

const errorText = describeError;
