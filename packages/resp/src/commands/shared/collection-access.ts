import type { CollectionLookup, CollectionValue, MaybePending } from '@strata/collections';
import { cacheContendedError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { keyMiss, NotifyClass, type NotifyClassBit, notify } from '../pubsub/keyspace-events.js';

/**
 * How every collection command (hash, set, sorted set, list) reaches its
 * value: looked up in the database's collection cache, WRONGTYPE answered
 * here once, synchronous when the key is cached or in memory; and how a
 * change goes back (an empty collection is deleted, as Redis never keeps
 * one) with the reply sent only once the store write it needs is done.
 */

export type Found<V> = V | null;

/** A store write still in flight, or undefined when it is done. */
export type Written = Promise<void> | undefined;

/** The value of a lookup, null when missing; throws WRONGTYPE. */
export function lookupValue<V extends CollectionValue>(r: CollectionLookup<V>): Found<V> {
  if (r.status === 'wrongType') throw wrongTypeError();
  return r.status === 'found' ? r.value : null;
}

/**
 * Runs `f` with the collection at `key` (null when missing); WRONGTYPE when
 * the key holds another type. `f` may return a promise (a record write).
 */
export function withCollection<V extends CollectionValue>(
  c: Client,
  key: Buffer,
  type: number,
  f: (value: Found<V>) => CommandResult,
): CommandResult {
  return withCollectionArg<V, (value: Found<V>) => CommandResult>(c, key, type, callWith, f);
}

const callWith = <V>(value: V, f: (value: V) => CommandResult): CommandResult => f(value);

/**
 * withCollection for a hot command: `f` takes `arg` (what the command
 * parsed) instead of closing over it, so a lookup that finds the value in
 * the cache allocates nothing here.
 */
export function withCollectionArg<V extends CollectionValue, A>(
  c: Client,
  key: Buffer,
  type: number,
  f: (value: Found<V>, arg: A) => CommandResult,
  arg: A,
): CommandResult {
  const r = c.collections.get<V>(key, type);
  if (!(r instanceof Promise)) return f(lookupValue(r), arg);
  // Looked up again once the disk read is in: another command may have
  // created or loaded the key meanwhile, and the decision (create or change)
  // must be taken in the same step as the change.
  return r.then(() => {
    const again = c.collections.get<V>(key, type);
    if (again instanceof Promise) return again.then((x) => f(lookupValue(x), arg));
    return f(lookupValue(again), arg);
  });
}

/**
 * A command that changes what it looked up repeats lookups that waited on
 * the disk until one synchronous step finds every key in the cache: a value
 * loaded in an earlier turn may have been let go by the cache since
 * (another key's load evicted it), and a change made to that copy would be
 * lost. Each round loads what is missing; for the two keys of SMOVE/LMOVE
 * a round or two do unless other clients keep evicting them. A command
 * that only reads may use a copy the cache let go: it is the value the key
 * had, and a cache smaller than its keys could never hold them all at once.
 */
const MAX_LOOKUP_ROUNDS = 8;

/**
 * A lookup repeated after one that waited on the disk (`last`, its
 * result): a key the last round found missing on the disk stays missing
 * while its lookup still has to go to the disk. The cache keeps no entry
 * for a missing key, and any write since would have put a record in
 * memory (or an entry in the cache), making the lookup synchronous.
 * Without this, a key deleted long ago (its tombstone on disk) could never
 * be taken in one synchronous step.
 */
function lookupAgain<V extends CollectionValue>(
  cs: Client['collections'],
  key: Buffer,
  type: number,
  last: CollectionLookup<V> | undefined,
): MaybePending<CollectionLookup<V>> {
  const r = cs.get<V>(key, type);
  return r instanceof Promise && last?.status === 'missing' ? last : r;
}

/** Every key's lookup, in order; taken in one synchronous step when `changes` (see above). */
export function lookupTogether<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  type: number,
  changes: boolean,
  f: (found: CollectionLookup<V>[]) => CommandResult,
  round = 0,
  last: readonly CollectionLookup<V>[] | null = null,
): CommandResult {
  const cs = c.collections;
  const found: MaybePending<CollectionLookup<V>>[] = [];
  let pending = false;
  for (let i = 0; i < keys.length; i++) {
    const r = lookupAgain<V>(cs, keys[i]!, type, last?.[i]);
    if (r instanceof Promise) pending = true;
    found.push(r);
  }
  if (!pending) return f(found as CollectionLookup<V>[]);
  if (!changes && round > 0) return Promise.all(found).then(f);
  if (round >= MAX_LOOKUP_ROUNDS) throw cacheContendedError();
  return Promise.all(found).then((resolved) =>
    lookupTogether(c, keys, type, changes, f, round + 1, resolved),
  );
}

/**
 * Every key's collection, in order (null when missing); WRONGTYPE if any
 * holds another type. `changes`: `f` changes these values (see lookupTogether).
 */
export function withCollections<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  type: number,
  f: (values: Found<V>[]) => CommandResult,
  changes = false,
): CommandResult {
  return lookupTogether<V>(c, keys, type, changes, (found) => f(found.map(lookupValue)));
}

/**
 * The first key of `keys` holding a non-empty collection of `type`, its
 * type checked in order up to it (as Redis's LMPOP and blocking pops: a
 * wrong type after it is not looked at): `fn` gets its index and value, or
 * -1 and null.
 */
export function withFirstNonEmpty<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  type: number,
  fn: (index: number, value: Found<V>) => CommandResult,
): CommandResult {
  const step = (i: number, round: number, last?: CollectionLookup<V>): CommandResult => {
    for (; i < keys.length; i++) {
      const r = lookupAgain<V>(c.collections, keys[i]!, type, last);
      last = undefined;
      if (r instanceof Promise) {
        // Looked up again once loaded (the pop must change the cached value).
        if (round >= MAX_LOOKUP_ROUNDS) throw cacheContendedError();
        const at = i;
        return r.then((x) => step(at, round + 1, x));
      }
      const v = lookupValue(r);
      if (v !== null && v.size > 0) return fn(i, v);
    }
    return fn(-1, null);
  };
  return step(0, 0);
}

// ---- reads: key misses ------------------------------------------------------------

/**
 * The values of a read's lookups of `keys` (see lookupTogether), in order as
 * Redis's loops over lookupKeyRead take them (SINTER, SUNION, ZUNION...):
 * each missing key is a key miss, and the first key holding another type
 * throws WRONGTYPE, the misses before it published already.
 */
export function readValues<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  found: readonly CollectionLookup<V>[],
): Found<V>[] {
  const values: Found<V>[] = [];
  for (let i = 0; i < found.length; i++) {
    const v = lookupValue(found[i]!);
    if (v === null) keyMiss(c, keys[i]!);
    values.push(v);
  }
  return values;
}

/** withCollections for a command that only reads: its misses published as readValues does. */
export function readCollections<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  type: number,
  f: (values: Found<V>[]) => CommandResult,
): CommandResult {
  return lookupTogether<V>(c, keys, type, false, (found) => f(readValues(c, keys, found)));
}

/** Whether `key` holds a value of any type (Redis's lookupKeyWrite for STORE destinations: no key miss). */
export function keyExists(c: Client, key: Buffer): boolean | Promise<boolean> {
  return c.collections.exists(key);
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

// ---- writes ------------------------------------------------------------------------

/**
 * After a change to the collection at `key`: an empty one is deleted, else
 * the cache learns it changed (it is written back later).
 */
export function afterChange(c: Client, key: Buffer, value: CollectionValue): Written {
  if (value.size === 0) return c.collections.delete(key);
  c.collections.changed(key, value);
  return undefined;
}

/**
 * After writing into `value` at `key`, which is `fresh` when the key held
 * nothing before: a fresh collection is created (unless it stayed empty:
 * then there is nothing to store), an existing one goes through afterChange.
 */
export function afterWrite(
  c: Client,
  key: Buffer,
  value: CollectionValue,
  fresh: boolean,
): Written {
  if (!fresh) return afterChange(c, key, value);
  return value.size === 0 ? undefined : c.collections.create(key, value);
}

/**
 * afterChange, then the keyspace events of the change, in Redis's order:
 * the command's `event` of class `type` (`hdel`, `srem`, `spop`...), then
 * `del` (class g) when the collection was left empty and deleted.
 */
export function afterChangeNotify(
  c: Client,
  key: Buffer,
  value: CollectionValue,
  type: NotifyClassBit,
  event: string,
): Written {
  const written = afterChange(c, key, value);
  notify(c, type, event, key);
  if (value.size === 0) notify(c, NotifyClass.generic, 'del', key);
  return written;
}

/**
 * afterWrite, then `new` (class n) when it created the key: Redis's dbAdd
 * publishes it as the key is added, before anything else of the command.
 * A fresh collection left empty was not created: no event.
 */
export function afterWriteNew(
  c: Client,
  key: Buffer,
  value: CollectionValue,
  fresh: boolean,
): Written {
  const written = afterWrite(c, key, value, fresh);
  if (fresh && value.size > 0) notify(c, NotifyClass.new, 'new', key);
  return written;
}

/**
 * afterWriteNew, then the command's `event` of class `type` (`sadd`...):
 * for commands Redis answers after publishing (see whenWrittenNotify for
 * those it answers first).
 */
export function afterWriteNotify(
  c: Client,
  key: Buffer,
  value: CollectionValue,
  fresh: boolean,
  type: NotifyClassBit,
  event: string,
): Written {
  if (!fresh) return afterChangeNotify(c, key, value, type, event);
  const written = afterWriteNew(c, key, value, true);
  if (value.size > 0) notify(c, type, event, key);
  return written;
}

/**
 * whenWritten for a command Redis answers before it publishes `event`
 * (HSET, HINCRBY, the STOREs; SPOP's `del`): a client subscribed to its
 * own keys gets the reply, then the push. When the reply waits for the
 * store, the event is published at once (events keep the order of the
 * changes; the client's own pushes wait for its reply then anyway).
 */
export function whenWrittenNotify(
  c: Client,
  write: Written,
  reply: () => void,
  type: NotifyClassBit,
  event: string,
  key: Buffer,
): CommandResult {
  if (write === undefined) {
    reply();
    notify(c, type, event, key);
    return undefined;
  }
  notify(c, type, event, key);
  return write.then(reply);
}

/** One write standing for two (a move changes its source and its destination). */
export function bothWritten(a: Written, b: Written): Written {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Promise.all([a, b]).then(() => undefined);
}

/**
 * Replies (through `reply`) once `write` is done, synchronously when it is:
 * a failed write makes its error the only reply.
 */
export function whenWritten(write: Written, reply: () => void): CommandResult {
  if (write === undefined) {
    reply();
    return undefined;
  }
  return write.then(reply);
}
