import type { AppendOnlyFile } from '@strata/aof';
import { type CommandDefinition, CommandError, type Keyspace } from '@strata/resp';
import type { Databases } from '@strata/store';
import type { Logger } from './logger.js';

/** How often a scheduled rewrite and the automatic trigger are looked at (Redis's serverCron at hz 10). */
const TICK_MS = 100;
/** Redis's aofRewriteLimited: after this many failures in a row, automatic rewrites back off. */
const FAILURES_BEFORE_BACKOFF = 3;
const BACKOFF_BASE_MS = 60_000;
const BACKOFF_MAX_MS = 3_600_000;

/** Redis's auto-aof-rewrite-percentage and auto-aof-rewrite-min-size (CONFIG SET changes them). */
export interface AutoRewriteSettings {
  autoAofRewritePercentage: number;
  autoAofRewriteMinSize: number;
}

/** What BGREWRITEAOF did. */
export type RewriteRequest = 'started' | 'scheduled' | 'in-progress';

/**
 * BGREWRITEAOF here: the AOF is already cut at every checkpoint (each
 * database's checkpoint names its position in the file, and the files
 * before the oldest position still needed are dropped), so a rewrite is a
 * checkpoint of every open database, each with its rotation and cut: what
 * is left is that checkpoint plus the commands written since (Redis 7's
 * base plus incr files, the base being the store's own checkpoint). Kill
 * -9 anywhere in it recovers as after a kill during any checkpoint: the
 * manifest changes before a file is removed.
 *
 * Redis's replies and states: `started`; `scheduled` while a checkpoint
 * runs (Redis: while a child process is active) or inside EXEC, started by
 * the next tick once none runs; an error while one is in progress. With
 * the AOF off Redis still rewrites (it writes a base file): here the
 * checkpoints are taken the same way. The automatic rewrite starts when
 * the AOF is over auto-aof-rewrite-min-size and has grown by
 * auto-aof-rewrite-percentage over its size after the last rewrite or cut
 * (aof_base_size), as Redis's serverCron.
 */
export class AofRewrite {
  private running: Promise<void> | null = null;
  private scheduled = false;
  private timer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private lastDurationSec = -1;
  private lastOk = true;
  private rewrites = 0;
  private consecutiveFailures = 0;
  private lastFailureAt = 0;
  /** The AOF's size and cut count right after the last rewrite: the base when that rewrite cut nothing. */
  private afterLast: { size: number; cuts: number } | null = null;

  constructor(
    private readonly keyspace: () => Keyspace,
    private readonly databases: Databases,
    private readonly aof: () => AppendOnlyFile | null,
    private readonly settings: AutoRewriteSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  /** Stops the timer (the automatic rewrite) without waiting for a rewrite in progress. */
  pause(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Stops the timer and waits for a rewrite in progress. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.scheduled = false;
    await this.running;
  }

  /** BGREWRITEAOF (`inExec`: inside a transaction, where Redis schedules it). */
  request(inExec: boolean): RewriteRequest {
    if (this.running !== null) return 'in-progress';
    if (inExec || this.checkpointing()) {
      this.scheduled = true;
      // A manual request may run at once, whatever failed before (Redis resets the count too).
      this.consecutiveFailures = 0;
      return 'scheduled';
    }
    this.run();
    return 'started';
  }

  /** The base the automatic trigger measures growth from (INFO's aof_base_size). */
  baseSize(aof: AppendOnlyFile): number {
    const info = aof.info();
    const after = this.afterLast;
    return after !== null && after.cuts === info.cuts ? after.size : info.baseSize;
  }

  /** INFO persistence's rewrite fields, in Redis 7's names and order. */
  infoLines(): string[] {
    const now = performance.now();
    return [
      `aof_rewrite_in_progress:${this.running === null ? 0 : 1}`,
      `aof_rewrite_scheduled:${this.scheduled ? 1 : 0}`,
      `aof_last_rewrite_time_sec:${this.lastDurationSec}`,
      `aof_current_rewrite_time_sec:${this.running === null ? -1 : Math.round((now - this.startedAt) / 1000)}`,
      `aof_last_bgrewrite_status:${this.lastOk ? 'ok' : 'err'}`,
      `aof_rewrites:${this.rewrites}`,
      `aof_rewrites_consecutive_failures:${this.consecutiveFailures}`,
    ];
  }

  private checkpointing(): boolean {
    for (let i = 0; i < this.databases.count; i++) if (this.databases.busy(i)) return true;
    return false;
  }

  private tick(): void {
    if (this.running !== null || this.checkpointing()) return;
    if (this.scheduled) {
      this.run();
      return;
    }
    const aof = this.aof();
    const { autoAofRewritePercentage: pct, autoAofRewriteMinSize: minSize } = this.settings;
    if (aof === null || pct <= 0) return;
    const size = aof.info().totalSize;
    if (size <= minSize || this.backingOff()) return;
    const base = Math.max(1, this.baseSize(aof));
    const growth = Math.floor((size * 100) / base) - 100;
    if (growth < pct) return;
    this.logger.notice(`Starting automatic rewriting of AOF on ${growth}% growth`);
    this.run();
  }

  /** Redis's aofRewriteLimited: failing automatic rewrites wait 1, 2, 4... minutes (at most an hour). */
  private backingOff(): boolean {
    if (this.consecutiveFailures < FAILURES_BEFORE_BACKOFF) return false;
    const delay = Math.min(
      BACKOFF_MAX_MS,
      BACKOFF_BASE_MS * 2 ** (this.consecutiveFailures - FAILURES_BEFORE_BACKOFF),
    );
    return performance.now() - this.lastFailureAt < delay;
  }

  private run(): void {
    void this.track(() => this.rewrite()).catch(() => undefined);
  }

  /**
   * CONFIG SET appendonly yes: `start` (a new AOF, every open database
   * checkpointed into it) runs as Redis's rewrite that starts an AOF does:
   * after any rewrite in progress, shown in progress by INFO meanwhile,
   * counted as a rewrite. Rejects as `start` does.
   */
  async startAof(start: () => Promise<void>): Promise<void> {
    await this.idle();
    return this.track(start);
  }

  /** Resolves once no rewrite is running (CONFIG SET appendonly no waits for it, where Redis kills it). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  /** Runs `work` as the rewrite in progress (INFO's aof_rewrite_* fields), and counts how it ended. */
  private track(work: () => Promise<void>): Promise<void> {
    this.scheduled = false;
    this.startedAt = performance.now();
    this.logger.notice('Background append only file rewriting started');
    const run = work().then(
      () => this.succeeded(),
      (e: unknown) => {
        this.failed(e);
        throw e;
      },
    );
    this.running = run.then(
      () => {
        this.running = null;
      },
      () => {
        this.running = null;
      },
    );
    return run;
  }

  /** A checkpoint of every open database: each save rotates the AOF, checkpoints, records the position and cuts. */
  private async rewrite(): Promise<void> {
    const keyspace = this.keyspace();
    const saves: Promise<void>[] = [];
    for (let i = 0; i < keyspace.count; i++) {
      const store = keyspace.get(i);
      if (store !== undefined) saves.push(this.databases.save(i, store));
    }
    const results = await Promise.allSettled(saves);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  private failed(reason: unknown): void {
    this.lastDurationSec = Math.round((performance.now() - this.startedAt) / 1000);
    this.lastOk = false;
    this.consecutiveFailures++;
    this.lastFailureAt = performance.now();
    this.logger.warning(
      `Background AOF rewrite failed: ${reason instanceof Error ? reason.message : String(reason)}`,
    );
  }

  private succeeded(): void {
    this.lastDurationSec = Math.round((performance.now() - this.startedAt) / 1000);
    this.lastOk = true;
    this.consecutiveFailures = 0;
    this.rewrites++;
    const aof = this.aof();
    if (aof !== null) {
      const info = aof.info();
      this.afterLast = { size: info.totalSize, cuts: info.cuts };
    }
    this.logger.notice('Background AOF rewrite terminated with success');
  }
}

/** BGREWRITEAOF, in Redis's words (aof.c's bgrewriteaofCommand). */
export function bgrewriteaofCommand(rewrite: () => AofRewrite): CommandDefinition {
  return {
    name: 'bgrewriteaof',
    arity: 1,
    flags: ['admin', 'noscript'],
    firstKey: 0,
    lastKey: 0,
    step: 0,
    acl: ['dangerous'],
    group: 'server',
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Asynchronously rewrites the append-only file to disk.',
    handler(c) {
      const r = rewrite().request(c.inExec);
      if (r === 'in-progress') {
        throw new CommandError(
          'ERR_REWRITE_IN_PROGRESS',
          'ERR Background append only file rewriting already in progress',
        );
      }
      c.reply.simple(
        r === 'started'
          ? 'Background append only file rewriting started'
          : 'Background append only file rewriting scheduled',
      );
      return undefined;
    },
  };
}
