import { Store } from '@strata/hlog';
import type { ServerState } from '../../server/server-state.js';

/**
 * DEBUG SET-ACTIVE-EXPIRE: Redis's active_expire_enabled, set from atoi
 * (any non-zero number enables). Here each open store's expiry timer is
 * turned on or off; keys still expire when read, as in Redis.
 */
export function setActiveExpire(s: ServerState, arg: string): void {
  const n = Number.parseInt(arg.trim(), 10);
  const on = !Number.isNaN(n) && n !== 0;
  for (let db = 0; db < s.keyspace.count; db++) {
    const store = s.keyspace.get(db);
    if (store instanceof Store) store.activeExpiry = on;
  }
}
