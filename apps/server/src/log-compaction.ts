import { collectOrphanBlocks, type Keyspace } from '@strata/resp';
import type { Databases } from '@strata/store';

/** How often the log sizes are looked at. */
const CHECK_MS = 250;

/**
 * Compacts each open database whose log on disk passed `threshold` bytes
 * (`compaction-threshold`), one run per database at a time: the log is
 * append-only, so overwritten and deleted keys take disk until compaction
 * copies the live records out of the oldest segments and frees them. After
 * each compaction the database's stream block GC runs (resp's
 * stream-block-gc.ts): blocks no stream head names any more are deleted,
 * which the next compaction frees in turn. Not more often: a pass reads
 * the whole log (yielding as it goes), and an orphan is found only once
 * compaction has dropped the old head that still named it.
 */
export class LogCompaction {
  private timer: NodeJS.Timeout | null = null;
  private readonly running = new Set<Promise<void>>();
  /** Databases with a compaction or its GC pass in progress. */
  private readonly busy = new Set<number>();

  constructor(
    private readonly keyspace: Keyspace,
    private readonly databases: Databases,
    private readonly threshold: number,
  ) {}

  start(): void {
    if (this.threshold <= 0 || this.timer !== null) return;
    this.timer = setInterval(() => this.tick(), CHECK_MS);
  }

  private tick(): void {
    for (let i = 0; i < this.keyspace.count; i++) {
      const store = this.keyspace.get(i);
      if (store === undefined || this.databases.busy(i) || this.busy.has(i)) continue;
      if (this.databases.logBytes(store) <= this.threshold) continue;
      this.busy.add(i);
      // Databases.compact logs a failure; the next tick tries again. A GC pass that fails deletes nothing.
      const run: Promise<void> = this.databases
        .compact(i, store)
        .then(async () => {
          const cache = this.keyspace.collections(i);
          // Tracked: a FLUSHDB, SWAPDB or DEBUG RELOAD waits for the pass to end.
          if (cache !== undefined) await this.keyspace.track(i, collectOrphanBlocks(cache));
        })
        .catch(() => undefined)
        .finally(() => {
          this.busy.delete(i);
          this.running.delete(run);
        });
      this.running.add(run);
    }
  }

  /** Stops the timer and waits for the runs in progress. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.running]);
  }
}
