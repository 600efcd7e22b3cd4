import type { Keyspace } from '@strata/resp';
import type { Databases } from './databases.js';

/**
 * Commit points on a timer (`commit-interval`, ms): every open database
 * that changed since its last commit point or checkpoint gets one (see
 * Databases.commit), unless a checkpoint or compaction of it is running
 * (that one is newer). A commit point is what a crash recovers from the
 * log: without the AOF it bounds what a crash loses to about the interval;
 * with the AOF it bounds what the AOF replays one command at a time.
 */
export class PeriodicCommits {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly keyspace: Keyspace,
    private readonly databases: Databases,
    private readonly intervalMs: number,
    /** The AOF is on (commit points then only bound its replay). */
    private readonly aof: () => boolean,
  ) {}

  start(): void {
    if (this.intervalMs <= 0 || this.timer !== null) return;
    this.timer = setInterval(() => {
      if (this.running !== null) return;
      this.running = this.run().finally(() => {
        this.running = null;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** One round: a commit point of each open database that changed (failures are counted and logged there). */
  async run(): Promise<void> {
    const due: Promise<void>[] = [];
    for (let i = 0; i < this.keyspace.count; i++) {
      const store = this.keyspace.get(i);
      if (store === undefined || this.databases.busy(i)) continue;
      // A collection changed in the object cache is a change the log does not
      // show yet (without the AOF, the commit point is what a crash keeps).
      const dirty = this.aof() ? 0 : (this.keyspace.collections(i)?.stats().dirty ?? 0);
      if (dirty === 0 && !this.databases.commitDue(i, store)) continue;
      due.push(this.databases.commit(i, store));
    }
    await Promise.allSettled(due);
  }

  /** Stops the timer and waits for a round in progress. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
