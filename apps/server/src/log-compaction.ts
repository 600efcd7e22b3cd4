import type { Keyspace } from '@strata/resp';
import type { Databases } from '@strata/store';

/** How often the log sizes are looked at. */
const CHECK_MS = 250;

/**
 * Compacts each open database whose log on disk passed `threshold` bytes
 * (`compaction-threshold`), one run per database at a time: the log is
 * append-only, so overwritten and deleted keys take disk until compaction
 * copies the live records out of the oldest segments and frees them.
 */
export class LogCompaction {
  private timer: NodeJS.Timeout | null = null;
  private readonly running = new Set<Promise<void>>();

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
      if (store === undefined || this.databases.busy(i)) continue;
      if (this.databases.logBytes(store) <= this.threshold) continue;
      // Databases.compact logs a failure; the next tick tries again.
      const run: Promise<void> = this.databases
        .compact(i, store)
        .catch(() => undefined)
        .finally(() => this.running.delete(run));
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
