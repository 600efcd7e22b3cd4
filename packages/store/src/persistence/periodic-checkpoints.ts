import type { Keyspace } from '@strata/resp';
import type { Databases } from './databases.js';
import type { PersistenceLogger } from './persistence-logger.js';

/** Redis's `save <seconds> <changes>`: checkpoint once this many changes are this old. */
export interface SaveRule {
  readonly seconds: number;
  readonly changes: number;
}

/** Wait before a failed checkpoint round is tried again (Redis's CONFIG_BGSAVE_RETRY_DELAY). */
const RETRY_AFTER_FAILURE_MS = 5000;

/**
 * Redis's `save <seconds> <changes>` rules, checked every second: once the
 * open databases have seen at least <changes> changes and the last
 * checkpoint round is <seconds> old, the databases that changed are
 * checkpointed (`checkpoint-interval N` is `save N 1`). A change is a write
 * to the log, or a collection changed in the object cache and not yet
 * written back. A checkpoint bounds what recovery replays and makes the
 * in-memory tail of the log durable; a database nobody wrote to is left
 * alone (a checkpoint seals the tail page, so needless ones waste log space).
 */
export class PeriodicCheckpoints {
  private timer: NodeJS.Timeout | null = null;
  /** start() ran and stop() did not: setRules turns the timer on and off. */
  private started = false;
  private running: Promise<void> | null = null;
  private since = performance.now();
  /** The quiet round was logged (debug) since the last change. */
  private quietLogged = false;

  constructor(
    private readonly keyspace: Keyspace,
    private readonly databases: Databases,
    private saveRules: readonly SaveRule[],
    private readonly logger: PersistenceLogger,
  ) {}

  get rules(): readonly SaveRule[] {
    return this.saveRules;
  }

  /**
   * CONFIG SET save: the rules are replaced at once; the time since the
   * last checkpoint round keeps counting (Redis keeps lastsave), so a rule
   * whose seconds have passed already fires at the next tick.
   */
  setRules(rules: readonly SaveRule[]): void {
    this.saveRules = rules;
    if (!this.started) return;
    if (rules.length === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    } else if (rules.length > 0 && this.timer === null) {
      this.startTimer();
    }
  }

  start(): void {
    this.started = true;
    if (this.saveRules.length === 0 || this.timer !== null) return;
    this.since = performance.now();
    this.startTimer();
  }

  /** Each second; it does not keep the process alive by itself (an embedded store's may end). */
  private startTimer(): void {
    this.timer = setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  private tick(): void {
    if (this.running !== null) return;
    this.running = this.run(false).finally(() => {
      this.running = null;
    });
  }

  /**
   * One round: checkpoints every open database that changed (when a rule
   * says so, unless `always`). After a failed checkpoint (periodic, SAVE,
   * BGSAVE) every open database is tried again 5 seconds later, whatever
   * the rules say, changed or not: while it fails, writes may be stopped
   * (stop-writes-on-bgsave-error), so nothing else would ever retry it.
   */
  async run(always = true): Promise<void> {
    const due: [number, NonNullable<ReturnType<Keyspace['get']>>][] = [];
    const status = this.databases.saveStatus;
    const retry =
      status.lastStatus === 'err' && performance.now() - status.lastTryAt >= RETRY_AFTER_FAILURE_MS;
    let changes = 0;
    for (let i = 0; i < this.keyspace.count; i++) {
      const store = this.keyspace.get(i);
      if (store === undefined) continue;
      if (retry) {
        due.push([i, store]);
        continue;
      }
      const n = this.databases.changesSinceCheckpoint(i, store);
      // Collection changes live in the object cache until a write-back: a
      // large collection that keeps changing is written back only by a
      // checkpoint (or eviction), so its dirty entry is a change the log's
      // counters cannot see.
      const dirty = this.keyspace.collections(i)?.stats().dirty ?? 0;
      if (n === null && dirty === 0) continue;
      due.push([i, store]);
      // A change the write counter missed (an in-place update) is still one.
      changes += Math.max(1, (n ?? 0) + dirty);
    }
    // Whole seconds, as Redis's clock: a timer a little early still counts.
    const elapsed = Math.round((performance.now() - this.since) / 1000);
    if (due.length === 0) {
      // Once per quiet spell, when a rule's time is up (not every second).
      const dueTime = this.saveRules.some((r) => elapsed >= r.seconds);
      if (always || (dueTime && !this.quietLogged)) {
        this.logger.debug('No changes since the last checkpoint');
        this.quietLogged = true;
      }
      return;
    }
    this.quietLogged = false;
    if (
      !always &&
      !retry &&
      !this.saveRules.some((r) => changes >= r.changes && elapsed >= r.seconds)
    )
      return;
    this.since = performance.now();
    if (retry) this.logger.verbose('The last checkpoint failed: trying again...');
    else this.logger.notice(`${changes} changes in ${elapsed} seconds. Checkpointing...`);
    // Each database logs its own result.
    // The store's checkpoint writes its cached collections back itself (hlog's onBeforeCheckpoint).
    await Promise.allSettled(due.map(([i, store]) => this.databases.save(i, store)));
  }

  /** Stops the timer and waits for a round in progress. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
