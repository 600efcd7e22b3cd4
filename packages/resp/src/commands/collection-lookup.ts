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

/** Runs `fn` with the collection at `key` (null when missing); WRONGTYPE for another type. */
export function withCollection<V extends CollectionValue>(
  c: Client,
  key: Buffer,
  type: number,
  fn: (value: V | null) => CommandResult,
): CommandResult {
  const r = c.collections.get<V>(key, type);
  if (r instanceof Promise) return r.then((found) => fn(lookupValue(found)));
  return fn(lookupValue(r));
}

/** The value of a lookup, null when missing; throws WRONGTYPE. */
export function lookupValue<V extends CollectionValue>(r: CollectionLookup<V>): V | null {
  if (r.status === 'found') return r.value;
  if (r.status === 'wrongType') throw wrongTypeError();
  return null;
}

/** Looks up every key in order (WRONGTYPE on the first of another type), then runs `fn`. */
export function withCollections<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  type: number,
  fn: (values: (V | null)[]) => CommandResult,
): CommandResult {
  const lookups: MaybePending<CollectionLookup<V>>[] = [];
  let pending = false;
  for (const k of keys) {
    const r = c.collections.get<V>(k, type);
    if (r instanceof Promise) pending = true;
    lookups.push(r);
  }
  if (!pending) return fn(lookups.map((r) => lookupValue(r as CollectionLookup<V>)));
  return Promise.all(lookups).then((rs) => fn(rs.map(lookupValue)));
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
