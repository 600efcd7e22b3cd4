import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { readAofFile } from './aof-reader.js';
import {
  type AofPosition,
  AofWriter,
  comparePositions,
  comparePositionTo,
  TIME_LABEL,
} from './aof-writer.js';
import { CheckpointMarks } from './checkpoint-marks.js';
import { AofError } from './errors.js';
import { type AofFileHandle, type AofFileSystem, nodeFileSystem } from './file-system.js';
import type { FsyncPolicy } from './fsync-policy.js';
import {
  type AofManifest,
  type CheckpointEntry,
  type CommitEntry,
  decodeManifest,
  emptyManifest,
  encodeManifest,
  fileName,
  manifestName,
  parseFileName,
} from './manifest.js';
import { TransactionSpan, transactionVerb } from './transaction-span.js';

export interface AofLogger {
  warn(message: string): void;
  notice?(message: string): void;
}

export interface AppendOnlyFileOptions {
  /** Directory of the AOF files and manifest (Redis: `<dir>/appendonlydir`). */
  dir: string;
  /** Base name (Redis's `appendfilename`). Default `appendonly.aof`. */
  filename?: string;
  policy: FsyncPolicy;
  /** Writing failed (error) or works again (null): the server refuses writes meanwhile. */
  onWriteStatus?: (error: AofError | null) => void;
  logger?: AofLogger;
  /** Unit tests put a failing file system here. */
  fs?: AofFileSystem;
  /** Replay slice size in bytes. Default 1 MiB. */
  sliceBytes?: number;
  retryMs?: number;
  syncIntervalMs?: number;
  /** Zeros kept written ahead of the data (see AofWriterOptions.preallocateBytes). Default 1 MiB. */
  preallocateBytes?: number;
  /**
   * How long `recordCheckpoint` waits for the EXEC of a transaction its
   * position falls inside (see there). Default 1000 ms.
   */
  transactionWaitMs?: number;
}

export interface ReplayResult {
  /** Commands applied / skipped because their database's checkpoint has them. */
  applied: number;
  skipped: number;
  files: number;
  bytes: number;
  /** Files not read (before every database's `resumeFrom` position), and their bytes. */
  skippedFiles: number;
  skippedBytes: number;
  /** A torn record cut off the end of the last file: where and how many bytes. */
  truncated: { file: number; offset: number; bytes: number; reason: string } | null;
  ms: number;
}

export interface AofInfo {
  policy: FsyncPolicy;
  files: readonly number[];
  currentFile: number;
  currentSize: number;
  /** Bytes of every listed file. */
  totalSize: number;
  /** `totalSize` after loading or after the last cut (Redis's aof_base_size, its size at the last rewrite). */
  baseSize: number;
  pendingBytes: number;
  lastWriteStatus: 'ok' | 'err';
  lastError: string | null;
  writes: number;
  syncs: number;
  batches: number;
  cuts: number;
  rotations: number;
}

export interface ReplayOptions {
  /**
   * Per database, where its replay starts instead of its checkpoint's
   * position: its commit point's (`CheckpointEntry.commit`), when its store
   * recovered the log up to that point. A database not named here replays
   * from its checkpoint's position.
   */
  resumeFrom?: ReadonlyMap<number, AofPosition>;
  /**
   * Redis's aof-load-truncated: a record torn at the end of the last file
   * is cut off with a warning (true, the default), or refuses the replay
   * with Redis's words (false). Zeros the writer left ahead of its data
   * are cut either way: they are no record.
   */
  loadTruncated?: boolean;
}

/**
 * Applies one replayed command of database `db`. `time`: when it ran live
 * (its `#MS:` stamp, see `append`), undefined in a file without stamps.
 */
type Apply = (db: number, argv: Buffer[], time: number | undefined) => void | Promise<void>;

/** The time of a `#MS:<ms>` annotation, or undefined for any other annotation. */
function annotationTime(text: Buffer): number | undefined {
  if (text.length <= TIME_LABEL.length || !text.subarray(0, TIME_LABEL.length).equals(TIME_LABEL))
    return undefined;
  const n = Number(text.subarray(TIME_LABEL.length).toString('latin1'));
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Strata's append-only file: the write commands in RESP (with SELECT when
 * the database changes) across numbered files listed by a manifest, and,
 * per database, the position of its newest checkpoint. Recovery: each
 * database's checkpoint, then its commands from that position on (`replay`).
 * After checkpoints, `rotate` starts a new file and `cut` drops the files no
 * database needs any more. Every step leaves a manifest that recovers.
 *
 * ```ts
 * const aof = await AppendOnlyFile.open({ dir, policy: 'everysec' });
 * await aof.replay((db, argv) => server.execute(db, argv));
 * const wait = aof.append(0, [Buffer.from('SET'), key, value]); // a promise with `always`
 * ```
 */
export class AppendOnlyFile {
  private manifest: AofManifest;
  private writer: AofWriter | null = null;
  private readonly marks = new CheckpointMarks();
  /** The MULTI .. EXEC being appended, if any (one at a time: EXEC runs alone). */
  private openTransaction: TransactionSpan | null = null;
  /** A rotation's switch to the new file, held until the open transaction's EXEC. */
  private pendingSwitch: (() => void) | null = null;
  /** Per database, where its last command starts (replayed or appended). */
  private readonly lastCommand = new Map<number, { file: number; offset: number }>();
  private readonly positionBound = () => this.w.position();
  private manifestChain: Promise<void> = Promise.resolve();
  private sizes = new Map<number, number>();
  private cuts = 0;
  private baseSize = 0;
  private rotations = 0;
  private readonly fs: AofFileSystem;
  private readonly base: string;

  private constructor(
    private readonly options: AppendOnlyFileOptions,
    manifest: AofManifest,
  ) {
    this.manifest = manifest;
    this.fs = options.fs ?? nodeFileSystem;
    this.base = options.filename ?? 'appendonly.aof';
  }

  /** Opens the AOF in `dir` (creating it: one empty file and a manifest). Call `replay` next. */
  static async open(options: AppendOnlyFileOptions): Promise<AppendOnlyFile> {
    const fs = options.fs ?? nodeFileSystem;
    const base = options.filename ?? 'appendonly.aof';
    await fs.mkdirp(options.dir);
    const path = join(options.dir, manifestName(base));
    const bytes = await fs.readFile(path);
    let manifest: AofManifest;
    if (bytes === null) {
      // Redis 7 starts empty without its manifest and writes new files over
      // the old names; here those files may be the only copy of
      // acknowledged writes, so they must be accounted for first.
      const held = (await filesOf(fs, options.dir, base)).filter((f) => f.bytes > 0);
      if (held.length > 0) {
        const total = held.reduce((n, f) => n + f.bytes, 0);
        throw new AofError(
          'ERR_AOF_MANIFEST',
          `The AOF manifest ${path} is missing, but ${options.dir} holds ${held.length} AOF ` +
            `file${held.length === 1 ? '' : 's'} with commands (${held.map((f) => f.name).join(', ')}: ` +
            `${total} bytes). Refusing to start over commands no manifest accounts for: restore ` +
            'the manifest, or move the files aside to start without them.',
        );
      }
      manifest = emptyManifest();
      await fs.remove(join(options.dir, fileName(base, 1)));
      const h = await fs.open(join(options.dir, fileName(base, 1)), 'new');
      await h.close();
      await fs.syncDir(options.dir);
      await fs.writeFileAtomic(path, encodeManifest(manifest));
    } else {
      manifest = decodeManifest(bytes, path);
    }
    // Files no manifest lists: left by a cut (before the first listed
    // file: the manifest moved past them) or a rotation (after the last,
    // created empty before the manifest named it) that a crash
    // interrupted. Anything else holds commands nothing accounts for.
    const listed = new Set(manifest.files);
    const first = manifest.files[0]!;
    for (const f of await filesOf(fs, options.dir, base)) {
      if (listed.has(f.file)) continue;
      if (f.file > first && f.bytes > 0) {
        throw new AofError(
          'ERR_AOF_MANIFEST',
          `${join(options.dir, f.name)} holds ${f.bytes} bytes of commands but the manifest ` +
            `${path} does not list it. Refusing to start over commands no manifest accounts ` +
            'for: restore the manifest that lists it, or move the file aside.',
        );
      }
      await fs.remove(join(options.dir, f.name));
      options.logger?.warn(`Removed ${f.name}: no longer part of the append only file`);
    }
    return new AppendOnlyFile(options, manifest);
  }

  /**
   * Starts a new AOF in `dir` over whatever an earlier one left there
   * (Redis's CONFIG SET appendonly yes): the databases' state is in their
   * checkpoints, which they record in this one next, so an older AOF's
   * files describe an older state. The new manifest, listing one new empty
   * file, replaces the old one in one rename; only then do the old files
   * go. Ready to append (nothing to replay).
   */
  static async create(options: AppendOnlyFileOptions): Promise<AppendOnlyFile> {
    const fs = options.fs ?? nodeFileSystem;
    const base = options.filename ?? 'appendonly.aof';
    await fs.mkdirp(options.dir);
    const old = await filesOf(fs, options.dir, base);
    // A number no file of the old AOF has: a crash before the rename leaves it whole.
    const file = Math.max(1, ...old.map((f) => f.file + 1));
    const path = join(options.dir, fileName(base, file));
    const h = await fs.open(path, 'new');
    await h.close();
    await fs.syncDir(options.dir);
    const manifest: AofManifest = { ...emptyManifest(), files: [file], nextFile: file + 1 };
    await fs.writeFileAtomic(join(options.dir, manifestName(base)), encodeManifest(manifest));
    for (const f of old) await fs.remove(join(options.dir, f.name));
    const aof = new AppendOnlyFile(options, manifest);
    await aof.replay(() => undefined);
    return aof;
  }

  get policy(): FsyncPolicy {
    return this.options.policy;
  }

  /** Switches the fsync policy live (Redis's CONFIG SET appendfsync; see AofWriter.setPolicy). */
  setPolicy(policy: FsyncPolicy): void {
    this.options.policy = policy;
    this.writer?.setPolicy(policy);
  }

  /** Database `db`'s checkpoint entry, if it has one. */
  checkpointOf(db: number): CheckpointEntry | undefined {
    return this.manifest.databases[String(db)];
  }

  /**
   * Reads every file in order and applies each command whose database's
   * checkpoint does not already hold it; a torn record at the end of the
   * last file is cut off (truncated, with a warning). Then opens the last
   * file for appending. Call once, before `append`.
   */
  async replay(apply: Apply, options: ReplayOptions = {}): Promise<ReplayResult> {
    if (this.writer !== null) throw new AofError('ERR_INVALID_ARGUMENT', 'replay runs once, first');
    const started = performance.now();
    const { fs, manifest } = this;
    const result: ReplayResult = {
      applied: 0,
      skipped: 0,
      files: 0,
      bytes: 0,
      skippedFiles: 0,
      skippedBytes: 0,
      truncated: null,
      ms: 0,
    };
    const starts = new Map<number, AofPosition>();
    for (const [db, e] of Object.entries(manifest.databases)) starts.set(Number(db), e.position);
    for (const [db, from] of options.resumeFrom ?? []) {
      const at = starts.get(db);
      // Never before the checkpoint's own position (a cut moved it past an idle database's commands).
      if (at !== undefined && comparePositions(from, at) > 0) starts.set(db, from);
    }
    const last = manifest.files[manifest.files.length - 1]!;
    let lastSize = 0;
    /** Where a command is: file, offset of its record. */
    type At = { file: number; offset: number };
    /** The time stamp in effect (the last `#MS:` read, across files). */
    let time: number | undefined;
    const before = (db: number, at: At) => beforeStart(db, at.file, at.offset);
    /** Whether the command of `db` at `offset` of `file` is before where `db` starts. */
    const beforeStart = (db: number, file: number, offset: number) => {
      const from = starts.get(db);
      return from !== undefined && comparePositionTo(file, offset, from) < 0;
    };
    // FLUSHALL empties every database, but a database whose checkpoint
    // came after it already holds what was written since: it becomes a
    // FLUSHDB of each database whose checkpoint is older.
    const flushAll = async (db: number, argv: Buffer[], at: At, t: number | undefined) => {
      const dbs = new Set([db, ...starts.keys()]);
      let any = false;
      for (const d of [...dbs].sort((a, b) => a - b)) {
        if (before(d, at)) continue;
        any = true;
        await apply(d, [FLUSHDB, ...argv.slice(1)], t);
      }
      if (any) result.applied++;
      else result.skipped++;
    };
    const applyOne = (db: number, argv: Buffer[], at: At, t: number | undefined) => {
      if (isCommand(argv, 'FLUSHALL')) return flushAll(db, argv, at, t);
      if (before(db, at)) {
        result.skipped++;
        return undefined;
      }
      result.applied++;
      return apply(db, argv, t);
    };
    type TxItem = { db: number; argv: Buffer[]; at: At; time: number | undefined };
    /**
     * A transaction's commands, without its MULTI and EXEC: each at its
     * own time (queued, they would all run at the EXEC's), and each only
     * when its database's checkpoint does not hold it: a checkpoint
     * position can fall inside a transaction (see recordCheckpoint).
     * Replay runs alone, so nothing lands between them either way.
     */
    const applyTransaction = async (items: TxItem[]) => {
      for (const i of items) {
        if (isCommand(i.argv, 'MULTI') || isCommand(i.argv, 'EXEC')) continue;
        const p = applyOne(i.db, i.argv, i.at, i.time);
        if (p !== undefined) await p;
      }
    };
    /**
     * A MULTI .. EXEC being read: applied at EXEC, reverted if the last
     * file ends first. It may go on in the next file (a rotation while one
     * of its commands waited for the disk).
     */
    let tx: TxItem[] | null = null;
    /** The database of a cut-through transaction the last file ends inside: it gets its EXEC. */
    let unended: number | null = null;
    /** Ends of the file's `#CRC:` lines that may still matter (see readAofFile). */
    let crcEnds: number[] = [0];
    /** crc32 of the last file's end after its last `#CRC:` line: the writer's next line covers it. */
    let uncheckedCrc = 0;
    // With resumeFrom (the caller opened its stores first and knows where
    // each resumes), a file before every database's start holds no command
    // to apply: it is not read. A database without an entry has no commands
    // there (strata-server records a database's entry before its first one).
    let firstNeeded = options.resumeFrom === undefined ? manifest.files[0]! : last;
    if (options.resumeFrom !== undefined) {
      for (const at of starts.values()) firstNeeded = Math.min(firstNeeded, at.file);
    }
    for (const file of manifest.files) {
      const path = join(this.options.dir, fileName(this.base, file));
      if (file < firstNeeded) {
        const h = await fs.open(path, 'never');
        try {
          const size = await h.size();
          this.sizes.set(file, size);
          result.skippedFiles++;
          result.skippedBytes += size;
        } finally {
          await h.close();
        }
        continue;
      }
      let h: Awaited<ReturnType<AofFileSystem['open']>>;
      try {
        h = await fs.open(path, 'never');
      } catch (e) {
        throw new AofError(
          'ERR_AOF_MANIFEST',
          `${path}: listed in the manifest but unreadable: ${(e as Error).message}`,
          { cause: e },
        );
      }
      try {
        crcEnds = [0];
        /** The last command of `db` read (cut() tells idle databases by it). */
        const noteLast = (db: number, offset: number) => {
          const lastCmd = this.lastCommand.get(db);
          if (lastCmd === undefined) this.lastCommand.set(db, { file, offset });
          else {
            lastCmd.file = file;
            lastCmd.offset = offset;
          }
        };
        const r = await readAofFile(h, {
          onChecked: (end) => {
            // Kept back to the open transaction's start: a revert cuts there.
            if (tx === null) crcEnds = [end];
            else crcEnds.push(end);
          },
          ...(this.options.sliceBytes !== undefined ? { sliceBytes: this.options.sliceBytes } : {}),
          onAnnotation: (text) => {
            const t = annotationTime(text);
            if (t !== undefined) time = t;
          },
          // The commands before a database's start (its checkpoint's or
          // commit point's position) are only counted: read without their
          // arguments (a replay after a commit point passes over most of
          // the file).
          passOver: {
            // (The reader passes over nothing between MULTI and EXEC.)
            before: (db, offset) => beforeStart(db, file, offset),
            onPassed: (db, offset) => {
              noteLast(db, offset);
              result.skipped++;
            },
          },
          onCommand: (db, argv, offset) => {
            noteLast(db, offset);
            const at = { file, offset };
            if (tx === null && isCommand(argv, 'MULTI')) {
              tx = [{ db, argv, at, time }];
              return undefined;
            }
            if (tx === null) return applyOne(db, argv, at, time);
            tx.push({ db, argv, at, time });
            if (!isCommand(argv, 'EXEC')) return undefined;
            const items = tx;
            tx = null;
            return applyTransaction(items);
          },
        }).catch((e: unknown) => {
          throw badFormat(e, path, fileName(this.base, file));
        });
        result.files++;
        const open = file === last ? (tx as TxItem[] | null) : null;
        if (open !== null) {
          const from = open[0]!.at;
          if (open.some((i) => before(i.db, i.at))) {
            // The file ends inside a transaction a checkpoint cut through (a
            // crash before its EXEC, past the wait of recordCheckpoint): the
            // checkpoint holds its start, so its commands after the position
            // that are whole in the file are applied; only a torn record is cut.
            this.options.logger?.warn(
              `AOF file ${fileName(this.base, file)} ends inside a MULTI/EXEC transaction ` +
                `(file ${from.file} offset ${from.offset}) that a checkpoint holds part of: ` +
                'applying its commands after the checkpoint',
            );
            await applyTransaction(open);
            unended = open[open.length - 1]!.db;
          } else {
            // Redis: "Revert incomplete MULTI/EXEC transaction in AOF file".
            this.options.logger?.warn(
              `Revert incomplete MULTI/EXEC transaction in AOF file ${fileName(this.base, from.file)} at offset ${from.offset}`,
            );
            // Its part in this file goes (an earlier file, from before the
            // rotations were held back until EXEC, stays whole).
            const here = open.find((i) => i.at.file === file)?.at.offset ?? r.validBytes;
            const cutAt = Math.min(here, r.torn?.offset ?? here);
            r.torn = {
              offset: cutAt,
              bytes: r.fileBytes - cutAt,
              reason: 'incomplete MULTI/EXEC transaction',
            };
            r.validBytes = cutAt;
          }
        }
        result.bytes += r.validBytes;
        if (r.torn !== null && file !== last && r.torn.reason === 'zero-filled tail') {
          // Zeros written ahead of the data, left by a crash before the
          // rotation cut them off: the file's end, not damage.
          await h.truncate(r.torn.offset);
          r.torn = null;
        }
        if (r.torn !== null) {
          if (file !== last) {
            throw new AofError(
              'ERR_AOF_CORRUPT',
              `${path}: ${r.torn.reason} at offset ${r.torn.offset}, and it is not the last file`,
              { address: r.torn.offset },
            );
          }
          if (options.loadTruncated === false && r.torn.reason !== 'zero-filled tail') {
            throw new AofError(
              'ERR_AOF_TRUNCATED',
              `Unexpected end of file reading the append only file ${fileName(this.base, file)}. ` +
                'You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix ' +
                "<filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' " +
                'configuration option to yes and restart the server.',
              { address: r.torn.offset },
            );
          }
          this.options.logger?.warn(
            `!!! Warning: short read while loading the AOF file ${fileName(this.base, file)}!!! ` +
              `(${r.torn.reason}: ${r.torn.bytes} bytes at offset ${r.torn.offset}); ` +
              `AOF loaded anyway because aof-load-truncated is enabled: truncating it to ${r.torn.offset} bytes`,
          );
          await h.truncate(r.torn.offset);
          await h.datasync();
          result.truncated = {
            file,
            offset: r.torn.offset,
            bytes: r.torn.bytes,
            reason: r.torn.reason,
          };
        }
        this.sizes.set(file, r.validBytes);
        if (file === last) {
          lastSize = r.validBytes;
          const from = Math.max(...crcEnds.filter((e) => e <= lastSize));
          uncheckedCrc = await crcOfRange(h, from, lastSize);
        }
      } finally {
        await h.close();
      }
    }
    const handle = await fs.open(join(this.options.dir, fileName(this.base, last)), 'never');
    this.writer = new AofWriter(
      last,
      handle,
      lastSize,
      {
        policy: this.options.policy,
        onStatus: (e) => this.options.onWriteStatus?.(e),
        ...(this.options.retryMs !== undefined ? { retryMs: this.options.retryMs } : {}),
        ...(this.options.preallocateBytes !== undefined
          ? { preallocateBytes: this.options.preallocateBytes }
          : {}),
        ...(this.options.syncIntervalMs !== undefined
          ? { syncIntervalMs: this.options.syncIntervalMs }
          : {}),
      },
      uncheckedCrc,
    );
    if (unended !== null) {
      // Ended as it was applied, so that later commands are not read as part of it.
      this.writer.append(unended, [EXEC]);
      await this.writer.drain();
    }
    this.baseSize = this.info().totalSize;
    result.ms = performance.now() - started;
    return result;
  }

  private get w(): AofWriter {
    if (this.writer === null) throw new AofError('ERR_INVALID_ARGUMENT', 'replay() first');
    return this.writer;
  }

  /**
   * Appends a command of database `db`. `mark` is the store's coordinate
   * after the command's change (see `CheckpointMarks`; omit it when the
   * store has none). `time`: the clock the command's expiry checks read
   * (ms since the epoch), stamped before it so that replay runs it at that
   * time (see `replay`). With `always`, a promise settled once it is durable.
   */
  append(
    db: number,
    argv: readonly Uint8Array[],
    mark?: number,
    time?: number,
  ): Promise<void> | undefined {
    const w = this.w;
    const verb = transactionVerb(argv);
    if (verb === 'multi') this.openTransaction = new TransactionSpan(w.position());
    const tx = this.openTransaction;
    if (mark !== undefined)
      this.marks.note(db, mark, this.positionBound, verb === 'multi' ? null : tx);
    let last = this.lastCommand.get(db);
    if (last === undefined) {
      last = { file: 0, offset: 0 };
      this.lastCommand.set(db, last);
    }
    last.file = w.currentFile;
    last.offset = w.currentSize;
    const durable = w.append(db, argv, time);
    if (verb === 'exec' && tx !== null) {
      this.openTransaction = null;
      tx.close(durable);
      const pending = this.pendingSwitch;
      this.pendingSwitch = null;
      pending?.();
    }
    return durable;
  }

  /**
   * Writes the commands appended so far into the page cache now (AofWriter's
   * `writeNow`): called before replies leave, so that a process crash loses
   * no acknowledged command under `everysec` or `no`.
   */
  writeNow(): void {
    this.writer?.writeNow();
  }

  /** Where the next command will start. */
  position(): AofPosition {
    return this.w.position();
  }

  /** The database's store was replaced (new, empty): forget its marks. */
  resetMarks(db: number): void {
    this.marks.reset(db);
  }

  /**
   * Records database `db`'s new checkpoint `id`, which covers every change
   * below the store coordinate `mark`: its AOF position is the first command
   * appended at or above `mark`, or the current end. Durable on return.
   *
   * The position may fall inside a MULTI .. EXEC (one of its commands waited
   * for the disk while the store checkpointed): the checkpoint holds the
   * transaction's commands before it, replay applies those after it. The
   * manifest then names the position only once the transaction's EXEC is in
   * the file (synced with `always`): a crash before it would leave half a
   * transaction in the checkpoint and its end nowhere. A transaction that
   * waits for this very checkpoint (FLUSHDB queued in it) never ends first:
   * after `transactionWaitMs` the position is recorded anyway, with a warning.
   */
  async recordCheckpoint(db: number, id: number, mark: number): Promise<CheckpointEntry> {
    const position = await this.positionAt(db, mark, `checkpoint ${id}`);
    const entry: CheckpointEntry = { id, mark, position };
    await this.updateManifest((m) => ({
      ...m,
      databases: { ...m.databases, [String(db)]: entry },
    }));
    return entry;
  }

  /**
   * Records database `db`'s commit point at store coordinate `mark` (see
   * `CheckpointEntry.commit`): its position is found as a checkpoint's is,
   * every byte before it is written and synced (whatever `appendfsync`
   * says: the log below the point may hold commands whose bytes were still
   * in the page cache, and a record the AOF lost must never sit below a
   * recorded point), then the manifest names it. Null, and nothing
   * recorded, when the database has no checkpoint entry or a newer one.
   */
  async recordCommit(db: number, mark: number): Promise<CommitEntry | null> {
    const entry = this.checkpointOf(db);
    if (entry === undefined || mark <= entry.mark) return null;
    const position = await this.positionAt(db, mark, 'commit point');
    await this.w.syncThrough(position);
    let recorded: CommitEntry | null = null;
    await this.updateManifest((m) => {
      const e = m.databases[String(db)];
      // A checkpoint recorded meanwhile is newer.
      if (e === undefined || e.id !== entry.id || mark <= e.mark) return null;
      if (e.commit !== undefined && e.commit.mark >= mark) return null;
      recorded = { mark, position };
      return { ...m, databases: { ...m.databases, [String(db)]: { ...e, commit: recorded } } };
    });
    return recorded;
  }

  /**
   * Drops database `db`'s commit point from the manifest (durable on
   * return): its store could not read its log up to the point and opened
   * at the checkpoint, whose log the new session now writes over.
   */
  async forgetCommit(db: number): Promise<void> {
    await this.updateManifest((m) => {
      const e = m.databases[String(db)];
      if (e?.commit === undefined) return null;
      const { commit: _dropped, ...rest } = e;
      return { ...m, databases: { ...m.databases, [String(db)]: rest } };
    });
  }

  /**
   * Where a cut of `db` at store coordinate `mark` sits: the first command
   * appended at or above it, or the current end; once the transaction it
   * falls inside (if any) has ended (see `recordCheckpoint`). `what` names
   * the cut in the warning.
   */
  private async positionAt(db: number, mark: number, what: string): Promise<AofPosition> {
    const at = this.marks.entryOf(db, mark);
    const position = at?.position ?? this.w.position();
    const inside = at === null ? this.openTransaction : at.inside;
    this.marks.prune(db, mark);
    if (inside !== null && !(await this.transactionEnded(inside))) {
      this.options.logger?.warn(
        `DB ${db}'s ${what} sits inside a MULTI/EXEC transaction that has not ended ` +
          `after ${this.options.transactionWaitMs ?? DEFAULT_TRANSACTION_WAIT_MS} ms; recorded anyway`,
      );
    }
    return position;
  }

  /** Whether `tx`'s EXEC was appended (and synced with `always`) within `transactionWaitMs`. */
  private async transactionEnded(tx: TransactionSpan): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(
        () => resolve(false),
        this.options.transactionWaitMs ?? DEFAULT_TRANSACTION_WAIT_MS,
      );
    });
    try {
      return await Promise.race([tx.ended.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts a new file for the commands from now on (when the current one holds any). */
  rotate(): Promise<void> {
    return this.updateManifest(async (m) => {
      const w = this.w;
      if (w.currentSize === 0) return null;
      const file = m.nextFile;
      const path = join(this.options.dir, fileName(this.base, file));
      await this.fs.remove(path);
      const handle = await this.fs.open(path, 'new');
      try {
        await this.fs.syncDir(this.options.dir);
      } catch (e) {
        await handle.close();
        throw e;
      }
      const next: AofManifest = { ...m, files: [...m.files, file], nextFile: file + 1 };
      return {
        manifest: next,
        // Switch only once the manifest lists the new file, and never
        // inside a transaction: a MULTI .. EXEC stays in one file.
        after: () => {
          const doSwitch = () => {
            this.sizes.set(w.currentFile, w.currentSize);
            w.switchTo(file, handle);
            this.rotations++;
          };
          if (this.openTransaction === null) doSwitch();
          else this.pendingSwitch = doSwitch;
        },
        abort: () => handle.close(),
      };
    });
  }

  /**
   * Drops the files before the oldest position any database still needs.
   * A database with no command after its checkpoint needs nothing: its
   * position moves to the end. The manifest changes first, then the files go.
   */
  async cut(): Promise<number[]> {
    let removed: number[] = [];
    await this.updateManifest((m) => {
      const end = this.w.position();
      const databases: Record<string, CheckpointEntry> = {};
      let oldest = end.file;
      for (const [db, e] of Object.entries(m.databases)) {
        const lastCmd = this.lastCommand.get(Number(db));
        const idle = lastCmd === undefined || comparePositions(lastCmd, e.position) < 0;
        const entry = idle ? { ...e, position: end } : e;
        databases[db] = entry;
        oldest = Math.min(oldest, entry.position.file);
      }
      // A database with commands but no checkpoint needs every file.
      for (const db of this.lastCommand.keys()) {
        if (databases[String(db)] === undefined) oldest = Math.min(oldest, m.files[0]!);
      }
      removed = m.files.filter((f) => f < oldest);
      if (removed.length === 0) return null;
      return {
        manifest: { ...m, files: m.files.filter((f) => f >= oldest), databases },
        after: () => undefined,
      };
    });
    for (const f of removed) {
      await this.fs.remove(join(this.options.dir, fileName(this.base, f)));
      this.sizes.delete(f);
    }
    if (removed.length > 0) {
      this.cuts++;
      this.baseSize = this.info().totalSize;
    }
    return removed;
  }

  /** Resolves once everything appended is written (and synced with `always`). */
  drain(): Promise<void> {
    return this.w.drain();
  }

  /** Writes and syncs what is pending and closes the file. */
  async close(): Promise<void> {
    await this.manifestChain.catch(() => undefined);
    const pending = this.pendingSwitch;
    this.pendingSwitch = null;
    pending?.();
    await this.writer?.close();
  }

  info(): AofInfo {
    const w = this.w;
    let totalSize = 0;
    for (const f of this.manifest.files) {
      totalSize += f === w.currentFile ? w.currentSize : (this.sizes.get(f) ?? 0);
    }
    const e = w.error;
    return {
      policy: this.options.policy,
      files: this.manifest.files,
      currentFile: w.currentFile,
      currentSize: w.currentSize,
      totalSize,
      baseSize: this.baseSize,
      pendingBytes: w.pendingBytes,
      lastWriteStatus: e === null ? 'ok' : 'err',
      lastError: e === null ? null : e.message,
      writes: w.stats.writes,
      syncs: w.stats.syncs,
      batches: w.stats.batches,
      cuts: this.cuts,
      rotations: this.rotations,
    };
  }

  /** The file commands are appended to now (what a write error names). */
  get currentPath(): string {
    return join(this.options.dir, fileName(this.base, this.w.currentFile));
  }

  /** The error writes fail with, or null. */
  get writeError(): AofError | null {
    return this.writer?.error ?? null;
  }

  /** Manifest changes run one at a time; each writes the new manifest atomically. */
  private updateManifest(
    change: (
      m: AofManifest,
    ) =>
      | AofManifest
      | null
      | { manifest: AofManifest; after: () => void; abort?: () => Promise<void> }
      | Promise<{ manifest: AofManifest; after: () => void; abort?: () => Promise<void> } | null>,
  ): Promise<void> {
    const run = this.manifestChain
      .catch(() => undefined)
      .then(async () => {
        const r = await change(this.manifest);
        if (r === null) return;
        const { manifest, after, abort } =
          'version' in r ? { manifest: r, after: () => undefined, abort: undefined } : r;
        try {
          await this.fs.writeFileAtomic(
            join(this.options.dir, manifestName(this.base)),
            encodeManifest(manifest),
          );
        } catch (e) {
          await abort?.().catch(() => undefined);
          throw new AofError('ERR_AOF_WRITE', `writing the AOF manifest: ${(e as Error).message}`, {
            cause: e,
          });
        }
        this.manifest = manifest;
        after();
      });
    this.manifestChain = run;
    return run;
  }
}

/**
 * A record that is not a command, or bytes their checksum disowns, before
 * the end of the last file: Redis's refusal, with the file and offset, and
 * the way out (cutting the file there; redis-check-aof --fix cuts a strata
 * AOF file at its first bad record too, but knows nothing of checksums).
 */
function badFormat(e: unknown, path: string, name: string): unknown {
  if (!(e instanceof AofError) || e.code !== 'ERR_AOF_CORRUPT') return e;
  const at = e.address;
  return new AofError(
    'ERR_AOF_CORRUPT',
    `Bad file format reading the append only file ${name} at offset ${at} (${e.message}): ` +
      `make a backup of your AOF directory, then cut the file there with truncate -s ${at} ${path} ` +
      `(redis-check-aof --fix ${path} does the same for a bad record); the commands from ` +
      `offset ${at} of that file on are lost`,
    { ...(at !== undefined ? { address: at } : {}), cause: e },
  );
}

/** crc32 of the file's bytes [from, to), read in slices. */
async function crcOfRange(h: AofFileHandle, from: number, to: number): Promise<number> {
  const buf = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, to - from)));
  let crc = 0;
  for (let at = from; at < to; ) {
    const n = await h.read(buf.subarray(0, Math.min(buf.length, to - at)), at);
    if (n <= 0) break;
    crc = crc32(buf.subarray(0, n), crc);
    at += n;
  }
  return crc;
}

interface AofFileOnDisk {
  readonly name: string;
  readonly file: number;
  readonly bytes: number;
}

/** The AOF files of ours in `dir` (by name), with their sizes. */
async function filesOf(fs: AofFileSystem, dir: string, base: string): Promise<AofFileOnDisk[]> {
  const out: AofFileOnDisk[] = [];
  for (const name of await fs.list(dir)) {
    const file = parseFileName(base, name);
    if (file === null) continue;
    const h = await fs.open(join(dir, name), 'never');
    try {
      out.push({ name, file, bytes: await h.size() });
    } finally {
      await h.close();
    }
  }
  return out.sort((a, b) => a.file - b.file);
}

const FLUSHDB = Buffer.from('FLUSHDB');
const EXEC = Buffer.from('EXEC');
const DEFAULT_TRANSACTION_WAIT_MS = 1000;

function isCommand(argv: Buffer[], name: string): boolean {
  const a = argv[0]!;
  return a.length === name.length && a.toString('latin1').toUpperCase() === name;
}
