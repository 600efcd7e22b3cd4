import type { CollectionLookup, CollectionValue, List, SortedSet } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { CommandError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import {
  type End,
  moveOne,
  mpopReply,
  notifyMoved,
  notifyPopped,
  parseEnd,
  parseMpop,
  pop,
  withMovePair,
} from '../lists/lists.js';
import {
  afterChange,
  whenWritten,
  withFirstNonEmpty,
  withOpenDb,
} from '../shared/collection-access.js';
import { listGroup, sortedSetGroup } from '../shared/command-groups.js';
import { type KeyPositions, NO_KEYS, SRC_DST } from '../shared/key-positions.js';
import { notifyZpopped, popPairs } from '../zsets/zsets.js';
import { parseDouble } from '../zsets/zsets-args.js';
import {
  registryOf,
  serveIfFirst,
  serveWaiters,
  touchWatched,
  type Waiter,
} from './blocking-registry.js';

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
export function mayBlock(c: Client): boolean {
  return !c.replay && c.server.exclusive !== c;
}

/**
 * Blocks `c` on `keys` until `serve` takes something for it, the timeout
 * passes (`c` gets `timedOut`'s reply: a null array unless said) or it
 * disconnects. `serve` writes `c`'s reply and returns the forms the pusher
 * logs, or null to stay blocked. With no keys (WAIT) only the timeout, a
 * CLIENT UNBLOCK or the disconnect ends it.
 */
export function block(
  c: Client,
  keys: readonly Buffer[],
  timeoutMs: number,
  serve: (key: Buffer, by: Client) => Buffer[][] | null,
  timedOut: (c: Client) => void = replyNullArray,
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
      unblock(error) {
        if (done) return;
        if (error) {
          c.replyError(
            new CommandError('ERR_UNBLOCKED', 'UNBLOCKED client unblocked via CLIENT UNBLOCK'),
          );
        } else timedOut(c);
        logAs(c, []);
        waiter.finish();
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
            timedOut(c);
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

function replyNullArray(c: Client): void {
  c.reply.nullArray();
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

/**
 * Where `c` may not block (inside MULTI/EXEC, a replay) it answers as a
 * timeout would; else it blocks on `keys`.
 */
function blockOrAnswer(
  c: Client,
  keys: readonly Buffer[],
  timeoutMs: number,
  timedOut: 'null' | 'nullArray',
  serve: (key: Buffer, by: Client) => Buffer[][] | null,
): CommandResult {
  if (mayBlock(c)) return block(c, keys, timeoutMs, serve);
  if (timedOut === 'null') c.reply.null();
  else c.reply.nullArray();
  logAs(c, []);
  return undefined;
}

/**
 * What a blocking pop takes from a non-empty value at `key`: it pops,
 * writes the reply to `c`, sends the pop's keyspace events (in `c`'s
 * database: when serving a blocked client, Redis notifies with that
 * client's) and returns the non-blocking command it is logged as (LPOP,
 * ZPOPMIN...).
 */
type Take<V> = (c: Client, key: Buffer, value: V) => Buffer[];

/**
 * BLPOP, BRPOP, BLMPOP, BZPOPMIN and BZPOPMAX: taken at once from the first
 * non-empty key, else when a push to one of `keys` serves the blocked
 * client (from the pusher's command: its store write goes on in the
 * background and the pusher logs the pop).
 */
function blockingPop<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  type: number,
  timeoutMs: number,
  take: Take<V>,
): CommandResult {
  return withFirstNonEmpty<V>(c, keys, type, (i, value) => {
    if (value !== null) {
      const key = keys[i]!;
      logAs(c, take(c, key, value));
      return afterChange(c, key, value);
    }
    return blockOrAnswer(c, keys, timeoutMs, 'nullArray', (key, by) => {
      const ready = readyValue<V>(by, key, type);
      if (ready === null) return null;
      const form = take(c, Buffer.from(key), ready);
      background(afterChange(by, key, ready));
      return [form];
    });
  });
}

// ---- BLPOP / BRPOP / BLMPOP -----------------------------------------------------------

function blpop(c: Client, argv: Buffer[], end: End): CommandResult {
  const popName = end === 'left' ? LPOP : RPOP;
  return blockingPop<List>(
    c,
    argv.slice(1, -1),
    RecordType.LIST,
    parseTimeout(argv[argv.length - 1]!),
    (to, key, l) => {
      to.reply.array(2).bulk(key).bulkLatin1(pop(l, end));
      notifyPopped(to, key, l, end);
      return [popName, key];
    },
  );
}

function blmpop(c: Client, argv: Buffer[]): CommandResult {
  const timeout = parseTimeout(argv[1]!);
  const { keys, end, count } = parseMpop(argv, 2);
  const popName = end === 'left' ? LPOP : RPOP;
  return withOpenDb(c, () =>
    blockingPop<List>(c, keys, RecordType.LIST, timeout, (to, key, l) => {
      const n = mpopReply(to, key, l, end, count);
      notifyPopped(to, key, l, end);
      return [popName, key, Buffer.from(String(n))];
    }),
  );
}

// ---- BZPOPMIN / BZPOPMAX ----------------------------------------------------------------

function bzpop(c: Client, argv: Buffer[], max: boolean): CommandResult {
  const popName = max ? ZPOPMAX : ZPOPMIN;
  return blockingPop<SortedSet>(
    c,
    argv.slice(1, -1),
    RecordType.ZSET,
    parseTimeout(argv[argv.length - 1]!),
    (to, key, z) => {
      to.reply.array(3).bulk(key);
      popPairs(to, z, 1, max, false);
      notifyZpopped(to, key, z, max);
      return [popName, key];
    },
  );
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
      notifyMoved(c, src, l, dst, d === null, from, to);
      const served = serveWaiters(c, dst);
      logAs(c, form(src, dst), ...served);
      return whenWritten(write, () => c.reply.bulkLatin1(value));
    }
    const srcKey = Buffer.from(src);
    const dstKey = Buffer.from(dst);
    return blockOrAnswer(c, [srcKey], timeout, 'null', (_key, by) => {
      const a = readyValue<List>(by, srcKey, RecordType.LIST);
      if (a === null) return null;
      const b = by.collections.get<List>(dstKey, RecordType.LIST);
      if (b instanceof Promise) {
        // The destination is on the disk or held by a write-back in slices:
        // once it is in memory this waiter serves itself (it stays first
        // meanwhile: nobody behind it is served before it).
        b.then(
          () => logAs(c, ...(serveIfFirst(c, srcKey) ?? [])),
          () => undefined,
        );
        return null;
      }
      if (b.status === 'wrongType') {
        // Redis answers the blocked client WRONGTYPE and leaves the source as it was.
        c.replyError(wrongTypeError());
        return [];
      }
      const d = valueOrNull(b);
      const { value, write } = moveOne(by, srcKey, a, dstKey, d, from, to);
      // In the served client's database, as Redis's serveClientBlockedOnList.
      notifyMoved(c, srcKey, a, dstKey, d === null, from, to);
      background(write);
      // The destination changed under a WATCH of it (the source is touched by the caller).
      touchWatched(by.server, by.db, dstKey);
      c.reply.bulkLatin1(value);
      // A rotation (BRPOPLPUSH k k) left its key as long as it was, and this
      // waiter is still first in its queue: serving it again would not end.
      if (srcKey.equals(dstKey)) return [form(srcKey, dstKey)];
      return [form(srcKey, dstKey), ...serveWaiters(by, dstKey)];
    });
  });
}

function valueOrNull<V extends CollectionValue>(r: CollectionLookup<V>): V | null {
  return r.status === 'found' ? r.value : null;
}

// ---- the table ----------------------------------------------------------------------------

const BLOCKING = ['write', 'noscript', 'blocking'] as const;
/** Every key but the timeout (the last argument). */
const KEYS_BUT_LAST = { firstKey: 1, lastKey: -2, step: 1 } as const satisfies KeyPositions;
/** What every blocking pop shares. */
const blockingPopCommand = {
  complexity: 'O(N) where N is the number of provided keys.',
  wholeLog: true,
} as const;

export const blockingCommands: CommandDefinition[] = [
  {
    name: 'blpop',
    arity: -3,
    flags: BLOCKING,
    ...KEYS_BUT_LAST,
    ...listGroup,
    ...blockingPopCommand,
    since: '2.0.0',
    summary:
      'Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
    handler: (c, a) => blpop(c, a, 'left'),
  },
  {
    name: 'brpop',
    arity: -3,
    flags: BLOCKING,
    ...KEYS_BUT_LAST,
    ...listGroup,
    ...blockingPopCommand,
    since: '2.0.0',
    summary:
      'Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
    handler: (c, a) => blpop(c, a, 'right'),
  },
  {
    name: 'blmove',
    arity: 6,
    flags: ['write', 'denyoom', 'noscript', 'blocking'],
    ...SRC_DST,
    ...listGroup,
    ...blockingPopCommand,
    since: '6.2.0',
    summary:
      'Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.',
    handler: (c, a) => blmove(c, a, parseEnd(a[3]!), parseEnd(a[4]!), 5),
  },
  {
    name: 'brpoplpush',
    arity: 4,
    flags: ['write', 'denyoom', 'noscript', 'blocking'],
    ...SRC_DST,
    ...listGroup,
    ...blockingPopCommand,
    since: '2.2.0',
    summary:
      'Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.',
    handler: (c, a) => blmove(c, a, 'right', 'left', 3),
  },
  {
    name: 'blmpop',
    arity: -5,
    flags: ['write', 'blocking'],
    ...NO_KEYS,
    ...listGroup,
    ...blockingPopCommand,
    since: '7.0.0',
    summary:
      'Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
    handler: blmpop,
  },
  {
    name: 'bzpopmin',
    arity: -3,
    flags: [...BLOCKING, 'fast'],
    ...KEYS_BUT_LAST,
    ...sortedSetGroup,
    ...blockingPopCommand,
    since: '5.0.0',
    summary:
      'Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.',
    handler: (c, a) => bzpop(c, a, false),
  },
  {
    name: 'bzpopmax',
    arity: -3,
    flags: [...BLOCKING, 'fast'],
    ...KEYS_BUT_LAST,
    ...sortedSetGroup,
    ...blockingPopCommand,
    since: '5.0.0',
    summary:
      'Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.',
    handler: (c, a) => bzpop(c, a, true),
  },
];
