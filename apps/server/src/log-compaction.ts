import { collectOrphanBlocks, type Keyspace } from '@strata/resp';
import type { Databases } from '@strata/store';

/** How often the log sizes are looked at. */
const CHECK_MS = 250;
/** A database's stream block GC runs after each of its compactions, and at least this often. */
const BLOCK_GC_EVERY_MS = 10 * 60 * 1000;

/**
 * Compacts each open database whose log on disk passed `threshold` bytes
 * (`compaction-threshold`), one run per database at a time: the log is
 * append-only, so overwritten and deleted keys take disk until compaction
 * copies the live records out of the oldest segments and frees them. After
 * each compaction, and every BLOCK_GC_EVERY_MS whether or not compaction
 * is on, the database's stream block GC runs (resp's stream-block-gc.ts):
 * blocks no stream head names any more are deleted, which compaction then
 * frees in turn. A pass reads the whole log; it yields as it goes.
 */
export class LogCompaction {
  private timer: NodeJS.Timeout | null = null;
  private readonly running = new Set<Promise<void>>();
  /** Databases with a compaction or a GC pass in progress. */
  private readonly gcRunning = new Set<number>();
  /** When each database's last GC pass started (first: a random point in the period). */
  private readonly lastGc = new Map<number, number>();

  constructor(
    private readonly keyspace: Keyspace,
    private readonly databases: Databases,
    private readonly threshold: number,
  ) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.tick(), CHECK_MS);
  }

  private tick(): void {
    const now = Date.now();
    for (let i = 0; i < this.keyspace.count; i++) {
      const store = this.keyspace.get(i);
      if (store === undefined || this.databases.busy(i) || this.gcRunning.has(i)) continue;
      const compact = this.threshold > 0 && this.databases.logBytes(store) > this.threshold;
      let last = this.lastGc.get(i);
      if (last === undefined) {
        // Databases opened together do not all pass at once.
        last = now - Math.random() * BLOCK_GC_EVERY_MS;
        this.lastGc.set(i, last);
      }
      const gcDue = now - last >= BLOCK_GC_EVERY_MS;
      if (!compact && !gcDue) continue;
      this.gcRunning.add(i);
      // Databases.compact logs a failure; the next tick tries again. A GC pass that fails deletes nothing.
      const run: Promise<void> = (compact ? this.databases.compact(i, store) : Promise.resolve())
        .then(() => {
          const cache = this.keyspace.collections(i);
          this.lastGc.set(i, Date.now());
          return cache === undefined ? undefined : collectOrphanBlocks(cache);
        })
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          this.gcRunning.delete(i);
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
