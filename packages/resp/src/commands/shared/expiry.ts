import type { StoreCore } from '@strata/hlog';
import { INT64_MAX_DOUBLE } from '@strata/io';
import { eqi, parseInteger } from '../../args.js';
import { invalidExpireError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import { keyMiss } from '../pubsub/keyspace-events.js';

/** An expiry option of SET / GETEX: which one, and its argument. */
export const ExpiryUnit = {
  NONE: 0,
  EX: 1,
  PX: 2,
  EXAT: 3,
  PXAT: 4,
} as const;

/** The option at `argv[i]`, or NONE. */
export function expiryOption(arg: Buffer): number {
  if (eqi(arg, 'ex')) return ExpiryUnit.EX;
  if (eqi(arg, 'px')) return ExpiryUnit.PX;
  if (eqi(arg, 'exat')) return ExpiryUnit.EXAT;
  if (eqi(arg, 'pxat')) return ExpiryUnit.PXAT;
  return ExpiryUnit.NONE;
}

/**
 * Redis's getExpireMillisecondsOrReply: a positive integer, in range once
 * converted to ms and added to now; the absolute expiry in ms.
 */
export function expiryMs(arg: Buffer, unit: number, command: string, now: number): number {
  const v = parseInteger(arg);
  const seconds = unit === ExpiryUnit.EX || unit === ExpiryUnit.EXAT;
  if (v <= 0 || (seconds && v > INT64_MAX_DOUBLE / 1000)) throw invalidExpireError(command);
  let ms = seconds ? v * 1000 : v;
  if (unit === ExpiryUnit.EX || unit === ExpiryUnit.PX) {
    if (ms > INT64_MAX_DOUBLE - now) throw invalidExpireError(command);
    ms += now;
  }
  return ms;
}

/** Unwraps the next argument of an option that takes one, or syntax error. */
export function optionValue(argv: Buffer[], i: number): Buffer {
  const v = argv[i + 1];
  if (v === undefined) throw syntaxError();
  return v;
}

/**
 * Redis's expireIfNeeded, for a lookup that found no live record of `key`
 * in `store` (database `db`): when the key was there with an expiry that
 * has passed, it is published `expired` (class x), once; the event also
 * tells client tracking the key changed (by no client, as in Redis).
 *
 * The store reads an expired record as missing and says nothing more; what
 * remembers that the key had an expiry is its live-key count, which keeps
 * every key with an expiry (passed or not) until a count (DBSIZE, a
 * checkpoint) or the store's active expiry cycle drops the passed ones. So
 * a miss on a key the count still holds is a key that expired, and taking
 * it out of the count (what its next count would do) reports it only
 * once. A key the count dropped already expires silently (see
 * commands/keys/index.ts). `waited`: the miss came from the disk, and
 * other clients' writes may have landed since; one that made the key live
 * again wins (the check reads the key again, once per expired key).
 *
 * Cheap on the miss path: nothing when the store has no key with an
 * expiry, else one lookup of the key's hash; no allocation.
 */
export function expiredOnMiss(
  c: Client,
  key: Buffer,
  waited: boolean,
  store: StoreCore = c.store,
): void {
  const count = store.count;
  if (!count.hasExpiring(key)) return;
  if (waited) {
    // Found: rewritten since. Still on the disk: nothing was written since.
    const v = store.probe(key);
    if (v.status === 'found') return;
    if (v.status === 'pending') v.pending.catch(() => undefined);
  }
  // The store's signal: the pubsub family publishes `expired` in the store's database.
  count.expired(key, 0, key.length);
}

/**
 * A read lookup that found no live `key` (Redis's lookupKeyRead): `expired`
 * if it had just expired, then `keymiss` (class m).
 */
export function readMissed(c: Client, key: Buffer, waited: boolean): void {
  expiredOnMiss(c, key, waited);
  keyMiss(c, key);
}
