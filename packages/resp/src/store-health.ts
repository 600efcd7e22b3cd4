import { storeWriteErrorMessage } from './errors.js';
import type { ServerState } from './server-state.js';

/** How often the open stores are checked for a write error. */
const CHECK_MS = 100;
/** How often a failing store's writes are retried (Redis retries a failed AOF write each second). */
const RETRY_MS = 1000;

/**
 * Watches the open databases' stores for device write failures: while a
 * store has a `writeError` (a page or sync it could not persist), the
 * server refuses writes with MISCONF; the failed pages are retried every
 * second, and once the store is whole again, writes are accepted again.
 * A poll, not a callback: stores are opened by the database provider, and
 * a check of one field per open database every 100 ms costs nothing.
 */
export class StoreHealth {
  private timer: NodeJS.Timeout | null = null;
  private readonly failing = new Set<number>();
  private readonly retrying = new Set<number>();
  private readonly lastRetry = new Map<number, number>();

  constructor(private readonly state: ServerState) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Updates the server's write error from every open store (and starts retries). */
  check(): void {
    const keyspace = this.state.keyspace;
    const now = Date.now();
    for (let db = 0; db < keyspace.count; db++) {
      const store = keyspace.get(db);
      const error = store?.writeError ?? null;
      if (store === undefined || error === null) {
        if (this.failing.delete(db)) this.state.setStoreWriteError(db, null);
        continue;
      }
      this.failing.add(db);
      this.state.setStoreWriteError(db, storeWriteErrorMessage(db, error.message));
      if (this.retrying.has(db) || now - (this.lastRetry.get(db) ?? 0) < RETRY_MS) continue;
      this.retrying.add(db);
      const done = () => {
        this.retrying.delete(db);
        this.lastRetry.set(db, Date.now());
        if (this.timer !== null) this.check();
      };
      // A failed retry leaves writeError set: the next round tries again.
      store.retryWrites().then(done, done);
    }
  }
}
