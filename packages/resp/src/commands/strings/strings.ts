import {
  type AppendContext,
  appendFunctions,
  incrFunctions,
  MAX_VALUE_LENGTH,
  type RangePicker,
  type ReadResult,
  RecordType,
  type RmwFunctions,
  SetFlag,
  type SetRangeContext,
  type SetResult,
  type StoreCore,
  setRangeFunctions,
  type ValueView,
} from '@strata/hlog';
import { INT64_MAX, INT64_MIN } from '@strata/io';
import { multiGet } from '@strata/scan';
import { eqi, parseInt64, parseInteger, pushTo } from '../../args.js';
import {
  CommandError,
  invalidExpireError,
  nanOrInfinityError,
  notFloatError,
  notIntegerError,
  offsetError,
  overflowError,
  syntaxError,
  tooLargeError,
  wrongArityError,
  wrongTypeError,
} from '../../errors.js';
import {
  add,
  formatHuman,
  isFiniteLongDouble,
  type LongDouble,
  parseLongDouble,
} from '../../long-double.js';
import type { Client } from '../../server/client.js';
import type {
  CommandDefinition,
  CommandFlagName,
  CommandResult,
} from '../../server/command-table.js';
import {
  changeSignalled,
  keyMiss,
  NotifyClass,
  notify,
  publishes,
} from '../pubsub/keyspace-events.js';
import { stringGroup } from '../shared/command-groups.js';
import { ExpiryUnit, expiryMs, expiryOption, optionValue } from '../shared/expiry.js';
import { ALL_KEYS, KEY1 } from '../shared/key-positions.js';
import { withStringPicked, withStringRange } from '../shared/string-range.js';
import { dropBlocksAfter, invalidateHead } from '../streams/stream-removal.js';
import {
  getdelReplay,
  getexReplay,
  getsetReplay,
  incrbyfloatReplay,
  msetnxReplay,
  setexReplay,
  setnxReplay,
  setReplay,
} from './replay.js';

// ---- helpers ------------------------------------------------------------------

const STRING = RecordType.STRING;

// ---- keyspace notifications ------------------------------------------------------
//
// The events Redis 7's t_string.c sends (notify-keyspace-events), each once
// the change is made, in Redis's order: `keymiss` (m) where Redis's
// lookupKeyRead misses, `new` (n) where its dbAdd creates a key, then the
// command's own event. `notify` returns at once for a class that is off;
// work needed only for an event (knowing whether SET creates its key) is
// done only when `publishes` says that class is on.

const NEW = NotifyClass.new;
const STR = NotifyClass.string;
const GENERIC = NotifyClass.generic;

/** Redis's dbAdd event, then the command's: `created` says the write made the key. */
function notifyWrite(c: Client, created: boolean, event: string, key: Buffer): void {
  if (created) notify(c, NEW, 'new', key);
  notify(c, STR, event, key);
}

/**
 * GETDEL's and GETEX's store write (a delete, an expiry change), which may
 * finish on the disk, then its `event` (class g) on `key` if it ended with
 * `done`. While class g is off, a pending write is only settled in the
 * background, as before; with it on, the command waits for the write, so
 * the event follows the change (a failed write sends none).
 */
function afterWrite(
  c: Client,
  v: { status: string; pending?: Promise<{ status: string }> },
  done: string,
  event: string,
  key: Buffer,
): CommandResult {
  const pending = v.pending;
  if (pending === undefined) {
    if (v.status === done) notify(c, GENERIC, event, key);
    return undefined;
  }
  if (!changeSignalled(c, GENERIC)) {
    settle(v);
    return undefined;
  }
  return pending.then(
    (r) => {
      if (r.status === done) notify(c, GENERIC, event, key);
    },
    () => undefined,
  );
}

/** Whether `key` exists (any type), now or once it left the disk: for `new` on a blind write. */
function exists(store: StoreCore, key: Buffer): boolean | Promise<boolean> {
  const v = store.probe(key);
  if (v.status === 'pending') return v.pending.then((r) => r.status === 'found');
  return v.status === 'found';
}

/** WRONGTYPE when a found record holds a collection (string commands read strings only). */
function mustBeString(v: { status: string; type?: number }): void {
  if (v.status === 'found' && v.type !== STRING) throw wrongTypeError();
}

/** Writes a read's value, or null. Views are written at once: the store reuses them. */
function replyRead(c: Client, store: StoreCore, key: Buffer): CommandResult {
  const v = store.read(key);
  if (v.status === 'found') {
    mustBeString(v);
    c.reply.bulkRange(v.bytes, v.offset, v.length);
    return undefined;
  }
  if (v.status === 'notFound') {
    keyMiss(c, key);
    c.reply.null();
    return undefined;
  }
  return v.pending.then((r) => {
    mustBeString(r);
    if (r.status === 'found') c.reply.bulk(r.value);
    else {
      keyMiss(c, key);
      c.reply.null();
    }
  });
}

/** A read as an owned result (a copy), sync when the record is in memory; WRONGTYPE for a collection. */
function readOwned(store: StoreCore, key: Buffer): ReadResult | Promise<ReadResult> {
  const v = store.read(key);
  if (v.status === 'found') {
    mustBeString(v);
    return {
      status: 'found',
      value: Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length)),
      expiresAt: v.expiresAt,
      type: v.type,
    };
  }
  if (v.status === 'notFound') return { status: 'notFound' };
  return v.pending.then((r) => {
    mustBeString(r);
    return r;
  });
}

function then<T>(v: T | Promise<T>, f: (v: T) => CommandResult): CommandResult {
  if (v instanceof Promise) return v.then(f);
  return f(v);
}

/**
 * SET's upsert, replying as SET does (`OK` or null; with GET the old value),
 * and its events as Redis's setGenericCommand sends them: with GET a
 * `keymiss` for a missing key, then, once written, `new` for a key it made,
 * `set`, and with an expiry `expire`.
 */
function setAndReply(
  c: Client,
  key: Buffer,
  value: Buffer,
  expiresAt: number,
  flags: number,
): CommandResult {
  // Only NX, XX and GET tell whether the key was there: otherwise, with `new`
  // on, a probe asks first (the write is blind).
  if ((flags & (SetFlag.NX | SetFlag.XX | SetFlag.GET)) === 0 && publishes(c, NEW)) {
    return then(exists(c.store, key), (found) =>
      upsertAndReply(c, key, value, expiresAt, flags, !found),
    );
  }
  return upsertAndReply(c, key, value, expiresAt, flags, false);
}

/** setAndReply's write; `created`: the key was missing (known from a probe, or told by NX/XX/GET). */
function upsertAndReply(
  c: Client,
  key: Buffer,
  value: Buffer,
  expiresAt: number,
  flags: number,
  created: boolean,
): CommandResult {
  // A write that replaces whatever the key holds drops its cached collection
  // first; one that may not write (NX, GET over another type) only once it did.
  const collections = c.collections;
  const head = (flags & (SetFlag.NX | SetFlag.GET)) === 0 ? invalidateHead(collections, key) : null;
  const v = c.store.upsert(key, value, expiresAt, flags);
  // A stream overwritten: with lazyfree-lazy-server-del no, the reply waits for its blocks.
  const freed = dropBlocksAfter(
    v.status === 'pending' ? v.pending : v,
    head,
    collections,
    c.server,
    'lazyfree-lazy-server-del',
  );
  if (freed !== undefined) {
    // Without GET or NX (a head is only dropped then): `old` is null, no view outlives this step.
    return Promise.all([v.status === 'pending' ? v.pending : v, freed]).then(([r]) =>
      setReply(c, key, expiresAt, flags, created, r.status, r.old),
    );
  }
  if (v.status === 'pending') {
    return v.pending.then((r) => setReply(c, key, expiresAt, flags, created, r.status, r.old));
  }
  // The write ran now: nothing ran between it and the invalidation before it (if any).
  const invalidated = (flags & (SetFlag.NX | SetFlag.GET)) === 0;
  setReply(c, key, expiresAt, flags, created, v.status, v.old, invalidated);
  return undefined;
}

/**
 * upsertAndReply's reply and events, now or once the write settled (on the
 * device, or after a stream's blocks): `old` (GET) is the previous value, a
 * view into the log when the write ran now (written before any event);
 * `invalidated`: the cache let the key go in this same step already.
 */
function setReply(
  c: Client,
  key: Buffer,
  expiresAt: number,
  flags: number,
  created: boolean,
  status: SetResult['status'],
  old: Buffer | ValueView | null,
  invalidated = false,
): void {
  if (status === 'wrongType') throw wrongTypeError();
  const get = (flags & SetFlag.GET) !== 0;
  // Once more after a write that waited: a command may have cached the key meanwhile.
  if (status === 'ok' && !invalidated) c.collections.invalidate(key);
  if (get) {
    if (old === null) {
      keyMiss(c, key);
      c.reply.null();
    } else if (Buffer.isBuffer(old)) c.reply.bulk(old);
    else c.reply.bulkRange(old.bytes, old.offset, old.length);
  }
  if (status === 'ok') notifySet(c, key, expiresAt, flags, created, old === null);
  if (get) return;
  if (status === 'ok') c.reply.simple('OK');
  else c.reply.null();
}

/** SET's events once it wrote; with NX, XX or GET the write itself says whether the key was new. */
function notifySet(
  c: Client,
  key: Buffer,
  expiresAt: number,
  flags: number,
  created: boolean,
  noOld: boolean,
): void {
  const isNew =
    (flags & SetFlag.NX) !== 0
      ? true
      : (flags & SetFlag.XX) !== 0
        ? false
        : (flags & SetFlag.GET) !== 0
          ? noOld
          : created;
  notifyWrite(c, isNew, 'set', key);
  if (expiresAt !== 0) notify(c, GENERIC, 'expire', key);
}

// ---- GET / SET ------------------------------------------------------------------

function get(c: Client, argv: Buffer[]): CommandResult {
  return replyRead(c, c.store, argv[1]!);
}

function set(c: Client, argv: Buffer[]): CommandResult {
  let flags = 0;
  let unit: number = ExpiryUnit.NONE;
  let expireArg: Buffer | null = null;
  // Options first, as Redis: a syntax error wins over a bad number.
  for (let i = 3; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    const u = expiryOption(a);
    if (eqi(a, 'nx') && (flags & SetFlag.XX) === 0) flags |= SetFlag.NX;
    else if (eqi(a, 'xx') && (flags & SetFlag.NX) === 0) flags |= SetFlag.XX;
    else if (eqi(a, 'get')) flags |= SetFlag.GET;
    else if (eqi(a, 'keepttl') && unit === ExpiryUnit.NONE) flags |= SetFlag.KEEP_TTL;
    else if (
      u !== ExpiryUnit.NONE &&
      (unit === ExpiryUnit.NONE || unit === u) &&
      (flags & SetFlag.KEEP_TTL) === 0 &&
      next !== undefined
    ) {
      unit = u;
      expireArg = next;
      i++;
    } else throw syntaxError();
  }
  const expiresAt = expireArg === null ? 0 : expiryMs(expireArg, unit, 'set', c.now());
  return setAndReply(c, argv[1]!, argv[2]!, expiresAt, flags);
}

function setEx(c: Client, argv: Buffer[], seconds: boolean, name: string): CommandResult {
  const t = parseInteger(argv[2]!);
  if (t <= 0 || (seconds && t > Number.MAX_SAFE_INTEGER / 1000)) throw invalidExpireError(name);
  const expiresAt = c.now() + (seconds ? t * 1000 : t);
  if (!Number.isSafeInteger(expiresAt)) throw invalidExpireError(name);
  return setAndReply(c, argv[1]!, argv[3]!, expiresAt, 0);
}

// ---- GETEX / GETDEL --------------------------------------------------------------

function getEx(c: Client, argv: Buffer[]): CommandResult {
  let unit: number = ExpiryUnit.NONE;
  let persist = false;
  let expireArg: Buffer | null = null;
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i]!;
    const u = expiryOption(a);
    if (eqi(a, 'persist') && unit === ExpiryUnit.NONE) persist = true;
    else if (u !== ExpiryUnit.NONE && !persist && (unit === ExpiryUnit.NONE || unit === u)) {
      expireArg = optionValue(argv, i);
      unit = u;
      i++;
    } else throw syntaxError();
  }
  const store = c.store;
  const key = argv[1]!;
  if (expireArg === null && !persist) return replyRead(c, store, key);
  const arg = expireArg;
  return then(readOwned(store, key), (r) => {
    if (r.status === 'notFound') {
      keyMiss(c, key);
      c.reply.null();
      return undefined;
    }
    // Redis 7 validates the time only once the key is found and a string
    // (a missing key is nil, a collection WRONGTYPE, whatever the time).
    const expiresAt = arg === null ? 0 : expiryMs(arg, unit, 'getex', c.now());
    c.reply.bulk(r.value);
    // The reply is written; the expiry change follows (a past time deletes),
    // then its event: `persist`, `del` or `expire` (class g).
    if (persist) {
      if (r.expiresAt === 0) return undefined;
      return afterWrite(c, store.setExpiry(key, 0), 'ok', 'persist', key);
    }
    if (expiresAt <= c.now()) {
      return afterWrite(c, store.remove(key), 'deleted', 'del', key);
    }
    return afterWrite(c, store.setExpiry(key, expiresAt), 'ok', 'expire', key);
  });
}

/** Lets a store write finish in the background; its result is not needed. */
export function settle(v: { status: string; pending?: Promise<unknown> }): void {
  v.pending?.catch(() => undefined);
}

function getDel(c: Client, argv: Buffer[]): CommandResult {
  const store = c.store;
  const key = argv[1]!;
  return then(readOwned(store, key), (r) => {
    if (r.status === 'notFound') {
      keyMiss(c, key);
      c.reply.null();
      return undefined;
    }
    c.reply.bulk(r.value);
    return afterWrite(c, store.remove(key), 'deleted', 'del', key);
  });
}

// ---- MGET / MSET ---------------------------------------------------------------

/**
 * MGET: while the keys are in memory, values are written straight from the
 * log. From the first key that misses memory on, the rest go to
 * @strata/scan's `multiGet` as one batch: keys still in memory are read at
 * once, the others grouped by device page, each page read once, all reads in
 * flight together. Each result is what a GET of that key gives.
 */
function mget(c: Client, argv: Buffer[]): CommandResult {
  const store = c.store;
  const n = argv.length - 1;
  const start = c.reply.position;
  for (let i = 1; i <= n; i++) {
    const v = store.read(argv[i]!);
    if (v.status === 'pending') {
      // The reply so far is taken back (a copy) and written once every value
      // is in: the connection flushes while it waits, and a read that fails
      // must leave one error reply, not a short array.
      const head = i === 1 ? null : Buffer.from(c.reply.since(start));
      if (head !== null) c.reply.rewind(start);
      return mgetRest(c, store, argv, i, v.pending, head);
    }
    if (i === 1) c.reply.array(n);
    // A collection is nil to MGET, as in Redis (a miss for keymiss only when missing).
    if (v.status === 'found' && v.type === STRING) c.reply.bulkRange(v.bytes, v.offset, v.length);
    else {
      if (v.status === 'notFound') keyMiss(c, argv[i]!);
      c.reply.null();
    }
  }
  return undefined;
}

/** MGET from key `first` (its read pending already) to the last. */
function mgetRest(
  c: Client,
  store: StoreCore,
  argv: Buffer[],
  first: number,
  pending: Promise<ReadResult>,
  written: Buffer | null,
): Promise<void> {
  const rest = first < argv.length - 1 ? multiGet(store, argv.slice(first + 1)) : null;
  return Promise.all([pending, rest]).then(([head, batch]) => {
    if (written === null) c.reply.array(argv.length - 1);
    else c.reply.raw(written);
    const reply = (r: ReadResult, key: Buffer) => {
      if (r.status === 'found' && r.type === STRING) c.reply.bulk(r.value);
      else {
        if (r.status === 'notFound') keyMiss(c, key);
        c.reply.null();
      }
    };
    reply(head, argv[first]!);
    if (batch !== null) {
      const results = batch.results;
      for (let j = 0; j < results.length; j++) reply(results[j]!, argv[first + 1 + j]!);
    }
  });
}

function mset(c: Client, argv: Buffer[]): CommandResult {
  if (argv.length % 2 === 0) throw wrongArityError('mset');
  // With `new` on, which keys exist is asked first (the writes are blind).
  if (publishes(c, NEW)) return then(existing(c.store, argv), (found) => msetWrite(c, argv, found));
  return msetWrite(c, argv, null);
}

/** Whether each key of an MSET's pairs exists (index: the pair), once every probe is in. */
function existing(store: StoreCore, argv: Buffer[]): boolean[] | Promise<boolean[]> {
  const found: (boolean | Promise<boolean>)[] = [];
  let pending = false;
  for (let i = 1; i < argv.length; i += 2) {
    const f = exists(store, argv[i]!);
    if (f instanceof Promise) pending = true;
    found.push(f);
  }
  return pending ? Promise.all(found) : (found as boolean[]);
}

/**
 * Writes MSET's (or a successful MSETNX's) pairs, replying `reply` once all
 * are written, after their events: per key in order `new` when `found` says
 * it was missing (the first time it is given only), then `set`.
 */
function msetWrite(
  c: Client,
  argv: Buffer[],
  found: boolean[] | null,
  reply: (c: Client) => void = replyOk,
): CommandResult {
  const store = c.store;
  const collections = c.collections;
  let waits: Promise<unknown>[] | null = null;
  for (let i = 1; i < argv.length; i += 2) {
    collections.invalidate(argv[i]!);
    const v = store.upsert(argv[i]!, argv[i + 1]!, 0, 0);
    if (v.status === 'pending') waits = pushTo(waits, v.pending);
  }
  if (waits === null) {
    notifyMset(c, argv, found);
    reply(c);
    return undefined;
  }
  return Promise.all(waits).then(() => {
    notifyMset(c, argv, found);
    reply(c);
  });
}

function replyOk(c: Client): void {
  c.reply.simple('OK');
}

function replyOne(c: Client): void {
  c.reply.integer(1);
}

function notifyMset(c: Client, argv: Buffer[], found: boolean[] | null): void {
  if (!changeSignalled(c, STR | NEW)) return;
  // A key given twice is new the first time only.
  const made = found === null ? null : new Set<string>();
  for (let i = 1; i < argv.length; i += 2) {
    const key = argv[i]!;
    let created = false;
    if (made !== null && found?.[(i - 1) / 2] === false) {
      const k = key.toString('latin1');
      created = !made.has(k);
      made.add(k);
    }
    notifyWrite(c, created, 'set', key);
  }
}

function msetNx(c: Client, argv: Buffer[]): CommandResult {
  if (argv.length % 2 === 0) throw wrongArityError('msetnx');
  const store = c.store;
  let any = false;
  let waits: Promise<ReadResult>[] | null = null;
  for (let i = 1; i < argv.length; i += 2) {
    const v = store.probe(argv[i]!);
    if (v.status === 'found') any = true;
    else if (v.status === 'pending') waits = pushTo(waits, v.pending);
  }
  // Every key is missing when MSETNX writes: each is `new` (the first time given).
  const write = (): CommandResult =>
    msetWrite(
      c,
      argv,
      publishes(c, NEW) ? new Array<boolean>((argv.length - 1) / 2).fill(false) : null,
      replyOne,
    );
  if (any) {
    // Probes still on the disk are not needed: one that fails must not
    // become an unhandled rejection (which ends the process).
    if (waits !== null) for (const w of waits) w.catch(() => undefined);
    c.reply.integer(0);
    return undefined;
  }
  if (waits === null) return write();
  return Promise.all(waits).then((rs) => {
    if (rs.some((r) => r.status === 'found')) c.reply.integer(0);
    else return write();
    return undefined;
  });
}

// ---- in-place updates ----------------------------------------------------------

/** Read-modify-write, replying with the new value's length; once written, `new` (if made) and `event`. */
function rmwLength<C>(
  c: Client,
  key: Buffer,
  fns: RmwFunctions<C>,
  ctx: C,
  event: string,
): CommandResult {
  const v = c.store.readModifyWrite(key, fns, ctx);
  if (v.status === 'ok') {
    const length = v.length;
    notifyWrite(c, v.created, event, key);
    c.reply.integer(length);
    return undefined;
  }
  if (v.status === 'notFound') {
    c.reply.integer(0);
    return undefined;
  }
  if (v.status === 'wrongType') throw wrongTypeError();
  return v.pending.then((r) => {
    if (r.status === 'wrongType') throw wrongTypeError();
    if (r.status === 'ok') notifyWrite(c, r.created, event, key);
    c.reply.integer(r.status === 'ok' ? r.value.length : 0);
  });
}

function append(c: Client, argv: Buffer[]): CommandResult {
  const ctx: AppendContext = { suffix: argv[2]! };
  return rmwLength(c, argv[1]!, appendFunctions, ctx, 'append');
}

function setRange(c: Client, argv: Buffer[]): CommandResult {
  const offset = parseInteger(argv[2]!);
  if (offset < 0) throw offsetError();
  const patch = argv[3]!;
  if (patch.length > 0 && offset + patch.length > MAX_VALUE_LENGTH) throw tooLargeError();
  const ctx: SetRangeContext = { offset, patch };
  if (patch.length === 0) {
    // Nothing to write: the length as it is (0 for a missing key), no event.
    return then(readOwned(c.store, argv[1]!), (r) => {
      c.reply.integer(r.status === 'found' ? r.value.length : 0);
      return undefined;
    });
  }
  return rmwLength(c, argv[1]!, setRangeFunctions, ctx, 'setrange');
}

// ---- INCR family ---------------------------------------------------------------

interface BigIncrContext {
  delta: bigint;
  result: number | bigint;
}

/** Parses a stored integer exactly (string2ll rules), or null. */
function storedInt(b: Uint8Array, off: number, len: number): bigint | null {
  if (len === 0 || len > 20) return null;
  const text = Buffer.from(b.buffer, b.byteOffset + off, len).toString('latin1');
  if (!/^(0|-?[1-9][0-9]*)$/.test(text)) return null;
  const v = BigInt(text);
  return v > INT64_MAX || v < INT64_MIN ? null : v;
}

function writeAscii(text: string, dst: Uint8Array, off: number): void {
  for (let i = 0; i < text.length; i++) dst[off + i] = text.charCodeAt(i);
}

/** INCRBY with a delta beyond 2^53: exact bigint arithmetic (rare, so not tuned). */
const bigIncrFunctions: RmwFunctions<BigIncrContext> = {
  initialLength(ctx) {
    ctx.result = ctx.delta;
    return ctx.delta.toString().length;
  },
  initialValue(ctx, dst, off) {
    writeAscii(ctx.result.toString(), dst, off);
  },
  updatedLength(ctx, old, off, len) {
    const v = storedInt(old, off, len);
    if (v === null) throw notIntegerError();
    const r = v + ctx.delta;
    if (r > INT64_MAX || r < INT64_MIN) throw overflowError();
    ctx.result = Number.isSafeInteger(Number(r)) ? Number(r) : r;
    return r.toString().length;
  },
  update(ctx, _o, _oo, _ol, dst, off) {
    writeAscii(ctx.result.toString(), dst, off);
  },
};

function incrBy(c: Client, key: Buffer, delta: number | bigint): CommandResult {
  // Its own context: a pending operation runs its functions again later.
  if (typeof delta === 'number' && Number.isSafeInteger(delta)) {
    return incrWith(c, key, incrFunctions, { delta, result: 0 });
  }
  return incrWith(c, key, bigIncrFunctions, { delta: BigInt(delta), result: 0 });
}

/** Runs an INCR's read-modify-write and replies its result, now or once it left the disk. */
function incrWith<C extends { result: number | bigint }>(
  c: Client,
  key: Buffer,
  fns: RmwFunctions<C>,
  ctx: C,
): CommandResult {
  const v = c.store.readModifyWrite(key, fns, ctx);
  if (v.status !== 'pending') {
    replyIncr(c, key, v.status === 'ok' && v.created, v.status, ctx);
    return undefined;
  }
  return v.pending.then((r) => replyIncr(c, key, r.status === 'ok' && r.created, r.status, ctx));
}

/** INCR's reply, after its events: `new` when it made the key, `incrby` (INCR, DECR, DECRBY too). */
function replyIncr(
  c: Client,
  key: Buffer,
  created: boolean,
  status: string,
  ctx: { result: number | bigint },
): void {
  if (status === 'wrongType') throw wrongTypeError();
  notifyWrite(c, created, 'incrby', key);
  c.reply.integer(ctx.result);
}

interface FloatContext {
  delta: LongDouble;
  text: string;
}

/** The new value as Redis stores it: long double arithmetic, `%.17Lf` digits. */
function floatResult(ctx: FloatContext, old: LongDouble): number {
  const r = add(old, ctx.delta);
  if (!isFiniteLongDouble(r)) throw nanOrInfinityError();
  ctx.text = formatHuman(r);
  return ctx.text.length;
}

const floatFunctions: RmwFunctions<FloatContext> = {
  initialLength: (ctx) => floatResult(ctx, ZERO_LD),
  initialValue(ctx, dst, off) {
    writeAscii(ctx.text, dst, off);
  },
  updatedLength(ctx, old, off, len) {
    const v = parseLongDouble(
      Buffer.from(old.buffer, old.byteOffset + off, len).toString('latin1'),
    );
    if (v === null) throw notFloatError();
    return floatResult(ctx, v);
  },
  update(ctx, _o, _oo, _ol, dst, off) {
    writeAscii(ctx.text, dst, off);
  },
};

const ZERO_LD = parseLongDouble('0')!;

/**
 * INCRBYFLOAT with an increment that is no number or not finite: Redis
 * checks the key's type, then its value, then the increment.
 */
function refuseIncrByFloat(c: Client, key: Buffer, delta: LongDouble | null): CommandResult {
  return then(readOwned(c.store, key), (r) => {
    if (r.status === 'found' && parseLongDouble(r.value.toString('latin1')) === null) {
      throw notFloatError();
    }
    throw delta === null ? notFloatError() : nanOrInfinityError();
  });
}

function incrByFloat(c: Client, argv: Buffer[]): CommandResult {
  const delta = parseLongDouble(argv[2]!.toString('latin1'));
  if (delta === null || !isFiniteLongDouble(delta)) return refuseIncrByFloat(c, argv[1]!, delta);
  const ctx: FloatContext = { delta, text: '' };
  const key = argv[1]!;
  const v = c.store.readModifyWrite(key, floatFunctions, ctx);
  if (v.status !== 'pending') {
    if (v.status === 'wrongType') throw wrongTypeError();
    notifyWrite(c, v.status === 'ok' && v.created, 'incrbyfloat', key);
    c.reply.bulk(ctx.text);
    return undefined;
  }
  return v.pending.then((r) => {
    if (r.status === 'wrongType') throw wrongTypeError();
    notifyWrite(c, r.status === 'ok' && r.created, 'incrbyfloat', key);
    c.reply.bulk(ctx.text);
  });
}

// ---- reads ---------------------------------------------------------------------

/** STRLEN: the length from the record (a large value on the device is not read). */
function strlen(c: Client, argv: Buffer[]): CommandResult {
  return withStringRange(c, argv[1]!, 0, 0, (_b, _base, total) => c.reply.integer(total));
}

/**
 * GETRANGE's index rules (Redis 7): negative from the end, clamped, empty
 * when crossed; picked once the value's length is known, so a large value
 * on the device is read only in the chunks under the range.
 */
class GetRange implements RangePicker {
  from = 0;
  to = 0;
  constructor(
    private readonly start: number,
    private readonly end: number,
  ) {}

  pick(length: number): void {
    let start = this.start;
    let end = this.end;
    this.from = 0;
    this.to = 0;
    if (start < 0 && end < 0 && start > end) return;
    if (start < 0) start = length + start;
    if (end < 0) end = length + end;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= length) end = length - 1;
    if (start > end || length === 0) return;
    this.from = start;
    this.to = end + 1;
  }
}

function getRange(c: Client, argv: Buffer[]): CommandResult {
  const range = new GetRange(parseInteger(argv[2]!), parseInteger(argv[3]!));
  return withStringPicked(c, argv[1]!, range, (b, base) => {
    if (b === null || range.to === range.from) c.reply.bulk('');
    else c.reply.bulkRange(b, base + range.from, range.to - range.from);
  });
}

// ---- the table -----------------------------------------------------------------

const W: CommandFlagName[] = ['write', 'denyoom'];
const WF: CommandFlagName[] = ['write', 'denyoom', 'fast'];
const R: CommandFlagName[] = ['readonly'];
const RF: CommandFlagName[] = ['readonly', 'fast'];

export const stringCommands: CommandDefinition[] = [
  {
    name: 'get',
    arity: 2,
    flags: RF,
    ...KEY1,
    ...stringGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Returns the string value of a key.',
    handler: get,
    argvFree: true,
    parseAhead: 2,
  },
  {
    name: 'set',
    arity: -3,
    flags: W,
    ...KEY1,
    ...stringGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    keyFlags: ['RW', 'access', 'update', 'variable_flags'],
    keyNotes: 'RW and ACCESS due to the optional `GET` argument',
    summary:
      "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
    handler: set,
    argvFree: true,
    parseAhead: 3,
    replay: setReplay,
  },
  {
    name: 'setnx',
    arity: 3,
    flags: WF,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['OW', 'insert'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary: "Set the string value of a key only when the key doesn't exist.",
    handler(c, argv) {
      const key = argv[1]!;
      const v = c.store.upsert(key, argv[2]!, 0, SetFlag.NX);
      if (v.status === 'pending') {
        return v.pending.then((r) => {
          if (r.status === 'ok') {
            c.collections.invalidate(key);
            notifyWrite(c, true, 'set', key);
          }
          c.reply.integer(r.status === 'ok' ? 1 : 0);
        });
      }
      if (v.status === 'ok') {
        c.collections.invalidate(key);
        notifyWrite(c, true, 'set', key);
      }
      c.reply.integer(v.status === 'ok' ? 1 : 0);
      return undefined;
    },
    replay: setnxReplay,
  },
  {
    name: 'setex',
    arity: 4,
    flags: W,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['OW', 'update'],
    since: '2.0.0',
    complexity: 'O(1)',
    summary:
      "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
    handler: (c, argv) => setEx(c, argv, true, 'setex'),
    replay: setexReplay(true),
  },
  {
    name: 'psetex',
    arity: 4,
    flags: W,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['OW', 'update'],
    since: '2.6.0',
    complexity: 'O(1)',
    summary:
      "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.",
    handler: (c, argv) => setEx(c, argv, false, 'psetex'),
    replay: setexReplay(false),
  },
  {
    name: 'getset',
    arity: 3,
    flags: WF,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Returns the previous string value of a key after setting it to a new value.',
    handler: (c, argv) => setAndReply(c, argv[1]!, argv[2]!, 0, SetFlag.GET),
    replay: getsetReplay,
  },
  {
    name: 'getdel',
    arity: 2,
    flags: ['write', 'fast'],
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'access', 'delete'],
    since: '6.2.0',
    complexity: 'O(1)',
    summary: 'Returns the string value of a key after deleting the key.',
    handler: getDel,
    replay: getdelReplay,
  },
  {
    name: 'getex',
    arity: -2,
    flags: ['write', 'fast'],
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '6.2.0',
    complexity: 'O(1)',
    summary: 'Returns the string value of a key after setting its expiration time.',
    handler: getEx,
    replay: getexReplay,
  },
  {
    name: 'mget',
    arity: -2,
    flags: RF,
    ...ALL_KEYS,
    ...stringGroup,
    since: '1.0.0',
    complexity: 'O(N) where N is the number of keys to retrieve.',
    summary: 'Atomically returns the string values of one or more keys.',
    handler: mget,
  },
  {
    name: 'mset',
    arity: -3,
    flags: W,
    firstKey: 1,
    lastKey: -1,
    step: 2,
    ...stringGroup,
    keyFlags: ['OW', 'update'],
    tips: ['request_policy:multi_shard', 'response_policy:all_succeeded'],
    since: '1.0.1',
    complexity: 'O(N) where N is the number of keys to set.',
    summary: 'Atomically creates or modifies the string values of one or more keys.',
    handler: mset,
  },
  {
    name: 'msetnx',
    arity: -3,
    flags: W,
    firstKey: 1,
    lastKey: -1,
    step: 2,
    ...stringGroup,
    keyFlags: ['OW', 'insert'],
    since: '1.0.1',
    complexity: 'O(N) where N is the number of keys to set.',
    summary:
      "Atomically modifies the string values of one or more keys only when all keys don't exist.",
    handler: msetNx,
    replay: msetnxReplay,
  },
  {
    name: 'append',
    arity: 3,
    flags: WF,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'insert'],
    since: '2.0.0',
    complexity: 'O(1).',
    summary: "Appends a string to the value of a key. Creates the key if it doesn't exist.",
    handler: append,
  },
  {
    name: 'strlen',
    arity: 2,
    flags: RF,
    ...KEY1,
    ...stringGroup,
    since: '2.2.0',
    complexity: 'O(1)',
    summary: 'Returns the length of a string value.',
    handler: strlen,
  },
  {
    name: 'getrange',
    arity: 4,
    flags: R,
    ...KEY1,
    ...stringGroup,
    since: '2.4.0',
    complexity: 'O(N) where N is the length of the returned string.',
    summary: 'Returns a substring of the string stored at a key.',
    handler: getRange,
  },
  {
    name: 'substr',
    arity: 4,
    flags: R,
    ...KEY1,
    ...stringGroup,
    since: '1.0.0',
    complexity: 'O(N) where N is the length of the returned string.',
    summary: 'Returns a substring from a string value.',
    handler: getRange,
  },
  {
    name: 'setrange',
    arity: 4,
    flags: W,
    ...KEY1,
    ...stringGroup,
    since: '2.2.0',
    complexity: 'O(1), not counting the time taken to copy the new string in place.',
    summary:
      "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.",
    handler: setRange,
  },
  {
    name: 'incr',
    arity: 2,
    flags: WF,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary:
      "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
    handler: (c, argv) => incrBy(c, argv[1]!, 1),
  },
  {
    name: 'decr',
    arity: 2,
    flags: WF,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary:
      "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
    handler: (c, argv) => incrBy(c, argv[1]!, -1),
  },
  {
    name: 'incrby',
    arity: 3,
    flags: WF,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary:
      "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
    handler: (c, argv) => incrBy(c, argv[1]!, parseInt64(argv[2]!)),
  },
  {
    name: 'decrby',
    arity: 3,
    flags: WF,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary:
      "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.",
    handler(c, argv) {
      const d = parseInt64(argv[2]!);
      if (typeof d === 'bigint' && d === INT64_MIN) {
        throw new CommandError('ERR_OVERFLOW', 'ERR decrement would overflow');
      }
      return incrBy(c, argv[1]!, typeof d === 'bigint' ? -d : -d);
    },
  },
  {
    name: 'incrbyfloat',
    arity: 3,
    flags: WF,
    ...KEY1,
    ...stringGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '2.6.0',
    complexity: 'O(1)',
    summary:
      "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
    handler: incrByFloat,
    replay: incrbyfloatReplay,
  },
];
