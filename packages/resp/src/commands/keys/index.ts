import type { CommandFamily } from '../family.js';
import { keyCommands } from './keys.js';
import { objectCommand } from './object.js';

/**
 * Keys of any type: DEL, EXISTS, EXPIRE, TTL, RENAME, COPY, MOVE, TYPE, OBJECT...
 *
 * Keyspace notifications, as Redis 7's generic commands publish them:
 * `del` (DEL, UNLINK, an EXPIRE already past), `expire`, `persist`,
 * `rename_from` / `rename_to`, `move_from` / `move_to` (each in its
 * database), `copy_to`, `new` for the key RENAME, MOVE or COPY creates (an
 * overwritten one too), `keymiss` where Redis's lookupKeyRead misses (TYPE,
 * EXISTS, TOUCH, TTL and its kin, COPY's source; not OBJECT, nor the write
 * lookups), and `expired` for a key a lookup finds expired
 * (shared/expiry.ts `expiredOnMiss`, Redis's expireIfNeeded). SWAPDB
 * publishes nothing, as in Redis.
 *
 * What `expired` cannot see from here: the store reads an expired record
 * as missing and says nothing else, so a lookup knows a key expired only
 * while the store's live-key count still holds it as a key with an expiry.
 * The count drops passed keys when it counts (DBSIZE, a checkpoint) and the
 * store's active expiry cycle drops in-memory ones silently; those keys
 * expire without an event. SCAN and RANDOMKEY, which in Redis expire the
 * keys they meet, publish nothing either (the scanner skips expired records).
 */
export const keysFamily: CommandFamily = {
  name: 'keys',
  commands: [...keyCommands, objectCommand],
};
