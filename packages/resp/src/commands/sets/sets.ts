import { latin1, SetValue } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { eqi, parseInteger } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { keyMiss, NotifyClass, notify, publishes } from '../pubsub/keyspace-events.js';
import {
  afterChange,
  afterChangeNotify,
  afterWriteNotify,
  bothWritten,
  type Found,
  keyExists,
  lookupTogether,
  lookupValue,
  readCollections,
  readValues,
  whenWritten,
  whenWrittenNotify,
  withCollection,
} from '../shared/collection-access.js';
import { removeMembers } from '../shared/collection-remove.js';
import { matches, parseCollectionScan } from '../shared/collection-scan-options.js';
import { setGroup } from '../shared/command-groups.js';
import { ALL_KEYS, KEY1, NO_KEYS, SRC_DST } from '../shared/key-positions.js';
import { parseRandomCount } from '../shared/random-count.js';
import { whenNonZero } from '../shared/replay-rules.js';
import { parseCursor } from '../shared/scan-options.js';
import { spopReplay } from './replay.js';

/**
 * Set commands (Redis 7 semantics) on the cached SetValue of each key.
 * Multi-key commands look every key up at once (keys on disk are read
 * concurrently) and answer WRONGTYPE when any of them holds another type,
 * before anything is computed, as Redis does.
 *
 * Keyspace events as Redis's t_set.c, each once the change is made (the
 * keys cached or read from the disk): `new` when a write creates a key,
 * `sadd`, `srem` and `spop` (then `del` when the set is emptied), SMOVE's
 * `srem` of the source (its `del`) then `sadd` of the destination (its
 * `new` first), the STOREs' `sinterstore`/`sunionstore`/`sdiffstore` or,
 * for an empty result, `del` of a destination that existed; a read lookup
 * of a missing key (every source of SINTER..SDIFFSTORE) is a `keymiss`.
 * Each event goes before or after the reply where Redis's does (a client
 * subscribed to its own keys sees it): SPOP's `del` and the STOREs' events
 * follow the reply, SINTERSTORE's `del` for a missing source precedes it.
 */

const SET = RecordType.SET;

const mustBePositiveError = () =>
  new CommandError('ERR_SYNTAX', 'ERR value is out of range, must be positive');

/** An integer argument whose parse error has the command's own wording (Redis's getRangeLong...OrReply). */
function integerOr(arg: Buffer, error: () => CommandError): number {
  try {
    return parseInteger(arg);
  } catch {
    throw error();
  }
}

/** Runs `f` on the key's set (null when missing: a key miss), read only. */
function read(c: Client, key: Buffer, f: (s: SetValue | null) => void): CommandResult {
  return withCollection<SetValue>(c, key, SET, (s) => {
    if (s === null) keyMiss(c, key);
    f(s);
    return undefined;
  });
}

function sadd(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return withCollection<SetValue>(c, key, SET, (found) => {
    const s = found ?? SetValue.empty();
    let added = 0;
    for (let i = 2; i < argv.length; i++) if (s.add(latin1(argv[i]!))) added++;
    const reply = () => c.reply.integer(added);
    // An existing set is marked changed only when a member was added.
    if (found !== null && added === 0) {
      reply();
      return undefined;
    }
    const written = afterWriteNotify(c, key, s, found === null, NotifyClass.set, 'sadd');
    return whenWritten(written, reply);
  });
}

function srem(c: Client, argv: Buffer[]): CommandResult {
  return removeMembers<SetValue>(c, argv, SET, (s, m) => s.delete(m), NotifyClass.set, 'srem');
}

/** Members as a RESP3 set (an array in RESP2). */
function replyMembers(c: Client, members: Iterable<string>, n: number): void {
  c.reply.set(n);
  for (const m of members) c.reply.bulkLatin1(m);
}

function smembers(c: Client, argv: Buffer[]): CommandResult {
  return read(c, argv[1]!, (s) => {
    c.reply.set(s?.size ?? 0);
    s?.forEach((m) => {
      c.reply.bulkLatin1(m);
    });
  });
}

function spop(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  if (argv.length > 3) throw syntaxError();
  if (argv.length === 2) {
    return withCollection<SetValue>(c, key, SET, (s) => {
      if (s === null) {
        c.reply.null();
        return undefined;
      }
      const m = s.random(Math.random);
      s.delete(m);
      return afterPop(c, key, s, () => c.reply.bulkLatin1(m));
    });
  }
  const count = integerOr(argv[2]!, mustBePositiveError);
  if (count < 0) throw mustBePositiveError();
  return withCollection<SetValue>(c, key, SET, (s) => {
    if (s === null || count === 0) {
      c.reply.set(0);
      return undefined;
    }
    const popped: string[] = [];
    if (count >= s.size) {
      s.forEach((m) => {
        popped.push(m);
      });
      for (const m of popped) s.delete(m);
    } else {
      for (let i = 0; i < count; i++) {
        const m = s.random(Math.random);
        s.delete(m);
        popped.push(m);
      }
    }
    return afterPop(c, key, s, () => replyMembers(c, popped, popped.length));
  });
}

/** After a pop from `s` at `key`: `spop`, the reply, then `del` if it was emptied (Redis's order). */
function afterPop(c: Client, key: Buffer, s: SetValue, reply: () => void): CommandResult {
  notify(c, NotifyClass.set, 'spop', key);
  const written = afterChange(c, key, s);
  if (s.size > 0) return whenWritten(written, reply);
  return whenWrittenNotify(c, written, reply, NotifyClass.generic, 'del', key);
}

function srandmember(c: Client, argv: Buffer[]): CommandResult {
  if (argv.length > 3) throw syntaxError();
  if (argv.length === 2) {
    return read(c, argv[1]!, (s) => {
      if (s === null) c.reply.null();
      else c.reply.bulkLatin1(s.random(Math.random));
    });
  }
  const l = parseRandomCount(argv[2]!);
  return read(c, argv[1]!, (s) => {
    const w = c.reply;
    if (s === null || l === 0) {
      w.array(0);
      return;
    }
    if (l < 0 || l === 1) {
      const n = Math.abs(l);
      w.array(n);
      for (let i = 0; i < n; i++) w.bulkLatin1(s.random(Math.random));
      return;
    }
    if (l >= s.size) {
      w.array(s.size);
      s.forEach((m) => {
        w.bulkLatin1(m);
      });
      return;
    }
    const picked = new Set<string>();
    if (l * 3 <= s.size) {
      while (picked.size < l) picked.add(s.random(Math.random));
    } else {
      const all: string[] = [];
      s.forEach((m) => {
        all.push(m);
      });
      for (let i = 0; i < l; i++) {
        const j = i + Math.floor(Math.random() * (all.length - i));
        const t = all[i]!;
        all[i] = all[j]!;
        all[j] = t;
        picked.add(all[i]!);
      }
    }
    w.array(picked.size);
    for (const m of picked) w.bulkLatin1(m);
  });
}

function smove(c: Client, argv: Buffer[]): CommandResult {
  const src = argv[1]!;
  const dst = argv[2]!;
  const member = latin1(argv[3]!);
  return lookupTogether<SetValue>(c, [src, dst], SET, true, ([fromR, toR]) => {
    // No source: 0, whatever the destination holds (Redis checks types after).
    if (fromR!.status === 'missing') {
      c.reply.integer(0);
      return undefined;
    }
    const from = lookupValue(fromR!)!;
    const to = lookupValue(toR!);
    if (!from.has(member)) {
      c.reply.integer(0);
      return undefined;
    }
    if (src.equals(dst)) {
      c.reply.integer(1);
      return undefined;
    }
    from.delete(member);
    const left = afterChangeNotify(c, src, from, NotifyClass.set, 'srem');
    const target = to ?? SetValue.empty();
    // The destination is written (and publishes `sadd`) only when it gained the member.
    const moved = target.add(member)
      ? afterWriteNotify(c, dst, target, to === null, NotifyClass.set, 'sadd')
      : undefined;
    return whenWritten(bothWritten(left, moved), () => c.reply.integer(1));
  });
}

// ---- SINTER / SUNION / SDIFF -----------------------------------------------------

type SetOp = 'inter' | 'union' | 'diff';

/** The members of the operation over `sets` (null = missing = empty), as Redis computes them. */
function compute(op: SetOp, sets: Found<SetValue>[], limit = 0): string[] {
  const out: string[] = [];
  if (op === 'inter') {
    if (sets.some((s) => s === null || s.size === 0)) return out;
    const ordered = (sets as SetValue[]).slice().sort((a, b) => a.size - b.size);
    const [smallest, ...rest] = ordered;
    smallest!.forEach((m) => {
      if (limit > 0 && out.length >= limit) return;
      for (const s of rest) if (!s.has(m)) return;
      out.push(m);
    });
    return out;
  }
  if (op === 'union') {
    const seen = new Set<string>();
    for (const s of sets)
      s?.forEach((m) => {
        seen.add(m);
      });
    return [...seen];
  }
  const [first, ...rest] = sets;
  if (first === null || first === undefined) return out;
  first.forEach((m) => {
    for (const s of rest) if (s?.has(m)) return;
    out.push(m);
  });
  return out;
}

function setOp(c: Client, argv: Buffer[], op: SetOp): CommandResult {
  return readCollections<SetValue>(c, argv.slice(1), SET, (sets) => {
    const members = compute(op, sets);
    replyMembers(c, members, members.length);
    return undefined;
  });
}

const STORE_EVENT: Readonly<Record<SetOp, string>> = {
  inter: 'sinterstore',
  union: 'sunionstore',
  diff: 'sdiffstore',
};

function setOpStore(c: Client, argv: Buffer[], op: SetOp): CommandResult {
  const dst = argv[1]!;
  const keys = argv.slice(2);
  // Whether the destination exists decides `new` and `del`: it is looked up
  // (alongside the sources) only when one of them would be published; null
  // when it was not.
  const existed = publishes(c, NotifyClass.new | NotifyClass.generic) ? keyExists(c, dst) : null;
  if (existed instanceof Promise) existed.catch(() => undefined); // a WRONGTYPE may leave it unread
  return lookupTogether<SetValue>(c, keys, SET, false, (found) => {
    const sets = readValues(c, keys, found);
    if (existed instanceof Promise) return existed.then((e) => store(c, dst, op, sets, e));
    return store(c, dst, op, sets, existed);
  });
}

/** The STORE's result into `dst`, which `existed` before (null: not looked up). */
function store(
  c: Client,
  dst: Buffer,
  op: SetOp,
  sets: Found<SetValue>[],
  existed: boolean | null,
): CommandResult {
  const members = compute(op, sets);
  const reply = () => c.reply.integer(members.length);
  if (members.length === 0) {
    // The destination goes, whatever it held (Redis deletes it); through
    // the cache, so the removal is ordered after any write-back in flight.
    const written = c.collections.delete(dst);
    if (existed === false) return whenWritten(written, reply);
    // SINTERSTORE over a missing key returns early: `del`, then the reply.
    if (op !== 'inter' || !sets.includes(null)) {
      return whenWrittenNotify(c, written, reply, NotifyClass.generic, 'del', dst);
    }
    notify(c, NotifyClass.generic, 'del', dst);
    return whenWritten(written, reply);
  }
  const s = SetValue.empty();
  for (const m of members) s.add(m);
  const written = c.collections.create(dst, s);
  if (existed === false) notify(c, NotifyClass.new, 'new', dst);
  return whenWrittenNotify(c, written, reply, NotifyClass.set, STORE_EVENT[op], dst);
}

function sintercard(c: Client, argv: Buffer[]): CommandResult {
  const numkeysError = () => new CommandError('ERR_SYNTAX', 'ERR numkeys should be greater than 0');
  const numkeys = integerOr(argv[1]!, numkeysError);
  if (numkeys <= 0) throw numkeysError();
  if (numkeys > argv.length - 2) {
    throw new CommandError('ERR_SYNTAX', "ERR Number of keys can't be greater than number of args");
  }
  let limit = 0;
  for (let i = 2 + numkeys; i < argv.length; i++) {
    if (eqi(argv[i]!, 'limit') && i + 1 < argv.length) {
      const limitError = () => new CommandError('ERR_SYNTAX', "ERR LIMIT can't be negative");
      limit = integerOr(argv[++i]!, limitError);
      if (limit < 0) throw limitError();
    } else throw syntaxError();
  }
  return readCollections<SetValue>(c, argv.slice(2, 2 + numkeys), SET, (sets) => {
    c.reply.integer(compute('inter', sets, limit).length);
    return undefined;
  });
}

function sscan(c: Client, argv: Buffer[]): CommandResult {
  const cursor = parseCursor(argv[2]!);
  return read(c, argv[1]!, (s) => {
    const w = c.reply;
    if (s === null) {
      w.array(2);
      w.bulk('0');
      w.array(0);
      return;
    }
    const opts = parseCollectionScan(argv, 3, null);
    const out: string[] = [];
    const next = s.scan(cursor, opts.count, (m) => {
      if (matches(opts.match, m)) out.push(m);
    });
    w.array(2);
    w.bulk(String(next));
    w.array(out.length);
    for (const m of out) w.bulkLatin1(m);
  });
}

// ---- the table -----------------------------------------------------------------

const SMALLEST_TIMES_SETS =
  'O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.';
const ALL_MEMBERS = 'O(N) where N is the total number of elements in all given sets.';

/** SINTER, SUNION, SDIFF: the members of the operation over every key. */
const setOpReadCommand = {
  arity: -2,
  flags: ['readonly'],
  ...ALL_KEYS,
  ...setGroup,
  keyFlags: ['RO', 'access'],
  tips: ['nondeterministic_output_order'],
  since: '1.0.0',
} as const;

/** SINTERSTORE, SUNIONSTORE, SDIFFSTORE: the same into the first key. */
const setOpStoreCommand = {
  arity: -3,
  flags: ['write', 'denyoom'],
  ...ALL_KEYS,
  ...setGroup,
  keyFlags: ['OW', 'update'],
  since: '1.0.0',
} as const;

export const setCommands: CommandDefinition[] = [
  {
    name: 'sadd',
    arity: -3,
    flags: ['write', 'denyoom', 'fast'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RW', 'insert'],
    since: '1.0.0',
    complexity:
      'O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.',
    summary: "Adds one or more members to a set. Creates the key if it doesn't exist.",
    handler: sadd,
    replay: whenNonZero,
  },
  {
    name: 'srem',
    arity: -3,
    flags: ['write', 'fast'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RW', 'delete'],
    since: '1.0.0',
    complexity: 'O(N) where N is the number of members to be removed.',
    summary:
      'Removes one or more members from a set. Deletes the set if the last member was removed.',
    handler: srem,
    replay: whenNonZero,
  },
  {
    name: 'scard',
    arity: 2,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RO'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Returns the number of members in a set.',
    handler: (c, a) => read(c, a[1]!, (s) => c.reply.integer(s?.size ?? 0)),
  },
  {
    name: 'sismember',
    arity: 3,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RO'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Determines whether a member belongs to a set.',
    handler: (c, a) => read(c, a[1]!, (s) => c.reply.integer(s?.has(latin1(a[2]!)) ? 1 : 0)),
  },
  {
    name: 'smismember',
    arity: -3,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RO'],
    since: '6.2.0',
    complexity: 'O(N) where N is the number of elements being checked for membership',
    summary: 'Determines whether multiple members belong to a set.',
    handler: (c, a) =>
      read(c, a[1]!, (s) => {
        c.reply.array(a.length - 2);
        for (let i = 2; i < a.length; i++) c.reply.integer(s?.has(latin1(a[i]!)) ? 1 : 0);
      }),
  },
  {
    name: 'smembers',
    arity: 2,
    flags: ['readonly'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RO'],
    tips: ['nondeterministic_output_order'],
    since: '1.0.0',
    complexity: 'O(N) where N is the set cardinality.',
    summary: 'Returns all members of a set.',
    handler: smembers,
  },
  {
    name: 'spop',
    arity: -2,
    flags: ['write', 'fast'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RW', 'access', 'delete'],
    tips: ['nondeterministic_output'],
    since: '1.0.0',
    complexity:
      'Without the count argument O(1), otherwise O(N) where N is the value of the passed count.',
    summary:
      'Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.',
    handler: spop,
    replay: spopReplay,
  },
  {
    name: 'srandmember',
    arity: -2,
    flags: ['readonly'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RO'],
    tips: ['nondeterministic_output'],
    since: '1.0.0',
    complexity:
      'Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.',
    summary: 'Get one or multiple random members from a set',
    handler: srandmember,
  },
  {
    name: 'smove',
    arity: 4,
    flags: ['write', 'fast'],
    ...SRC_DST,
    ...setGroup,
    keyFlags: ['RW', 'delete'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Moves a member from one set to another.',
    handler: smove,
  },
  {
    name: 'sinter',
    ...setOpReadCommand,
    complexity: SMALLEST_TIMES_SETS,
    summary: 'Returns the intersect of multiple sets.',
    handler: (c, a) => setOp(c, a, 'inter'),
  },
  {
    name: 'sintercard',
    arity: -3,
    flags: ['readonly'],
    ...NO_KEYS,
    ...setGroup,
    keyFlags: ['RO', 'access'],
    since: '7.0.0',
    complexity: SMALLEST_TIMES_SETS,
    summary: 'Returns the number of members of the intersect of multiple sets.',
    handler: sintercard,
  },
  {
    name: 'sinterstore',
    ...setOpStoreCommand,
    complexity: SMALLEST_TIMES_SETS,
    summary: 'Stores the intersect of multiple sets in a key.',
    handler: (c, a) => setOpStore(c, a, 'inter'),
  },
  {
    name: 'sunion',
    ...setOpReadCommand,
    complexity: ALL_MEMBERS,
    summary: 'Returns the union of multiple sets.',
    handler: (c, a) => setOp(c, a, 'union'),
  },
  {
    name: 'sunionstore',
    ...setOpStoreCommand,
    complexity: ALL_MEMBERS,
    summary: 'Stores the union of multiple sets in a key.',
    handler: (c, a) => setOpStore(c, a, 'union'),
  },
  {
    name: 'sdiff',
    ...setOpReadCommand,
    complexity: ALL_MEMBERS,
    summary: 'Returns the difference of multiple sets.',
    handler: (c, a) => setOp(c, a, 'diff'),
  },
  {
    name: 'sdiffstore',
    ...setOpStoreCommand,
    complexity: ALL_MEMBERS,
    summary: 'Stores the difference of multiple sets in a key.',
    handler: (c, a) => setOpStore(c, a, 'diff'),
  },
  {
    name: 'sscan',
    arity: -3,
    flags: ['readonly'],
    ...KEY1,
    ...setGroup,
    keyFlags: ['RO', 'access'],
    tips: ['nondeterministic_output'],
    since: '2.8.0',
    complexity:
      'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..',
    summary: 'Iterates over members of a set.',
    handler: sscan,
  },
];
