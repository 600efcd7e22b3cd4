import { AccessClock } from '@strata/hlog';

/** How often the keys' access clock is re-read (Redis's serverCron at hz 10 caches its LRU clock so). */
const TICK_MS = 100;

/**
 * The server's one access clock, shared by every open database's store
 * (Keyspace installs it): commands touch keys with its cached time, never
 * reading the time per operation, and a timer re-reads it while the server
 * listens.
 */
export class AccessTicker {
  readonly clock: AccessClock;
  private timer: NodeJS.Timeout | null = null;

  /** `now`: ms since the epoch (tests move it). */
  constructor(now: () => number = Date.now) {
    this.clock = new AccessClock(now);
    // Outside a command nothing touches (write-backs, compaction).
    this.clock.touching = false;
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.clock.tick(), TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
