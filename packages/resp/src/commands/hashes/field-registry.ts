import { HashValue, latin1 } from '@strata/collections';
import { internalKey, RecordType } from '@strata/hlog';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { withCollection } from '../shared/collection-access.js';

/**
 * The hashes with field expiry times of one database, and when each has one
 * due: Redis keeps them in `db->hexpires` (ebuckets keyed by each hash's
 * soonest field expiry). Here it is a collection of strata's own, a hash at
 * the internal key `\xff\x00strata:hfe` (field: the user's key, value: the
 * soonest expiry, unix ms, as text), so it is data of the store like any
 * other: written back, checkpointed, recovered and evicted by the
 * collection cache within its budget, one entry per hash (not per field).
 *
 * An entry may be early, never late: a write that can only push a hash's
 * soonest expiry later (HPERSIST, HDEL, HSET over a field) leaves it, and
 * the active cycle (field-expiry-cycle.ts) moves it on or drops it when it
 * finds the hash has nothing due (or is gone, or is no hash any more).
 */
export const REGISTRY_KEY: Buffer = internalKey(Buffer.from('hfe', 'latin1'));

const HASH = RecordType.HASH;

/**
 * The registry's one rule: `key`'s entry becomes `min` (unix ms) when it
 * has none or a later one; an entry may be early, never late. Returns
 * whether it changed.
 */
export function noteSoonest(registry: HashValue, key: string, min: number): boolean {
  const at = registry.get(key);
  if (at !== undefined && Number(at) <= min) return false;
  registry.set(key, String(min));
  return true;
}

/**
 * Registers `key` for the active cycle if its soonest field expiry is
 * earlier than the registry's entry (or it has none). Called in the step
 * that changed the hash; when the registry is not in the cache it is
 * loaded and changed once it is (its own lookup: a second key looked up in
 * the same step could make the cache let go of the hash just changed).
 */
export function registerHash(c: Client, key: Buffer, h: HashValue): CommandResult {
  const min = h.minFieldTtl();
  if (min === 0 || h.size === 0) return undefined;
  const k = latin1(key);
  return withCollection<HashValue>(c, REGISTRY_KEY, HASH, (registry) => {
    h.registeredAs = k;
    const reg = registry ?? HashValue.empty();
    if (!noteSoonest(reg, k, min)) return undefined;
    if (registry !== null) {
      c.collections.changed(REGISTRY_KEY, reg);
      return undefined;
    }
    return c.collections.create(REGISTRY_KEY, reg);
  });
}

/**
 * Registers a hash with field expiry times that is not known to be
 * registered under `key` (read back from the log, renamed, moved, copied,
 * replayed): in the background, the command does not wait for it.
 */
export function ensureRegistered(c: Client, key: Buffer, h: HashValue | null): void {
  if (h === null || !h.hasFieldTtls || h.registeredAs === latin1(key)) return;
  registerHash(c, key, h)?.catch(() => undefined);
}
