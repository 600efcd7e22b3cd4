import type { CollectionLookup, CollectionValue, List, SortedSet } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import type { Client } from '../client.js';
import type { CommandDefinition, CommandResult } from '../command-table.js';
import { CommandError } from '../errors.js';
import { registryOf, serveWaiters, touchWatched, type Waiter } from './blocking-registry.js';
import { afterChange, lookupValue, whenWritten, withOpenDb } from './collection-lookup.js';
import { type End, moveOne, mpopFirst, parseEnd, parseMpop, pop, withMovePair } from './lists.js';
import { popPairs } from './zsets.js';
import { parseDouble } from './zsets-args.js';

/**
 * The blocking pops: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX.
 *
 * When a key has something, they answer at once as their non-blocking form
 * (and are logged as it: LPOP, LMOVE, ZPOPMIN...). Otherwise the client
 * blocks: its command stays pending (its connection holds its later
 * commands, other connections go on) until a push to one of its keys
 * serves it (blocking-registry.ts: first blocked, first served), its
 * timeout passes (a null array), or it disconnects. Inside MULTI/EXEC they
 * never block: they answer as a timeout would.
 *
 * The command table flags them `wholeLog`: while blocked they hold only
 * their own connection, so EXEC, RENAME or FLUSHDB of other clients do not
 * wait for them.
 */

/** The longest delay setTimeout takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const LPOP = Buffer.from('LPOP');
const RPOP = Buffer.from('RPOP');
const LMOVE = Buffer.from('LMOVE');
const ZPOPMIN = Buffer.from('ZPOPMIN');
const ZPOPMAX = Buffer.from('ZPOPMAX');
const LEFT = Buffer.from('LEFT');
const RIGHT = Buffer.from('RIGHT');

/** getTimeoutFromObjectOrReply, seconds: milliseconds to wait, 0 for ever. */
export function parseTimeout(arg: Uint8Array): number {
  const v = parseDouble(arg);
  if (Number.isNaN(v)) {
    throw new CommandError('ERR_NOT_FLOAT', 'ERR timeout is not a float or out of range');
  }
  const ms = Math.trunc(v * 1000);
  if (ms < 0) throw new CommandError('ERR_OUT_OF_RANGE', 'ERR timeout is negative');
  if (!Number.isSafeInteger(ms) || ms > Number.MAX_SAFE_INTEGER - Date.now()) {
    throw new CommandError('ERR_OUT_OF_RANGE', 'ERR timeout is out of range');
  }
  return ms;
}

/** Sets the running command's replay forms when a command log is on. */
function logAs(c: Client, ...forms: Buffer[][]): void {
  if (c.server.commandLog === null || c.replay) return;
  for (const f of forms) c.propagate(...f);
}

/** Blocking is refused inside MULTI/EXEC (the gate is held) and for replays. */
function mayBlock(c: Client): boolean {
  return !c.replay && c.server.exclusive !== c;
}

/**
 * Finds the first key of `keys` holding a non-empty collection of `type`,
 * checking types in order up to it (as Redis: a wrong type after it is not
 * looked at). Calls `fn` with its index and value, or -1 and null.
 */
function firstNonEmpty<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  type: number,
  fn: (index: number, value: V | null) => CommandResult,
): CommandResult {
  const step = (i: number): CommandResult => {
    for (; i < keys.length; i++) {
      const r = c.collections.get<V>(keys[i]!, type);
      if (r instanceof Promise) {
        const at = i;
        return r.then((x) => {
          const v = lookupValue(x);
          return v !== null && v.size > 0 ? fn(at, v) : step(at + 1);
        });
      }
      const v = lookupValue(r);
      if (v !== null && v.size > 0) return fn(i, v);
    }
    return fn(-1, null);
  };
  return step(0);
}

/**
 * Blocks `c` on `keys` until `serve` takes something for it, the timeout
 * passes (`c` gets a null array) or it disconnects.
 */
function block(
  c: Client,
  keys: readonly Buffer[],
  timeoutMs: number,
  serve: (key: Buffer, by: Client) => Buffer[][] | null,
): Promise<void> {
  const registry = registryOf(c.server);
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | null = null;
    let done = false;
    const onClose = () => waiter.finish();
    const waiter: Waiter = {
      client: c,
      db: c.db,
      keys: keys.map((k) => k.toString('latin1')),
      serve(key, by) {
        const forms = serve(key, by);
        // The pusher logs this pop after its own command; this command logs nothing.
        if (forms !== null) logAs(c, []);
        return forms;
      },
      finish() {
        if (done) return;
        done = true;
        if (timer !== null) clearTimeout(timer);
        c.socket.off('close', onClose);
        registry.remove(waiter);
        resolve();
      },
    };
    registry.add(waiter);
    if (timeoutMs > 0) {
      // setTimeout holds at most 2^31 - 1 ms: longer waits re-arm until the deadline.
      const deadline = Date.now() + timeoutMs;
      const arm = () => {
        timer = setTimeout(
          () => {
            if (done) return;
            if (Date.now() < deadline) {
              arm();
              return;
            }
            c.reply.nullArray();
            logAs(c, []);
            waiter.finish();
          },
          Math.min(deadline - Date.now(), MAX_TIMER_MS),
        );
      };
      arm();
    }
    c.socket.once('close', onClose);
    // The connection pauses reading while a command is pending; a blocked
    // client is read on (its commands still wait) so that its disconnect
    // is seen, as Redis sees it, and no push is served to a closed socket.
    queueMicrotask(() => {
      if (!done && !c.closed) c.socket.resume();
    });
  });
}

/** Settles a store write issued while serving another client's command. */
function background(w: unknown): void {
  if (w instanceof Promise) w.catch(() => undefined);
}

/** A waiter's key as `type`, when it is in memory and non-empty (else the waiter stays). */
function readyValue<V extends CollectionValue>(by: Client, key: Buffer, type: number): V | null {
  const found = by.collections.get<V>(key, type);
  if (found instanceof Promise || found.status !== 'found' || found.value.size === 0) return null;
  return found.value;
}

// ---- BLPOP / BRPOP -----------------------------------------------------------------

function blpop(c: Client, argv: Buffer[], end: End): CommandResult {
  const timeout = parseTimeout(argv[argv.length - 1]!);
  const keys = argv.slice(1, -1);
  const popName = end === 'left' ? LPOP : RPOP;
  return firstNonEmpty<List>(c, keys, RecordType.LIST, (i, l) => {
    if (l !== null) {
      const key = keys[i]!;
      c.reply.array(2).bulk(key).bulkLatin1(pop(l, end));
      logAs(c, [popName, key]);
      const w = afterChange(c, key, l);
      return w instanceof Promise ? w : undefined;
    }
    if (!mayBlock(c)) {
      c.reply.nullArray();
      logAs(c, []);
      return undefined;
    }
    return block(c, keys, timeout, (key, by) => {
      const list = readyValue<List>(by, key, RecordType.LIST);
      if (list === null) return null;
      c.reply.array(2).bulk(key).bulkLatin1(pop(list, end));
      background(afterChange(by, key, list));
      return [[popName, Buffer.from(key)]];
    });
  });
}

// ---- BLMOVE / BRPOPLPUSH -------------------------------------------------------------

function blmove(c: Client, argv: Buffer[], from: End, to: End, timeoutAt: number): CommandResult {
  const timeout = parseTimeout(argv[timeoutAt]!);
  const src = argv[1]!;
  const dst = argv[2]!;
  const form = (s: Buffer, d: Buffer) => [
    LMOVE,
    s,
    d,
    from === 'left' ? LEFT : RIGHT,
    to === 'left' ? LEFT : RIGHT,
  ];
  return withMovePair(c, src, dst, (l, d) => {
    if (l !== null) {
      const { value, write } = moveOne(c, src, l, dst, d, from, to);
      const served = serveWaiters(c, dst);
      logAs(c, form(src, dst), ...served);
      return whenWritten(write, () => c.reply.bulkLatin1(value));
    }
    if (!mayBlock(c)) {
      c.reply.null();
      logAs(c, []);
      return undefined;
    }
    const srcKey = Buffer.from(src);
    const dstKey = Buffer.from(dst);
    return block(c, [srcKey], timeout, (_key, by) => {
      const a = by.collections.get<List>(srcKey, RecordType.LIST);
      const b = by.collections.get<List>(dstKey, RecordType.LIST);
      if (a instanceof Promise || b instanceof Promise) return null;
      if (a.status !== 'found' || a.value.size === 0) return null;
      if (b.status === 'wrongType') {
        // Redis answers the blocked client WRONGTYPE and leaves the source as it was.
        c.replyError(
          new CommandError(
            'ERR_WRONGTYPE',
            'WRONGTYPE Operation against a key holding the wrong kind of value',
          ),
        );
        return [];
      }
      const { value, write } = moveOne(by, srcKey, a.value, dstKey, valueOrNull(b), from, to);
      background(write);
      // The destination changed under a WATCH of it (the source is touched by the caller).
      touchWatched(by.server, by.db, dstKey);
      c.reply.bulkLatin1(value);
      return [form(srcKey, dstKey), ...serveWaiters(by, dstKey)];
    });
  });
}

function valueOrNull<V extends CollectionValue>(r: CollectionLookup<V>): V | null {
  return r.status === 'found' ? r.value : null;
}

// ---- BLMPOP ---------------------------------------------------------------------------

function blmpop(c: Client, argv: Buffer[]): CommandResult {
  const timeout = parseTimeout(argv[1]!);
  const { keys, end, count } = parseMpop(argv, 2);
  const popName = end === 'left' ? LPOP : RPOP;
  return withOpenDb(c, () =>
    firstNonEmpty<List>(c, keys, RecordType.LIST, (i, l) => {
      if (l !== null) {
        const lists: (List | null)[] = keys.map(() => null);
        lists[i] = l;
        const r = mpopFirst(c, keys, lists, end, count);
        logAs(c, [popName, keys[i]!, Buffer.from(String(r!.popped.length))]);
        return r!.write instanceof Promise ? r!.write : undefined;
      }
      if (!mayBlock(c)) {
        c.reply.nullArray();
        logAs(c, []);
        return undefined;
      }
      return block(
        c,
        keys.map((k) => Buffer.from(k)),
        timeout,
        (key, by) => {
          const list = readyValue<List>(by, key, RecordType.LIST);
          if (list === null) return null;
          const n = Math.min(count, list.size);
          c.reply.array(2).bulk(key).array(n);
          for (let j = 0; j < n; j++) c.reply.bulkLatin1(pop(list, end));
          background(afterChange(by, key, list));
          return [[popName, Buffer.from(key), Buffer.from(String(n))]];
        },
      );
    }),
  );
}

// ---- BZPOPMIN / BZPOPMAX ----------------------------------------------------------------

function bzpop(c: Client, argv: Buffer[], max: boolean): CommandResult {
  const timeout = parseTimeout(argv[argv.length - 1]!);
  const keys = argv.slice(1, -1);
  const popName = max ? ZPOPMAX : ZPOPMIN;
  return firstNonEmpty<SortedSet>(c, keys, RecordType.ZSET, (i, z) => {
    if (z !== null) {
      const key = keys[i]!;
      c.reply.array(3).bulk(key);
      popPairs(c, z, 1, max, false);
      logAs(c, [popName, key]);
      const w = afterChange(c, key, z);
      return w instanceof Promise ? w : undefined;
    }
    if (!mayBlock(c)) {
      c.reply.nullArray();
      logAs(c, []);
      return undefined;
    }
    return block(
      c,
      keys.map((k) => Buffer.from(k)),
      timeout,
      (key, by) => {
        const z = readyValue<SortedSet>(by, key, RecordType.ZSET);
        if (z === null) return null;
        c.reply.array(3).bulk(key);
        popPairs(c, z, 1, max, false);
        background(afterChange(by, key, z));
        return [[popName, Buffer.from(key)]];
      },
    );
  });
}

// ---- the table ----------------------------------------------------------------------------

const BLOCKING = ['write', 'noscript', 'blocking'] as const;

function def(
  name: string,
  arity: number,
  flags: CommandDefinition['flags'],
  keys: readonly [number, number, number],
  acl: 'list' | 'sortedset',
  since: string,
  summary: string,
  handler: (c: Client, argv: Buffer[]) => CommandResult,
): CommandDefinition {
  return {
    name,
    arity,
    flags,
    firstKey: keys[0],
    lastKey: keys[1],
    step: keys[2],
    acl: [acl],
    group: acl === 'list' ? 'list' : 'sorted_set',
    since,
    summary,
    complexity: 'O(N) where N is the number of provided keys.',
    wholeLog: true,
    handler,
  };
}

export const blockingCommands: CommandDefinition[] = [
  def(
    'blpop',
    -3,
    BLOCKING,
    [1, -2, 1],
    'list',
    '2.0.0',
    'Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
    (c, a) => blpop(c, a, 'left'),
  ),
  def(
    'brpop',
    -3,
    BLOCKING,
    [1, -2, 1],
    'list',
    '2.0.0',
    'Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
    (c, a) => blpop(c, a, 'right'),
  ),
  def(
    'blmove',
    6,
    ['write', 'denyoom', 'noscript', 'blocking'],
    [1, 2, 1],
    'list',
    '6.2.0',
    'Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.',
    (c, a) => blmove(c, a, parseEnd(a[3]!), parseEnd(a[4]!), 5),
  ),
  def(
    'brpoplpush',
    4,
    ['write', 'denyoom', 'noscript', 'blocking'],
    [1, 2, 1],
    'list',
    '2.2.0',
    'Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.',
    (c, a) => blmove(c, a, 'right', 'left', 3),
  ),
  def(
    'blmpop',
    -5,
    ['write', 'blocking'],
    [0, 0, 0],
    'list',
    '7.0.0',
    'Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
    blmpop,
  ),
  def(
    'bzpopmin',
    -3,
    [...BLOCKING, 'fast'],
    [1, -2, 1],
    'sortedset',
    '5.0.0',
    'Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.',
    (c, a) => bzpop(c, a, false),
  ),
  def(
    'bzpopmax',
    -3,
    [...BLOCKING, 'fast'],
    [1, -2, 1],
    'sortedset',
    '5.0.0',
    'Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.',
    (c, a) => bzpop(c, a, true),
  ),
];
