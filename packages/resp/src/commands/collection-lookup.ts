import type { CollectionLookup, CollectionValue, MaybePending } from '@strata/collections';
import type { Client } from '../client.js';
import type { CommandResult } from '../command-table.js';
import { wrongTypeError } from '../errors.js';

/**
 * Shared plumbing of the sorted set and list commands: look a key up in the
 * database's collection cache, WRONGTYPE when it holds another type, and go
 * on synchronously when it is cached or in memory, or once its record is
 * read from disk.
 */

// One lookup mechanism for every collection type: it looks the key up again
// once a disk read is in (another command may have created or loaded it).
export { withCollection, withCollections } from './collection-access.js';

/** The value of a lookup, null when missing; throws WRONGTYPE. */
export function lookupValue<V extends CollectionValue>(r: CollectionLookup<V>): V | null {
  if (r.status === 'found') return r.value;
  if (r.status === 'wrongType') throw wrongTypeError();
  return null;
}

/**
 * After a change to the collection at `key`: an empty one is deleted (Redis
 * never keeps an empty collection), else the cache learns it changed.
 * Returns the store write to wait for, if any.
 */
export function afterChange(
  c: Client,
  key: Buffer,
  value: CollectionValue,
): Promise<void> | undefined {
  if (value.size === 0) return pendingOf(c.collections.delete(key));
  c.collections.changed(key, value);
  return undefined;
}

/** A store write as a command result: its promise, or undefined when it is done. */
export function pendingOf(w: MaybePending<void>): Promise<void> | undefined {
  return w instanceof Promise ? w : undefined;
}

/** Replies (through `reply`) once `write` is done: sync when it is. */
export function whenWritten(write: MaybePending<void>, reply: () => void): CommandResult {
  if (write instanceof Promise) return write.then(reply);
  reply();
  return undefined;
}

/**
 * Runs `fn` once the selected database is open. Commands whose keys follow
 * a count (ZUNION, LMPOP...) have no fixed first key, so dispatch does not
 * open the database for them.
 */
export function withOpenDb(c: Client, fn: () => CommandResult): CommandResult {
  if (c.server.keyspace.get(c.db) !== undefined) return fn();
  return c.server.keyspace.ensure(c.db).then(() => fn());
}
