import type { ExpiryRate } from '@strata/hlog';

/** Index buckets one slice of the expiry cycle visits at effort 1 (Redis's 20 keys a loop). */
const BASE_BUCKETS = 1024;

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
