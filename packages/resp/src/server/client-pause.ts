import type { Client } from './client.js';
import type { CommandSpec } from './command-table.js';

/** Redis's pause types, ordered: a second CLIENT PAUSE never lowers the first one's. */
export const PAUSE_NONE = 0;
export const PAUSE_WRITE = 1;
export const PAUSE_ALL = 2;

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether a command may write or replicate (what CLIENT PAUSE WRITE holds). */
export type WriteRule = (client: Client, spec: CommandSpec, argv: readonly Buffer[]) => boolean;

/**
 * CLIENT PAUSE as Redis 7.0 has it: while paused, the commands of every
 * client but a monitor (all of them, or those that may write) are held,
 * not refused, and run in order once the pause ends, by its timeout or
 * CLIENT UNPAUSE. Keys that expire meanwhile stay unannounced until then:
 * Redis expires nothing while paused (strata's store does its own active
 * expiry, so what is held is what the server does with an expiry: the
 * `expired` event, expired_keys, tracking invalidations). Nothing is ever
 * evicted here.
 */
export class ClientPause {
  /** PAUSE_NONE, PAUSE_WRITE or PAUSE_ALL; read by the dispatcher on every command. */
  level = PAUSE_NONE;
  /** When the pause ends (Unix ms). */
  private end = 0;
  private timer: NodeJS.Timeout | null = null;
  private waiters: (() => void)[] = [];
  private writes: WriteRule = () => true;
  private expired: { store: unknown; key: Buffer }[] = [];

  constructor(private readonly announceExpired: (store: unknown, key: Buffer) => void) {}

  /**
   * Pauses until `end` (Unix ms), or longer if a pause already runs past it,
   * at `level` or the level already in force if higher (Redis's pauseClients).
   */
  pause(level: number, end: number, writes: WriteRule): void {
    this.level = Math.max(this.level, level);
    this.writes = writes;
    if (end > this.end) this.end = end;
    this.schedule();
  }

  /** Ends the pause at `end`: a timer can wait at most 2^31-1 ms, so a longer pause waits again. */
  private schedule(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const left = this.end - Date.now();
    if (left <= 0) {
      this.unpause();
      return;
    }
    this.timer = setTimeout(() => this.schedule(), Math.min(left, MAX_TIMER_MS));
    this.timer.unref();
  }

  /** The pause ends: held clients go on in the order they were held, then held expiries are announced. */
  unpause(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.level = PAUSE_NONE;
    this.end = 0;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
    const expired = this.expired;
    this.expired = [];
    for (const e of expired) this.announceExpired(e.store, e.key);
  }

  /** Whether this command of `client` waits for the end of the pause. */
  holds(client: Client, spec: CommandSpec, argv: readonly Buffer[]): boolean {
    return this.level === PAUSE_ALL || this.writes(client, spec, argv);
  }

  /** Resolves once the pause ends. */
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** A key expired while paused: announced when the pause ends. */
  holdExpired(store: unknown, key: Buffer): void {
    this.expired.push({ store, key: Buffer.from(key) });
  }
}
