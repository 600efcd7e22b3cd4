import type { SortedSet } from '@strata/collections';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify, publishes } from '../pubsub/keyspace-events.js';
import { keyExists, type Written } from '../shared/collection-access.js';

/**
 * The keyspace events of Redis 7's t_zset.c (notify-keyspace-events) that
 * more than one file of the family sends: `keymiss` (m) where Redis's
 * lookupKeyRead misses, and the STORE forms' destination events. The
 * other events are sent where the change is made (zsets.ts), each once
 * the change is made in memory and before blocked clients are served
 * (Redis serves them after the command). `notify` returns at once for a
 * class that is off.
 */

/**
 * ZRANGESTORE / ZUNIONSTORE / ZINTERSTORE / ZDIFFSTORE's write of `dst`,
 * with Redis's events: a result (`value`) is set (setKey: `new` when no key
 * was there, then `event`); none deletes `dst` (`del` when a key was there).
 * `then` gets the store write and finishes the command (reply, blocked
 * clients). Whether `dst` held a key is looked up only while the event
 * that depends on it (n, or g) is on; the lookup may wait on the disk.
 */
export function storeEvents(
  c: Client,
  dst: Buffer,
  value: SortedSet | null,
  event: string,
  then: (w: Written) => CommandResult,
): CommandResult {
  if (!publishes(c, value === null ? NotifyClass.generic : NotifyClass.new))
    return storeWith(c, dst, value, event, then, null);
  const existed = keyExists(c, dst);
  if (existed instanceof Promise) {
    return existed.then((was) => storeWith(c, dst, value, event, then, was));
  }
  return storeWith(c, dst, value, event, then, existed);
}

/** `existed`: whether `dst` held a key, null when not looked up (no event needs it). */
function storeWith(
  c: Client,
  dst: Buffer,
  value: SortedSet | null,
  event: string,
  then: (w: Written) => CommandResult,
  existed: boolean | null,
): CommandResult {
  if (value === null) {
    const w = c.collections.delete(dst);
    // Not looked up (null): `del` is off, and the call publishes nothing.
    if (existed !== false) notify(c, NotifyClass.generic, 'del', dst);
    return then(w);
  }
  const w = c.collections.create(dst, value);
  if (existed === false) notify(c, NotifyClass.new, 'new', dst);
  notify(c, NotifyClass.zset, event, dst);
  return then(w);
}
