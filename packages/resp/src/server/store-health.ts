import type { StoreCore } from '@strata/hlog';
import { storeWriteErrorMessage } from '../errors.js';
import type { ServerState } from './server-state.js';

/** How often a failing store's writes are retried (Redis retries a failed AOF write each second). */
const RETRY_MS = 1000;

/**
 * Watches the open databases' stores for device write failures: while a
 * store has a `writeError` (a page or sync it could not persist), the
 * server refuses writes with MISCONF.
 *
 * Event driven: a store's log reports each failure (`onWriteError`) and
 * MISCONF is set at once. While a store fails, its failed pages are retried
 * every second; the error clears once the store is whole again, seen after
 * each retry and whenever a write is about to be refused (`refresh`), so a
 * checkpoint that wrote the pages lets the next write in. Nothing runs while
 * every store is healthy.
 */
export class StoreHealth {
  private readonly watched = new WeakSet<StoreCore>();
  /** Stores that reported a write error and are not known to be whole again. */
  private readonly failing = new Set<StoreCore>();
  private readonly retrying = new Set<StoreCore>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly state: ServerState) {
    state.refreshWriteError = () => this.refresh();
  }

  /**
   * Listens to `store`'s write errors (once per store; a listener set
   * before, by whoever opened it, is still called). A store that already
   * failed is taken up at once.
   */
  watch(store: StoreCore): void {
    if (this.watched.has(store)) return;
    this.watched.add(store);
    const log = store.log;
    // A write that has begun waits for the retries below rather than fail
    // half applied (a multi-key command's reply is then the truth).
    log.waitOutWriteErrors = true;
    const previous = log.onWriteError;
    log.onWriteError = (error) => {
      previous?.(error);
      this.failed(store);
    };
    if (store.writeError !== null) this.failed(store);
  }

  /** Stops the retries (the server is closing). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private failed(store: StoreCore): void {
    if (this.stopped) return;
    this.failing.add(store);
    this.refresh();
  }

  /**
   * Sets the server's per-database write errors from the failing stores
   * (dropping those whole again or no longer open), and keeps the retry
   * timer running while one fails.
   */
  refresh(): void {
    const keyspace = this.state.keyspace;
    const open = new Set<StoreCore>();
    for (let db = 0; db < keyspace.count; db++) {
      const store = keyspace.get(db);
      if (store !== undefined) open.add(store);
      const error = store !== undefined && this.failing.has(store) ? store.writeError : null;
      this.state.setStoreWriteError(
        db,
        error === null ? null : storeWriteErrorMessage(db, error.message),
      );
    }
    for (const store of this.failing) {
      if (store.writeError === null || !open.has(store)) this.failing.delete(store);
    }
    if (this.failing.size > 0 && this.timer === null && !this.stopped) {
      this.timer = setTimeout(() => this.retry(), RETRY_MS);
      this.timer.unref();
    }
  }

  /** Writes the failing stores' pages again; each settled retry refreshes. */
  private retry(): void {
    this.timer = null;
    if (this.stopped) return;
    for (const store of this.failing) {
      if (this.retrying.has(store)) continue;
      this.retrying.add(store);
      const done = () => {
        this.retrying.delete(store);
        if (!this.stopped) this.refresh();
      };
      // A failed retry leaves writeError set: the refresh schedules the next one.
      store.retryWrites().then(done, done);
    }
    this.refresh();
  }
}
