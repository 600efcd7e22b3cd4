import { List } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { eqi, parseInteger } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { signalKey } from '../blocking/blocking-registry.js';
import { keyMiss, NotifyClass, notify } from '../pubsub/keyspace-events.js';
import {
  afterChange,
  afterWrite,
  bothWritten,
  lookupTogether,
  lookupValue,
  type Written,
  whenWritten,
  withCollection,
  withFirstNonEmpty,
  withOpenDb,
} from '../shared/collection-access.js';
import { listGroup } from '../shared/command-groups.js';
import { indexAt, indexWindow } from '../shared/index-range.js';
import { KEY1, NO_KEYS, SRC_DST } from '../shared/key-positions.js';
import { member, outOfRange, parsePositive, parseRanged } from '../zsets/zsets-args.js';

const LIST = RecordType.LIST;

export function withList(
  c: Client,
  key: Buffer,
  fn: (l: List | null) => CommandResult,
): CommandResult {
  return withCollection<List>(c, key, LIST, fn);
}

/** LEFT / RIGHT. */
export type End = 'left' | 'right';

export function parseEnd(arg: Uint8Array): End {
  if (eqi(arg, 'left')) return 'left';
  if (eqi(arg, 'right')) return 'right';
  throw syntaxError();
}

export function pop(l: List, end: End): string {
  return (end === 'left' ? l.popFront() : l.popBack())!;
}

export function push(l: List, end: End, v: string): void {
  if (end === 'left') l.pushFront(v);
  else l.pushBack(v);
}

// ---- keyspace notifications --------------------------------------------------------
//
// The events of Redis 7's t_list.c (notify-keyspace-events), each sent once
// the change is made in memory, before blocked clients are served (Redis
// serves them after the command): `new` (n) where Redis's dbAdd creates the
// key, the command's own event (l), `del` (g) when it empties the list;
// `keymiss` (m) where Redis's lookupKeyRead misses (the reads; the writes
// look up with lookupKeyWrite, which sends none). `notify` returns at once
// for a class that is off.

/** Elements were popped from `end` of the list at `key`: `lpop`/`rpop`, then `del` if that emptied it. */
export function notifyPopped(c: Client, key: Buffer, l: List, end: End): void {
  notify(c, NotifyClass.list, end === 'left' ? 'lpop' : 'rpop', key);
  if (l.size === 0) notify(c, NotifyClass.generic, 'del', key);
}

/**
 * A move (LMOVE, BLMOVE, RPOPLPUSH) made: Redis's lmoveHandlePush (`new`
 * when it created `dst`, `lpush`/`rpush`), then the pop from `src`.
 */
export function notifyMoved(
  c: Client,
  src: Buffer,
  l: List,
  dst: Buffer,
  created: boolean,
  from: End,
  to: End,
): void {
  if (created) notify(c, NotifyClass.new, 'new', dst);
  notify(c, NotifyClass.list, to === 'left' ? 'lpush' : 'rpush', dst);
  notifyPopped(c, src, l, from);
}

// ---- pushes -------------------------------------------------------------------------

function pushCommand(c: Client, argv: Buffer[], end: End, onlyIfExists: boolean): CommandResult {
  const key = argv[1]!;
  return withList(c, key, (found) => {
    if (found === null && onlyIfExists) {
      c.reply.integer(0);
      return undefined;
    }
    const l = found ?? new List();
    for (let i = 2; i < argv.length; i++) push(l, end, member(argv[i]!));
    const length = l.size;
    const w = afterWrite(c, key, l, found === null);
    if (found === null) notify(c, NotifyClass.new, 'new', key);
    notify(c, NotifyClass.list, end === 'left' ? 'lpush' : 'rpush', key);
    // Blocked clients are served after the push, before this reply leaves:
    // the reply still says the length the push made, as Redis's does.
    signalKey(c, key, argv);
    return whenWritten(w, () => c.reply.integer(length));
  });
}

// ---- pops ---------------------------------------------------------------------------

/**
 * Pops up to `count` elements from `end` of the list at `key`, writing them
 * as bulk strings (the caller wrote the header), deleting the key once
 * empty. Returns the store write to wait for, if any.
 */
export function popInto(
  c: Client,
  key: Buffer,
  l: List,
  end: End,
  count: number,
): Promise<void> | undefined {
  for (let i = 0; i < count; i++) c.reply.bulkLatin1(pop(l, end));
  return afterChange(c, key, l);
}

function popCommand(c: Client, argv: Buffer[], end: End): CommandResult {
  if (argv.length > 3) {
    throw new CommandError(
      'ERR_WRONG_ARITY',
      `ERR wrong number of arguments for '${end === 'left' ? 'lpop' : 'rpop'}' command`,
    );
  }
  const hasCount = argv.length === 3;
  // Redis's getPositiveLongFromObjectOrReply: one message for any bad count.
  const count = hasCount ? parsePositive(argv[2]!, 'value is out of range, must be positive') : 1;
  const key = argv[1]!;
  return withList(c, key, (l) => {
    if (l === null) {
      if (hasCount) c.reply.nullArray();
      else c.reply.null();
      return undefined;
    }
    if (hasCount && count === 0) {
      c.reply.array(0);
      return undefined;
    }
    const n = Math.min(count, l.size);
    if (hasCount) c.reply.array(n);
    const w = popInto(c, key, l, end, n);
    notifyPopped(c, key, l, end);
    return w;
  });
}

// ---- by index -------------------------------------------------------------------------

function lindex(c: Client, argv: Buffer[]): CommandResult {
  return withList(c, argv[1]!, (l) => {
    if (l === null) {
      keyMiss(c, argv[1]!);
      c.reply.null();
      return undefined;
    }
    const i = indexAt(l.size, parseInteger(argv[2]!));
    if (i === -1) c.reply.null();
    else c.reply.bulkLatin1(l.get(i));
    return undefined;
  });
}

function lset(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return withList(c, key, (l) => {
    if (l === null) throw new CommandError('ERR_NO_SUCH_KEY', 'ERR no such key');
    const i = indexAt(l.size, parseInteger(argv[2]!));
    if (i === -1) throw outOfRange('index out of range');
    l.set(i, member(argv[3]!));
    c.collections.changed(key, l);
    notify(c, NotifyClass.list, 'lset', key);
    c.reply.simple('OK');
    return undefined;
  });
}

function lrange(c: Client, argv: Buffer[]): CommandResult {
  const start = parseInteger(argv[2]!);
  const end = parseInteger(argv[3]!);
  return withList(c, argv[1]!, (l) => {
    if (l === null) keyMiss(c, argv[1]!);
    const w = l === null ? null : indexWindow(l.size, start, end);
    if (w === null) {
      c.reply.array(0);
      return undefined;
    }
    c.reply.array(w[1] - w[0] + 1);
    l!.forRange(w[0], w[1], (v) => {
      c.reply.bulkLatin1(v);
    });
    return undefined;
  });
}

function ltrim(c: Client, argv: Buffer[]): CommandResult {
  const start = parseInteger(argv[2]!);
  const end = parseInteger(argv[3]!);
  const key = argv[1]!;
  return withList(c, key, (l) => {
    if (l === null) {
      c.reply.simple('OK');
      return undefined;
    }
    const w = indexWindow(l.size, start, end);
    if (w === null) l.clear();
    else l.trim(w[0], w[1]);
    const written = afterChange(c, key, l);
    // Sent even when nothing was trimmed, as Redis does.
    notify(c, NotifyClass.list, 'ltrim', key);
    if (l.size === 0) notify(c, NotifyClass.generic, 'del', key);
    return whenWritten(written, () => c.reply.simple('OK'));
  });
}

function lrem(c: Client, argv: Buffer[]): CommandResult {
  const count = parseInteger(argv[2]!);
  const key = argv[1]!;
  return withList(c, key, (l) => {
    const n = l === null ? 0 : l.removeEqual(member(argv[3]!), count);
    if (n === 0) {
      c.reply.integer(0);
      return undefined;
    }
    const written = afterChange(c, key, l!);
    notify(c, NotifyClass.list, 'lrem', key);
    if (l!.size === 0) notify(c, NotifyClass.generic, 'del', key);
    return whenWritten(written, () => c.reply.integer(n));
  });
}

function linsert(c: Client, argv: Buffer[]): CommandResult {
  let after: boolean;
  if (eqi(argv[2]!, 'after')) after = true;
  else if (eqi(argv[2]!, 'before')) after = false;
  else throw syntaxError();
  const key = argv[1]!;
  return withList(c, key, (l) => {
    if (l === null) {
      c.reply.integer(0);
      return undefined;
    }
    const pivot = member(argv[3]!);
    let at = -1;
    if (l.size > 0) {
      // The first occurrence from the head; the walk goes on after it (cheap, rare).
      l.forRange(0, l.size - 1, (v, i) => {
        if (at === -1 && v === pivot) at = i;
      });
    }
    if (at === -1) {
      c.reply.integer(-1);
      return undefined;
    }
    l.insert(after ? at + 1 : at, member(argv[4]!));
    c.collections.changed(key, l);
    notify(c, NotifyClass.list, 'linsert', key);
    c.reply.integer(l.size);
    return undefined;
  });
}

function lpos(c: Client, argv: Buffer[]): CommandResult {
  let rank = 1;
  let count = -1;
  let maxlen = 0;
  for (let j = 3; j < argv.length; j++) {
    const a = argv[j]!;
    const more = argv.length - j - 1 > 0;
    if (eqi(a, 'rank') && more) {
      rank = parseInteger(argv[++j]!);
      if (rank === 0) {
        throw outOfRange(
          "RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list",
        );
      }
    } else if (eqi(a, 'count') && more) {
      count = parsePositive(argv[++j]!, "COUNT can't be negative");
    } else if (eqi(a, 'maxlen') && more) {
      maxlen = parsePositive(argv[++j]!, "MAXLEN can't be negative");
    } else throw syntaxError();
  }
  const wanted = member(argv[2]!);
  return withList(c, argv[1]!, (l) => {
    if (l === null) {
      keyMiss(c, argv[1]!);
      if (count !== -1) c.reply.array(0);
      else c.reply.null();
      return undefined;
    }
    const found: number[] = [];
    const limit = count === -1 ? 1 : count === 0 ? Number.POSITIVE_INFINITY : count;
    let skip = Math.abs(rank) - 1;
    const n = l.size;
    const span = maxlen === 0 ? n : Math.min(maxlen, n);
    const visit = (v: string, i: number) => {
      if (found.length >= limit || v !== wanted) return;
      if (skip > 0) skip--;
      else found.push(i);
    };
    if (n > 0 && rank > 0) l.forRange(0, span - 1, visit);
    else if (n > 0) l.forRangeReverse(n - 1, n - span, visit);
    if (count === -1) {
      if (found.length === 0) c.reply.null();
      else c.reply.integer(found[0]!);
    } else {
      c.reply.array(found.length);
      for (const i of found) c.reply.integer(i);
    }
    return undefined;
  });
}

// ---- LMOVE / RPOPLPUSH / LMPOP ---------------------------------------------------------

/**
 * Moves one element from `src`'s `from` end to `dst`'s `to` end and returns
 * it with the store write to wait for (src and dst may be the same list: a
 * rotation). The caller checked that `src` is a non-empty list and that
 * `dst` holds a list or nothing.
 */
export function moveOne(
  c: Client,
  src: Buffer,
  l: List,
  dst: Buffer,
  d: List | null,
  from: End,
  to: End,
): { value: string; write: Written } {
  const value = pop(l, from);
  if (src.equals(dst)) {
    // A rotation: the list is never empty in between.
    push(l, to, value);
    c.collections.changed(src, l);
    return { value, write: undefined };
  }
  const target = d ?? new List();
  push(target, to, value);
  return {
    value,
    write: bothWritten(afterChange(c, src, l), afterWrite(c, dst, target, d === null)),
  };
}

/** Looks up `src` and `dst`, checking them in Redis's order: src first, dst only if src has elements. */
export function withMovePair(
  c: Client,
  src: Buffer,
  dst: Buffer,
  fn: (l: List | null, d: List | null) => CommandResult,
): CommandResult {
  return lookupTogether<List>(c, [src, dst], LIST, true, ([x, y]) => {
    const l = lookupValue(x!);
    if (l === null || l.size === 0) return fn(null, null);
    return fn(l, lookupValue(y!));
  });
}

function lmove(c: Client, argv: Buffer[], from: End, to: End): CommandResult {
  const src = argv[1]!;
  const dst = argv[2]!;
  return withMovePair(c, src, dst, (l, d) => {
    if (l === null) {
      c.reply.null();
      return undefined;
    }
    const { value, write } = moveOne(c, src, l, dst, d, from, to);
    notifyMoved(c, src, l, dst, d === null, from, to);
    signalKey(c, dst, argv);
    return whenWritten(write, () => c.reply.bulkLatin1(value));
  });
}

/** LMPOP / BLMPOP's arguments after the numkeys position. */
export interface MpopArgs {
  readonly keys: Buffer[];
  readonly end: End;
  readonly count: number;
}

export function parseMpop(argv: Buffer[], numkeysAt: number): MpopArgs {
  const numkeys = parseRanged(argv[numkeysAt]!, 1, 2 ** 63 - 1, 'numkeys should be greater than 0');
  const whereAt = numkeysAt + numkeys + 1;
  if (whereAt >= argv.length) throw syntaxError();
  const end = parseEnd(argv[whereAt]!);
  let count = -1;
  for (let j = whereAt + 1; j < argv.length; j++) {
    const more = argv.length - j - 1 > 0;
    if (eqi(argv[j]!, 'count') && more && count === -1) {
      count = parseRanged(argv[++j]!, 1, 2 ** 63 - 1, 'count should be greater than 0');
    } else throw syntaxError();
  }
  return {
    keys: argv.slice(numkeysAt + 1, numkeysAt + 1 + numkeys),
    end,
    count: count === -1 ? 1 : count,
  };
}

/**
 * LMPOP / BLMPOP's pop from the list at `key`: replies [key, [elements]]
 * with up to `count` of them and returns how many (the caller stores the
 * change).
 */
export function mpopReply(c: Client, key: Buffer, l: List, end: End, count: number): number {
  const n = Math.min(count, l.size);
  c.reply.array(2).bulk(key).array(n);
  for (let j = 0; j < n; j++) c.reply.bulkLatin1(pop(l, end));
  return n;
}

function lmpop(c: Client, argv: Buffer[]): CommandResult {
  const { keys, end, count } = parseMpop(argv, 1);
  return withOpenDb(c, () =>
    withFirstNonEmpty<List>(c, keys, LIST, (i, l) => {
      if (l === null) {
        c.reply.nullArray();
        return undefined;
      }
      mpopReply(c, keys[i]!, l, end, count);
      const written = afterChange(c, keys[i]!, l);
      notifyPopped(c, keys[i]!, l, end);
      return written;
    }),
  );
}

// ---- the table ----------------------------------------------------------------------------

const PUSH = ['write', 'denyoom', 'fast'] as const;

export const listCommands: CommandDefinition[] = [
  {
    name: 'lpush',
    arity: -3,
    flags: PUSH,
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Prepends one or more elements to a list.',
    handler: (c, a) => pushCommand(c, a, 'left', false),
  },
  {
    name: 'rpush',
    arity: -3,
    flags: PUSH,
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Appends one or more elements to a list.',
    handler: (c, a) => pushCommand(c, a, 'right', false),
  },
  {
    name: 'lpushx',
    arity: -3,
    flags: PUSH,
    ...KEY1,
    ...listGroup,
    since: '2.2.0',
    complexity: 'O(1)',
    summary: 'Prepends elements to a list only when it exists.',
    handler: (c, a) => pushCommand(c, a, 'left', true),
  },
  {
    name: 'rpushx',
    arity: -3,
    flags: PUSH,
    ...KEY1,
    ...listGroup,
    since: '2.2.0',
    complexity: 'O(1)',
    summary: 'Appends elements to a list only when it exists.',
    handler: (c, a) => pushCommand(c, a, 'right', true),
  },
  {
    name: 'lpop',
    arity: -2,
    flags: ['write', 'fast'],
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Returns the first elements in a list after removing them.',
    handler: (c, a) => popCommand(c, a, 'left'),
  },
  {
    name: 'rpop',
    arity: -2,
    flags: ['write', 'fast'],
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Returns and removes the last elements of a list.',
    handler: (c, a) => popCommand(c, a, 'right'),
  },
  {
    name: 'llen',
    arity: 2,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Returns the length of a list.',
    handler: (c, a) =>
      withList(c, a[1]!, (l) => {
        if (l === null) keyMiss(c, a[1]!);
        c.reply.integer(l?.size ?? 0);
        return undefined;
      }),
  },
  {
    name: 'lindex',
    arity: 3,
    flags: ['readonly'],
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(N)',
    summary: 'Returns an element from a list by its index.',
    handler: lindex,
  },
  {
    name: 'lset',
    arity: 4,
    flags: ['write', 'denyoom'],
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(N)',
    summary: 'Sets the value of an element in a list by its index.',
    handler: lset,
  },
  {
    name: 'lrange',
    arity: 4,
    flags: ['readonly'],
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(S+N)',
    summary: 'Returns a range of elements from a list.',
    handler: lrange,
  },
  {
    name: 'ltrim',
    arity: 4,
    flags: ['write'],
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(N)',
    summary: 'Removes elements from both ends a list.',
    handler: ltrim,
  },
  {
    name: 'lrem',
    arity: 4,
    flags: ['write'],
    ...KEY1,
    ...listGroup,
    since: '1.0.0',
    complexity: 'O(N+M)',
    summary: 'Removes elements from a list.',
    handler: lrem,
  },
  {
    name: 'linsert',
    arity: 5,
    flags: ['write', 'denyoom'],
    ...KEY1,
    ...listGroup,
    since: '2.2.0',
    complexity: 'O(N)',
    summary: 'Inserts an element before or after another element in a list.',
    handler: linsert,
  },
  {
    name: 'lpos',
    arity: -3,
    flags: ['readonly'],
    ...KEY1,
    ...listGroup,
    since: '6.0.6',
    complexity: 'O(N)',
    summary: 'Returns the index of matching elements in a list.',
    handler: lpos,
  },
  {
    name: 'lmove',
    arity: 5,
    flags: ['write', 'denyoom'],
    ...SRC_DST,
    ...listGroup,
    since: '6.2.0',
    complexity: 'O(1)',
    summary: 'Returns an element after popping it from one list and pushing it to another.',
    handler: (c, a) => lmove(c, a, parseEnd(a[3]!), parseEnd(a[4]!)),
  },
  {
    name: 'rpoplpush',
    arity: 3,
    flags: ['write', 'denyoom'],
    ...SRC_DST,
    ...listGroup,
    since: '1.2.0',
    complexity: 'O(1)',
    summary: 'Returns the last element of a list after removing and pushing it to another list.',
    handler: (c, a) => lmove(c, a, 'right', 'left'),
  },
  {
    name: 'lmpop',
    arity: -4,
    flags: ['write'],
    ...NO_KEYS,
    ...listGroup,
    since: '7.0.0',
    complexity: 'O(N+M)',
    summary: 'Returns multiple elements from a list after removing them.',
    handler: lmpop,
  },
];
