import type { ExpiryRate } from '@strata/hlog';
import type { Keyspace } from './keyspace.js';

/** Index buckets one slice of the expiry cycle visits at effort 1 (Redis's 20 keys a loop). */
const BASE_BUCKETS = 1024;
/** Redis's MAX_CLIENTS_PER_CLOCK_TICK and CONFIG_MAX_HZ. */
const CLIENTS_PER_TICK = 200;
const MAX_HZ = 500;

/**
 * Redis's activeExpireCycle scaled to the log's cycle: it runs `hz` times a
 * second, and `active-expire-effort` (1..10) raises the keys it samples per
 * loop by a quarter each step (ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP +
 * KEYS_PER_LOOP/4 * (effort - 1)). Here a slice is index buckets, so the
 * same factor scales them: hz 10, effort 1 is the store's default,
 * 1024 buckets every 100 ms.
 */
export function expiryRate(hz: number, effort: number): ExpiryRate {
  return {
    intervalMs: Math.max(1, Math.round(1000 / hz)),
    buckets: BASE_BUCKETS + (BASE_BUCKETS / 4) * (effort - 1),
  };
}

/** Redis's dynamic-hz: hz doubled while more than 200 clients share a tick, at most 500. */
export function dynamicHz(configured: number, clients: number): number {
  let hz = configured;
  while (clients / hz > CLIENTS_PER_TICK && hz < MAX_HZ) hz = Math.min(MAX_HZ, hz * 2);
  return hz;
}

/**
 * The expiry cycle's pace from `hz`, `active-expire-effort` and
 * `dynamic-hz` (CONFIG SET sets them), and the number of clients (the
 * server tells it when one comes or goes). Every store gets a new rate
 * only when the pace changes, so its cycle is not restarted for nothing.
 */
export class ExpiryPace {
  configuredHz = 10;
  effort = 1;
  dynamic = true;
  /** The hz in effect (INFO server's `hz`). */
  hz = 10;
  private clients = 0;

  constructor(private readonly keyspace: Keyspace) {}

  /** The clients connected now (a client came or went). */
  clientsChanged(clients: number): void {
    this.clients = clients;
    // Only dynamic-hz makes the count matter: skip the work otherwise.
    if (this.dynamic) this.update();
  }

  /** Applies the settings: every open store, and those opened later, get the rate if it changed. */
  update(): void {
    this.hz = this.dynamic ? dynamicHz(this.configuredHz, this.clients) : this.configuredHz;
    const rate = expiryRate(this.hz, this.effort);
    const now = this.keyspace.expiryRate ?? expiryRate(10, 1);
    if (rate.intervalMs === now.intervalMs && rate.buckets === now.buckets) return;
    this.keyspace.expiryRate = rate;
  }
}
