import {
  beginStreamBuild,
  type CollectionStore,
  copyStreamBlocks,
  decoderFor,
  type StreamBuild,
  type StreamValue,
} from '@strata/collections';
import { type ReadResult, RecordType, type StoreCore } from '@strata/hlog';
import { INT64_MAX_DOUBLE } from '@strata/io';
import { eqi, parseInteger } from '../../args.js';
import { CommandError, dbIndexError, invalidExpireError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import type { ServerState } from '../../server/server-state.js';
import { signalDatabase, signalReady } from '../blocking/blocking-registry.js';
import { NotifyClass, notify, notifyKeyspaceEvent } from '../pubsub/keyspace-events.js';
import { genericGroup } from '../shared/command-groups.js';
import { expiredOnMiss, readMissed } from '../shared/expiry.js';
import { ALL_KEYS, KEY1, NO_KEYS, SRC_DST } from '../shared/key-positions.js';
import { readRecord, settled } from '../shared/read-record.js';
import { whenNonZero } from '../shared/replay-rules.js';
import {
  dropBlocksAfter,
  type LazyFreeCase,
  loadStreamHead,
  streamHeadOf,
  streamWithBlocks,
} from '../streams/stream-removal.js';
import { expireReplay } from './replay.js';

type KeyOp = (store: StoreCore, key: Buffer) => boolean | Promise<boolean>;

/**
 * What one key of a countKeys command publishes once its answer is known
 * (`yes`: `op` said yes; `waited`: it came from the disk).
 */
type KeyEvents = (c: Client, key: Buffer, yes: boolean, waited: boolean) => void;

/**
 * Counts the keys for which `op` says yes. Every operation is issued at
 * once, so keys on disk are read concurrently (one batch of reads, not one
 * after the other). `events` publishes each key's events in argument order
 * before the reply, as Redis notifies key by key as it goes: the answers
 * before the first one on disk at once, the others once all are in (only
 * those are kept).
 */
function countKeys(c: Client, argv: Buffer[], op: KeyOp, events: KeyEvents): CommandResult {
  const store = c.store;
  let n = 0;
  let waits: (boolean | Promise<boolean>)[] | null = null;
  let first = 0;
  for (let i = 1; i < argv.length; i++) {
    const r = op(store, argv[i]!);
    if (waits === null) {
      if (r === true || r === false) {
        if (r) n++;
        events(c, argv[i]!, r, false);
        continue;
      }
      waits = [];
      first = i;
    }
    waits.push(r);
  }
  if (waits === null) {
    c.reply.integer(n);
    return undefined;
  }
  return Promise.all(waits).then((rs) => {
    for (let j = 0; j < rs.length; j++) {
      const yes = rs[j]!;
      if (yes) n++;
      events(c, argv[first + j]!, yes, true);
    }
    c.reply.integer(n);
  });
}

/** DEL / UNLINK: `del` for each key removed, `expired` for one found expired (Redis's delGenericCommand). */
const delEvents: KeyEvents = (c, key, deleted, waited) => {
  // Clients blocked on the key hear of it from the collection cache (signalGone).
  if (deleted) notify(c, NotifyClass.generic, 'del', key);
  else expiredOnMiss(c, key, waited);
};

/** EXISTS / TOUCH: a miss is a lookupKeyRead's: `expired` if it just expired, then `keymiss`. */
const existsEvents: KeyEvents = (c, key, found, waited) => {
  if (!found) readMissed(c, key, waited);
};

function exists(store: StoreCore, key: Buffer): boolean | Promise<boolean> {
  const v = store.probe(key);
  if (v.status === 'pending') return v.pending.then((r) => r.status === 'found');
  return v.status === 'found';
}

/**
 * DEL / UNLINK of one key: its cached collection goes first (nothing of it
 * is written back). A stream's blocks go after its head: a cached head is
 * known; a head not cached is met by the delete itself, which leaves a
 * stream alone (`keep`) so its head is read first, then deleted.
 */
function removeKey(
  c: Client,
  lazy: LazyFreeCase | true,
): (store: StoreCore, key: Buffer) => boolean | Promise<boolean> {
  const collections = c.collections;
  const free: Freeing = { s: c.server, lazy };
  return (store, key) => {
    // A cached collection is newer than its record: what it holds decides.
    const cached = collections.invalidate(key);
    if (cached !== undefined) {
      return removeHead(collections, store, key, streamWithBlocks(cached), free);
    }
    const v = store.remove(key, RecordType.STREAM);
    if (v.status === 'pending') {
      return v.pending.then((r) =>
        r.status === 'wrongType'
          ? removeStream(collections, store, key, free)
          : r.status === 'deleted',
      );
    }
    if (v.status === 'wrongType') return removeStream(collections, store, key, free);
    return v.status === 'deleted';
  };
}

/** How a removal frees a stream's blocks: before its reply, or after it (lazyfree). */
interface Freeing {
  readonly s: ServerState;
  readonly lazy: LazyFreeCase | true;
}

/**
 * A stream whose head is not cached (the delete kept it): read, then
 * deleted with its blocks. The head read is cached now: it goes first.
 */
function removeStream(
  collections: CollectionStore,
  store: StoreCore,
  key: Buffer,
  free: Freeing,
): boolean | Promise<boolean> {
  const removeRead = (head: StreamValue | null) => {
    collections.invalidate(key);
    return removeHead(collections, store, key, head, free);
  };
  const head = loadStreamHead(collections, key);
  return head instanceof Promise ? head.then(removeRead) : removeRead(head);
}

/** Deletes `key` (its cached collection already forgotten), then `head`'s blocks. */
function removeHead(
  collections: CollectionStore,
  store: StoreCore,
  key: Buffer,
  head: StreamValue | null,
  free: Freeing,
): boolean | Promise<boolean> {
  const v = store.remove(key);
  const done =
    v.status === 'pending' ? v.pending.then((r) => r.status === 'deleted') : v.status === 'deleted';
  const wait = dropBlocksAfter(done, head, collections, free.s, free.lazy);
  return wait === undefined ? done : wait.then(() => done);
}

/** A probe as a result: found with its expiry, or not found. */
function probe(store: StoreCore, key: Buffer): ReadResult | Promise<ReadResult> {
  const v = store.probe(key);
  if (v.status === 'pending') return v.pending;
  if (v.status === 'found') {
    return { status: 'found', value: EMPTY, expiresAt: v.expiresAt, type: v.type };
  }
  return { status: 'notFound' };
}

const EMPTY = Buffer.alloc(0);

/** TYPE's answer for a record type. */
export function typeName(type: number): string {
  switch (type) {
    case RecordType.HASH:
      return 'hash';
    case RecordType.SET:
      return 'set';
    case RecordType.ZSET:
      return 'zset';
    case RecordType.LIST:
      return 'list';
    case RecordType.STREAM:
      return 'stream';
    default:
      return 'string';
  }
}

/** `f` of the key's probe; `waited`: the answer came from the disk. */
function withProbe(
  c: Client,
  key: Buffer,
  f: (r: ReadResult, waited: boolean) => CommandResult,
): CommandResult {
  const r = probe(c.store, key);
  if (r instanceof Promise) return r.then((x) => f(x, true));
  return f(r, false);
}

// ---- TTL -----------------------------------------------------------------------

/** TTL / PTTL / EXPIRETIME / PEXPIRETIME (Redis's ttlGenericCommand). */
function ttl(c: Client, argv: Buffer[], ms: boolean, absolute: boolean): CommandResult {
  return withProbe(c, argv[1]!, (r, waited) => {
    if (r.status === 'notFound') {
      readMissed(c, argv[1]!, waited);
      c.reply.integer(-2);
    } else if (r.expiresAt === 0) c.reply.integer(-1);
    else {
      let t = absolute ? r.expiresAt : r.expiresAt - c.now();
      if (t < 0) t = 0;
      c.reply.integer(ms ? t : Math.floor((t + 500) / 1000));
    }
    return undefined;
  });
}

// ---- EXPIRE family ---------------------------------------------------------------

const NX = 1;
const XX = 2;
const GT = 4;
const LT = 8;

/** Redis's expireGenericCommand: options, range checks, then the key's current expiry. */
function expire(
  c: Client,
  argv: Buffer[],
  name: string,
  seconds: boolean,
  absolute: boolean,
): CommandResult {
  let flags = 0;
  for (let i = 3; i < argv.length; i++) {
    const a = argv[i]!;
    if (eqi(a, 'nx')) flags |= NX;
    else if (eqi(a, 'xx')) flags |= XX;
    else if (eqi(a, 'gt')) flags |= GT;
    else if (eqi(a, 'lt')) flags |= LT;
    else {
      throw new CommandError('ERR_SYNTAX', `ERR Unsupported option ${a.toString('latin1')}`, true);
    }
  }
  if ((flags & NX) !== 0 && (flags & (XX | GT | LT)) !== 0) {
    throw new CommandError(
      'ERR_SYNTAX',
      'ERR NX and XX, GT or LT options at the same time are not compatible',
    );
  }
  if ((flags & GT) !== 0 && (flags & LT) !== 0) {
    throw new CommandError(
      'ERR_SYNTAX',
      'ERR GT and LT options at the same time are not compatible',
    );
  }
  let when = parseInteger(argv[2]!);
  if (seconds) {
    if (when > INT64_MAX_DOUBLE / 1000 || when < -INT64_MAX_DOUBLE / 1000)
      throw invalidExpireError(name);
    when *= 1000;
  }
  const base = absolute ? 0 : c.now();
  if (when > INT64_MAX_DOUBLE - base) throw invalidExpireError(name);
  when += base;
  const key = argv[1]!;
  const store = c.store;
  return withProbe(c, key, (r, waited) => {
    if (r.status === 'notFound') {
      expiredOnMiss(c, key, waited);
      c.reply.integer(0);
      return undefined;
    }
    const current = r.expiresAt === 0 ? -1 : r.expiresAt;
    if (
      ((flags & NX) !== 0 && current !== -1) ||
      ((flags & XX) !== 0 && current === -1) ||
      ((flags & GT) !== 0 && (current === -1 || when <= current)) ||
      ((flags & LT) !== 0 && current !== -1 && when >= current)
    ) {
      c.reply.integer(0);
      return undefined;
    }
    if (when <= c.now()) {
      // Already expired (by the store's clock, which AOF replay sets to the
      // command's time): the key goes now, as Redis deletes it, with `del`.
      c.collections.invalidate(key);
      const d = store.remove(key);
      if (d.status === 'pending') {
        return d.pending.then(() => {
          notify(c, NotifyClass.generic, 'del', key);
          c.reply.integer(1);
        });
      }
      notify(c, NotifyClass.generic, 'del', key);
      c.reply.integer(1);
      return undefined;
    }
    const v = store.setExpiry(key, when);
    if (v.status === 'pending') {
      return v.pending.then((x) => expiryDone(c, key, when, x.status, 'expire'));
    }
    expiryDone(c, key, when, v.status, 'expire');
    return undefined;
  });
}

/**
 * EXPIRE's or PERSIST's reply once the store set the expiry (or found no
 * key, or for PERSIST none to remove), and its event: Redis replies to
 * EXPIRE before notifying, and to PERSIST after.
 */
function expiryDone(
  c: Client,
  key: Buffer,
  when: number,
  status: 'ok' | 'notSet' | 'notFound',
  event: 'expire' | 'persist',
): void {
  if (status !== 'ok') {
    c.reply.integer(0);
    return;
  }
  c.collections.expiryChanged(key, when);
  if (event === 'expire') c.reply.integer(1);
  notify(c, NotifyClass.generic, event, key);
  if (event === 'persist') c.reply.integer(1);
}

/** PERSIST (Redis's persistCommand: a write lookup, then `persist` when an expiry went). */
function persist(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const v = c.store.setExpiry(key, 0);
  if (v.status === 'pending') {
    return v.pending.then((r) => {
      if (r.status === 'notFound') expiredOnMiss(c, key, true);
      expiryDone(c, key, 0, r.status, 'persist');
    });
  }
  if (v.status === 'notFound') expiredOnMiss(c, key, false);
  expiryDone(c, key, 0, v.status, 'persist');
  return undefined;
}

// ---- RENAME / COPY / MOVE -------------------------------------------------------

const sameObjectError = () =>
  new CommandError('ERR_SYNTAX', 'ERR source and destination objects are the same');
const noSuchKeyError = () => new CommandError('ERR_SYNTAX', 'ERR no such key');

/** A read as an owned value with its expiry (copied: the store reuses its views). */

/**
 * Moves or copies `src` (in `from`) to `dst` (in `to`): reads, checks, then
 * writes. The whole of it runs with other clients held (the server's
 * exclusive gate), so nothing lands between the read and the writes even
 * when the records are on disk.
 */
function transfer(
  c: Client,
  fromDb: number,
  src: Buffer,
  toDb: number,
  dst: Buffer,
  mode: 'rename' | 'renamenx' | 'copy' | 'copy-replace' | 'move',
): CommandResult {
  return c.server.runExclusive(c, async () => {
    const keyspace = c.server.keyspace;
    const from = await keyspace.ensure(fromDb);
    const to = await keyspace.ensure(toDb);
    const fromCollections = keyspace.collections(fromDb) as CollectionStore;
    const toCollections = keyspace.collections(toDb) as CollectionStore;
    // A cached collection is written back first: the record is what moves.
    await fromCollections.writeBack(src);
    const server = c.server;
    const r = await readRecord(from, src);
    if (r.status === 'notFound') {
      // Write lookups but COPY's, whose read lookup of the source misses (keymiss).
      expiredOnMiss(c, src, false, from);
      if (mode === 'rename' || mode === 'renamenx') throw noSuchKeyError();
      if (mode !== 'move') notifyKeyspaceEvent(server, NotifyClass.keyMiss, 'keymiss', src, fromDb);
      c.reply.integer(0);
      return;
    }
    // Redis's lookup of the source touches it; RENAME and MOVE move the
    // object itself, so the destination keeps that access word, while
    // COPY's destination is a new object. (This runs after the command's
    // own turn, so the words are set here, not by the lookups.)
    const access = server.access;
    const srcWord = access.touched(Math.max(0, from.accessWord(src)));
    from.setAccessWord(src, srcWord);
    const sameKey = from === to && src.equals(dst);
    if (sameKey) {
      // RENAME k k is OK, RENAMENX k k is 0 (Redis checks it after the lookup).
      if (mode === 'rename') c.reply.simple('OK');
      else c.reply.integer(0);
      return;
    }
    // The destination's lookup: to refuse an existing one, or (when expired
    // keys are notified) to find it expired as Redis's lookupKeyWrite does.
    const refuses = mode === 'renamenx' || mode === 'copy' || mode === 'move';
    if (refuses || (server.config.notifyKeyspaceEvents & NotifyClass.expired) !== 0) {
      const d = to.probe(dst);
      const exists =
        d.status === 'pending' ? (await d.pending).status === 'found' : d.status === 'found';
      if (!exists) expiredOnMiss(c, dst, false, to);
      else if (refuses) {
        c.reply.integer(0);
        return;
      }
    }
    // A stream's blocks are its own: a copy in another database, or under
    // another key, gets copies of them (RENAME keeps them: block keys do
    // not name the stream).
    let value = r.value;
    let movedStream: StreamValue | null = null;
    // Copied blocks have no head until the copy's is written: the block GC waits.
    let build: StreamBuild | null = null;
    let replaced: StreamValue | null = null;
    try {
      if (r.type === RecordType.STREAM && mode !== 'rename' && mode !== 'renamenx') {
        const head = decoderFor(RecordType.STREAM)!(r.value) as StreamValue;
        if (head.sid !== null) {
          build = beginStreamBuild(toCollections);
          value = (await copyStreamBlocks(head, fromCollections, toCollections)).encode();
          if (mode === 'move') movedStream = head;
        }
      }
      // A stream the destination held takes its blocks with it, after it is
      // overwritten (a mode that refuses one found none above: no second probe).
      replaced = refuses ? null : await streamHeadOf(toCollections, to, dst);
      toCollections.invalidate(dst);
      await settled(to.upsert(dst, value, r.expiresAt, 0, r.type));
    } finally {
      build?.end();
    }
    await dropBlocksAfter(undefined, replaced, toCollections, server, 'lazyfree-lazy-server-del');
    const copied = mode === 'copy' || mode === 'copy-replace';
    to.setAccessWord(dst, copied ? access.fresh : srcWord);
    if (mode !== 'copy' && mode !== 'copy-replace') {
      fromCollections.invalidate(src);
      await settled(from.remove(src));
      await dropBlocksAfter(
        undefined,
        movedStream,
        fromCollections,
        server,
        'lazyfree-lazy-server-del',
      );
    }
    // Redis's dbAdd of the destination says `new` (an overwritten one too:
    // it is deleted first), then the command its own events.
    notifyKeyspaceEvent(server, NotifyClass.new, 'new', dst, toDb, c);
    if (mode === 'rename' || mode === 'renamenx') {
      notifyKeyspaceEvent(server, NotifyClass.generic, 'rename_from', src, fromDb, c);
      notifyKeyspaceEvent(server, NotifyClass.generic, 'rename_to', dst, toDb, c);
    } else if (mode === 'move') {
      notifyKeyspaceEvent(server, NotifyClass.generic, 'move_from', src, fromDb, c);
      notifyKeyspaceEvent(server, NotifyClass.generic, 'move_to', dst, toDb, c);
    } else {
      notifyKeyspaceEvent(server, NotifyClass.generic, 'copy_to', dst, toDb, c);
    }
    // Clients blocked on the destination are served, as Redis signals it ready.
    await signalReady(c, toDb, dst);
    if (mode === 'rename') c.reply.simple('OK');
    else c.reply.integer(1);
  });
}

function dbArgument(c: Client, arg: Buffer): number {
  const db = parseInteger(arg);
  if (db < 0 || db >= c.server.keyspace.count) throw dbIndexError();
  return db;
}

function copy(c: Client, argv: Buffer[]): CommandResult {
  let db = c.db;
  let replace = false;
  for (let i = 3; i < argv.length; i++) {
    const a = argv[i]!;
    if (eqi(a, 'replace')) replace = true;
    else if (eqi(a, 'db') && i + 1 < argv.length) {
      db = dbArgument(c, argv[++i]!);
    } else throw syntaxError();
  }
  if (db === c.db && argv[1]!.equals(argv[2]!)) throw sameObjectError();
  return transfer(c, c.db, argv[1]!, db, argv[2]!, replace ? 'copy-replace' : 'copy');
}

function move(c: Client, argv: Buffer[]): CommandResult {
  const db = dbArgument(c, argv[2]!);
  if (db === c.db) throw sameObjectError();
  return transfer(c, c.db, argv[1]!, db, argv[1]!, 'move');
}

// ---- SWAPDB ----------------------------------------------------------------------

/** A DB index argument with SWAPDB's own parse error (Redis's getIntFromObjectOrReply). */
function swapIndex(arg: Buffer, which: 'first' | 'second'): number {
  let v: number;
  try {
    v = parseInteger(arg);
  } catch {
    throw new CommandError('ERR_DB_INDEX', `ERR invalid ${which} DB index`);
  }
  if (v < -(2 ** 31) || v >= 2 ** 31)
    throw new CommandError('ERR_DB_INDEX', `ERR invalid ${which} DB index`);
  return v;
}

function swapdb(c: Client, argv: Buffer[]): CommandResult {
  const a = swapIndex(argv[1]!, 'first');
  const b = swapIndex(argv[2]!, 'second');
  const keyspace = c.server.keyspace;
  if (a < 0 || a >= keyspace.count || b < 0 || b >= keyspace.count) throw dbIndexError();
  // Other clients are held while the stores trade places.
  return c.server.runExclusive(c, async () => {
    await keyspace.swap(a, b);
    // Blocked clients of either database may find their keys now.
    await signalDatabase(c, a);
    if (b !== a) await signalDatabase(c, b);
    c.reply.simple('OK');
  });
}

// ---- the table -----------------------------------------------------------------

/** EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: what they share. */
const expireCommand = {
  arity: -3,
  flags: ['write', 'fast'],
  ...KEY1,
  ...genericGroup,
  keyFlags: ['RW', 'update'],
  complexity: 'O(1)',
} as const;

/** TTL, PTTL, EXPIRETIME, PEXPIRETIME: what they share. */
const ttlCommand = {
  arity: 2,
  flags: ['readonly', 'fast'],
  ...KEY1,
  ...genericGroup,
  keyFlags: ['RO', 'access'],
  complexity: 'O(1)',
  // Redis's ttlGenericCommand looks the key up with LOOKUP_NOTOUCH.
  touch: 'none',
} as const;

export const keyCommands: CommandDefinition[] = [
  {
    name: 'del',
    arity: -2,
    flags: ['write'],
    ...ALL_KEYS,
    ...genericGroup,
    keyFlags: ['RM', 'delete'],
    tips: ['request_policy:multi_shard', 'response_policy:agg_sum'],
    since: '1.0.0',
    complexity: 'O(N) where N is the number of keys that will be removed.',
    summary: 'Deletes one or more keys.',
    handler: (c, argv) => countKeys(c, argv, removeKey(c, 'lazyfree-lazy-user-del'), delEvents),
    replay: whenNonZero,
  },
  {
    name: 'unlink',
    arity: -2,
    flags: ['write', 'fast'],
    ...ALL_KEYS,
    ...genericGroup,
    keyFlags: ['RM', 'delete'],
    since: '4.0.0',
    complexity: 'O(1) for each key removed regardless of its size.',
    summary: 'Asynchronously deletes one or more keys.',
    handler: (c, argv) => countKeys(c, argv, removeKey(c, true), delEvents),
    replay: whenNonZero,
  },
  {
    name: 'exists',
    arity: -2,
    flags: ['readonly', 'fast'],
    ...ALL_KEYS,
    ...genericGroup,
    since: '1.0.0',
    complexity: 'O(N) where N is the number of keys to check.',
    summary: 'Determines whether one or more keys exist.',
    // Redis's existsCommand looks its keys up with LOOKUP_NOTOUCH.
    touch: 'none',
    handler: (c, argv) => countKeys(c, argv, exists, existsEvents),
  },
  {
    name: 'touch',
    arity: -2,
    flags: ['readonly', 'fast'],
    ...ALL_KEYS,
    ...genericGroup,
    since: '3.2.1',
    complexity: 'O(N) where N is the number of keys that will be touched.',
    summary:
      'Returns the number of existing keys out of those specified after updating the time they were last accessed.',
    // Even for a CLIENT NO-TOUCH client: touching is what it is for.
    touch: 'always',
    handler: (c, argv) => countKeys(c, argv, exists, existsEvents),
  },
  {
    name: 'type',
    arity: 2,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...genericGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Determines the type of value stored at a key.',
    touch: 'none',
    handler(c, argv) {
      return withProbe(c, argv[1]!, (r, waited) => {
        if (r.status === 'found') c.reply.simple(typeName(r.type));
        else {
          readMissed(c, argv[1]!, waited);
          c.reply.simple('none');
        }
        return undefined;
      });
    },
  },
  {
    name: 'expire',
    ...expireCommand,
    since: '1.0.0',
    summary: 'Sets the expiration time of a key in seconds.',
    handler: (c, argv) => expire(c, argv, 'expire', true, false),
    replay: expireReplay(1000, false),
  },
  {
    name: 'pexpire',
    ...expireCommand,
    since: '2.6.0',
    summary: 'Sets the expiration time of a key in milliseconds.',
    handler: (c, argv) => expire(c, argv, 'pexpire', false, false),
    replay: expireReplay(1, false),
  },
  {
    name: 'expireat',
    ...expireCommand,
    since: '1.2.0',
    summary: 'Sets the expiration time of a key to a Unix timestamp.',
    handler: (c, argv) => expire(c, argv, 'expireat', true, true),
    replay: expireReplay(1000, true),
  },
  {
    name: 'pexpireat',
    ...expireCommand,
    since: '2.6.0',
    summary: 'Sets the expiration time of a key to a Unix milliseconds timestamp.',
    handler: (c, argv) => expire(c, argv, 'pexpireat', false, true),
    replay: expireReplay(1, true),
  },
  {
    name: 'ttl',
    ...ttlCommand,
    since: '1.0.0',
    summary: 'Returns the expiration time in seconds of a key.',
    handler: (c, argv) => ttl(c, argv, false, false),
  },
  {
    name: 'pttl',
    ...ttlCommand,
    since: '2.6.0',
    summary: 'Returns the expiration time in milliseconds of a key.',
    handler: (c, argv) => ttl(c, argv, true, false),
  },
  {
    name: 'expiretime',
    ...ttlCommand,
    since: '7.0.0',
    summary: 'Returns the expiration time of a key as a Unix timestamp.',
    handler: (c, argv) => ttl(c, argv, false, true),
  },
  {
    name: 'pexpiretime',
    ...ttlCommand,
    since: '7.0.0',
    summary: 'Returns the expiration time of a key as a Unix milliseconds timestamp.',
    handler: (c, argv) => ttl(c, argv, true, true),
  },
  {
    name: 'rename',
    arity: 3,
    flags: ['write'],
    ...SRC_DST,
    ...genericGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Renames a key and overwrites the destination.',
    handler: (c, argv) => transfer(c, c.db, argv[1]!, c.db, argv[2]!, 'rename'),
  },
  {
    name: 'renamenx',
    arity: 3,
    flags: ['write', 'fast'],
    ...SRC_DST,
    ...genericGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: "Renames a key only when the target key name doesn't exist.",
    handler: (c, argv) => transfer(c, c.db, argv[1]!, c.db, argv[2]!, 'renamenx'),
    replay: whenNonZero,
  },
  {
    name: 'copy',
    arity: -3,
    flags: ['write', 'denyoom'],
    ...SRC_DST,
    ...genericGroup,
    since: '6.2.0',
    complexity: 'O(N) worst case for collections, where N is the number of nested items.',
    summary: 'Copies the value of a key to a new key.',
    handler: copy,
    replay: whenNonZero,
  },
  {
    name: 'move',
    arity: 3,
    flags: ['write', 'fast'],
    ...KEY1,
    ...genericGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Moves a key to another database.',
    handler: move,
    replay: whenNonZero,
  },
  {
    name: 'swapdb',
    arity: 3,
    flags: ['write', 'fast'],
    ...NO_KEYS,
    acl: ['keyspace', 'dangerous'],
    group: 'server',
    since: '4.0.0',
    complexity:
      'O(N) where N is the count of clients watching or blocking on keys from both databases.',
    summary: 'Swaps two Redis databases.',
    handler: swapdb,
  },
  {
    name: 'persist',
    arity: 2,
    flags: ['write', 'fast'],
    ...KEY1,
    ...genericGroup,
    keyFlags: ['RW', 'update'],
    since: '2.2.0',
    complexity: 'O(1)',
    summary: 'Removes the expiration time of a key.',
    handler: persist,
    replay: whenNonZero,
  },
];
