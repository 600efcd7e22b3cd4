import { HashValue, latin1 } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { INT64_MAX, INT64_MIN } from '@strata/io';
import type { ReplyWriter } from '@strata/protocol';
import { eqi, parseInteger } from '../../args.js';
import {
  CommandError,
  nanOrInfinityError,
  notFloatError,
  overflowError,
  syntaxError,
  wrongArityError,
} from '../../errors.js';
import { add, formatHuman, isFiniteLongDouble, parseLongDouble } from '../../long-double.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { keyMiss, NotifyClass, notify } from '../pubsub/keyspace-events.js';
import {
  afterChange,
  afterWriteNew,
  whenWritten,
  whenWrittenNotify,
  withCollection,
} from '../shared/collection-access.js';
import { removeMembers } from '../shared/collection-remove.js';
import { matches, parseCollectionScan } from '../shared/collection-scan-options.js';
import { hashGroup } from '../shared/command-groups.js';
import { KEY1 } from '../shared/key-positions.js';
import { parseRandomCount } from '../shared/random-count.js';
import { whenNonZero } from '../shared/replay-rules.js';
import { parseCursor } from '../shared/scan-options.js';
import { ensureRegistered } from './field-registry.js';
import { hincrbyfloatReplay } from './replay.js';

/**
 * Hash commands (Redis 7 semantics) on the cached HashValue of the key: a
 * one-field command is O(1) on the structure; the record is rewritten only
 * when the cache writes it back. Fields and values are latin1 strings
 * inside the structure, bytes on the wire.
 *
 * Keyspace events as Redis's t_hash.c: `new` when a write creates the key,
 * then the command's (`hset` for HSET, HMSET and HSETNX, `hincrby`,
 * `hincrbyfloat`; `hdel`, then `del` when the hash is emptied), each once
 * the change is made, whether the key was cached or read from the disk; a
 * read of a missing key is a `keymiss`. As in Redis, the writers but HDEL
 * reply before their event (after `new`).
 */

const HASH = RecordType.HASH;

const hashValueNotIntegerError = () =>
  new CommandError('ERR_NOT_INTEGER', 'ERR hash value is not an integer');
const hashValueNotFloatError = () =>
  new CommandError('ERR_NOT_FLOAT', 'ERR hash value is not a float');
const outOfRangeError = () => new CommandError('ERR_SYNTAX', 'ERR value is out of range');

/**
 * The key's hash, or a new one; after `change` (which throws before changing
 * anything, or returns the reply) it is written/marked and `event` published.
 */
function update(
  c: Client,
  key: Buffer,
  event: string,
  change: (h: HashValue) => () => void,
  field?: Buffer,
): CommandResult {
  return withCollection<HashValue>(c, key, HASH, (found) => {
    const h = found ?? HashValue.empty();
    // The field it reads, expired: gone first (Redis's HFE_LAZY_EXPIRE), `hexpired` published.
    if (field !== undefined && h.hasFieldTtls) {
      const f = latin1(field);
      if (h.isExpired(f, c.now())) {
        h.delete(f);
        notify(c, NotifyClass.hash, 'hexpired', key);
      }
    }
    const reply = change(h);
    const written = afterWriteNew(c, key, h, found === null);
    ensureRegistered(c, key, h);
    return whenWrittenNotify(c, written, reply, NotifyClass.hash, event, key);
  });
}

/**
 * A read of the fields argv[from, to) (HGET, HMGET, HEXISTS, HSTRLEN): a
 * field found expired is deleted first (Redis 8's lazy field expiry): one
 * `hexpired` event, `del` when the hash is left empty (then deleted), and
 * `f` reads what is left. Nothing is allocated for a hash without field
 * expiry times.
 */
function readFields(
  c: Client,
  argv: Buffer[],
  from: number,
  to: number,
  f: (h: HashValue | null) => void,
): CommandResult {
  const key = argv[1]!;
  return withCollection<HashValue>(c, key, HASH, (h) => {
    if (h === null) keyMiss(c, key);
    if (h === null || !h.hasFieldTtls) {
      f(h);
      return undefined;
    }
    const now = c.now();
    let gone = 0;
    for (let i = from; i < to; i++) {
      const field = latin1(argv[i]!);
      if (h.isExpired(field, now)) {
        h.delete(field);
        gone++;
      }
    }
    if (gone === 0) {
      f(h);
      ensureRegistered(c, key, h);
      return undefined;
    }
    const written = afterChange(c, key, h);
    notify(c, NotifyClass.hash, 'hexpired', key);
    const emptied = h.size === 0;
    if (emptied) notify(c, NotifyClass.generic, 'del', key);
    return whenWritten(written, () => f(emptied ? null : h));
  });
}

/** HKEYS, HVALS, HGETALL: every field, every value, or both (a map in RESP3). */
function replyAll(c: Client, h: HashValue | null, what: 'fields' | 'values' | 'both'): void {
  // Expired fields not deleted yet are skipped, not deleted (Redis 8's hashTypeNext).
  const now = c.now();
  const n = h?.liveSize(now) ?? 0;
  if (what === 'both') c.reply.map(n);
  else c.reply.array(n);
  if (n === 0) return;
  const skip = h!.hasFieldTtls;
  h!.forEach((f, v) => {
    if (skip && h!.isExpired(f, now)) return;
    if (what !== 'values') c.reply.bulkLatin1(f);
    if (what !== 'fields') c.reply.bulkLatin1(v);
  });
}

function bulkOrNull(w: ReplyWriter, s: string | undefined): void {
  if (s === undefined) w.null();
  else w.bulkLatin1(s);
}

/** Runs `f` on the key's hash (null when missing: a key miss), read only. */
function read(c: Client, key: Buffer, f: (h: HashValue | null) => void): CommandResult {
  return withCollection<HashValue>(c, key, HASH, (h) => {
    if (h === null) keyMiss(c, key);
    f(h);
    ensureRegistered(c, key, h);
    return undefined;
  });
}

function hset(c: Client, argv: Buffer[], name: 'hset' | 'hmset'): CommandResult {
  if (argv.length % 2 !== 0) throw wrongArityError(name);
  // HMSET publishes `hset` too.
  return update(c, argv[1]!, 'hset', (h) => {
    let added = 0;
    for (let i = 2; i < argv.length; i += 2) {
      if (h.set(latin1(argv[i]!), latin1(argv[i + 1]!))) added++;
    }
    return name === 'hset' ? () => c.reply.integer(added) : () => c.reply.simple('OK');
  });
}

function hsetnx(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return withCollection<HashValue>(c, key, HASH, (found) => {
    const f = latin1(argv[2]!);
    // Found expired: deleted first (Redis's lazy expiry), then set.
    const expired = found?.isExpired(f, c.now()) === true;
    if (expired) found!.delete(f);
    // The field is there: nothing changes, nothing is published.
    if (found?.has(f)) {
      c.reply.integer(0);
      return undefined;
    }
    const h = found ?? HashValue.empty();
    if (expired) notify(c, NotifyClass.hash, 'hexpired', key);
    h.set(f, latin1(argv[3]!));
    const written = afterWriteNew(c, key, h, found === null);
    return whenWrittenNotify(c, written, () => c.reply.integer(1), NotifyClass.hash, 'hset', key);
  });
}

function hdel(c: Client, argv: Buffer[]): CommandResult {
  return removeMembers<HashValue>(c, argv, HASH, (h, f) => h.delete(f), NotifyClass.hash, 'hdel');
}

/** Redis's string2ll acceptance, exactly (no sign but '-', no leading zeros, int64). */
function strictInt64(s: string): bigint | null {
  if (!/^(0|-?[1-9][0-9]{0,18})$/.test(s)) return null;
  const v = BigInt(s);
  return v >= INT64_MIN && v <= INT64_MAX ? v : null;
}

function hincrby(c: Client, argv: Buffer[]): CommandResult {
  const incrArg = parseInteger(argv[3]!); // checks the range first, as Redis
  const incr = strictInt64(latin1(argv[3]!)) ?? BigInt(incrArg);
  return update(
    c,
    argv[1]!,
    'hincrby',
    (h) => {
      const f = latin1(argv[2]!);
      const old = h.get(f);
      let v = 0n;
      if (old !== undefined) {
        const parsed = strictInt64(old);
        if (parsed === null) throw hashValueNotIntegerError();
        v = parsed;
      }
      const r = v + incr;
      if (r < INT64_MIN || r > INT64_MAX) throw overflowError();
      // The field keeps its expiry (HASH_SET_KEEP_TTL).
      h.set(f, r.toString(), true);
      return () => c.reply.integer(r);
    },
    argv[2],
  );
}

function hincrbyfloat(c: Client, argv: Buffer[]): CommandResult {
  const incr = parseLongDouble(argv[3]!.toString('latin1'));
  if (incr === null) throw notFloatError();
  if (!isFiniteLongDouble(incr))
    throw new CommandError('ERR_NAN_OR_INFINITY', 'ERR value is NaN or Infinity');
  return update(
    c,
    argv[1]!,
    'hincrbyfloat',
    (h) => {
      const f = latin1(argv[2]!);
      const old = h.get(f);
      let v = ZERO;
      if (old !== undefined) {
        const parsed = parseLongDouble(old);
        if (parsed === null) throw hashValueNotFloatError();
        v = parsed;
      }
      const r = add(v, incr);
      if (!isFiniteLongDouble(r)) throw nanOrInfinityError();
      const text = formatHuman(r);
      h.set(f, text, true);
      return () => c.reply.bulk(text);
    },
    argv[2],
  );
}

const ZERO = parseLongDouble('0')!;

/**
 * HRANDFIELD first deletes every expired field of the hash (Redis's
 * hashTypeExpireIfNeeded): `hexpired`, then `del` when that empties it.
 */
function readPurged(c: Client, key: Buffer, f: (h: HashValue | null) => void): CommandResult {
  return withCollection<HashValue>(c, key, HASH, (h) => {
    if (h === null) keyMiss(c, key);
    if (h === null || !h.hasFieldTtls) {
      f(h);
      return undefined;
    }
    const n = h.expireFields(c.now(), Number.POSITIVE_INFINITY, []);
    if (n === 0) {
      f(h);
      return undefined;
    }
    const written = afterChange(c, key, h);
    notify(c, NotifyClass.hash, 'hexpired', key);
    if (h.size === 0) notify(c, NotifyClass.generic, 'del', key);
    return whenWritten(written, () => f(h.size === 0 ? null : h));
  });
}

function hrandfield(c: Client, argv: Buffer[]): CommandResult {
  if (argv.length === 2) {
    return readPurged(c, argv[1]!, (h) => {
      if (h === null) c.reply.null();
      else c.reply.bulkLatin1(h.random(Math.random, PAIR)[0]);
    });
  }
  const l = parseRandomCount(argv[2]!);
  let withValues = false;
  if (argv.length > 4 || (argv.length === 4 && !eqi(argv[3]!, 'withvalues'))) throw syntaxError();
  if (argv.length === 4) {
    withValues = true;
    if (l < -Number.MAX_SAFE_INTEGER / 2 || l > Number.MAX_SAFE_INTEGER / 2)
      throw outOfRangeError();
  }
  return readPurged(c, argv[1]!, (h) => {
    const w = c.reply;
    if (h === null || l === 0) {
      w.array(0);
      return;
    }
    const resp3 = w.protocol === 3;
    const one = (f: string, v: string) => {
      if (withValues && resp3) w.array(2);
      w.bulkLatin1(f);
      if (withValues) w.bulkLatin1(v);
    };
    const header = (n: number) => w.array(withValues && !resp3 ? n * 2 : n);
    if (l < 0 || l === 1) {
      const n = Math.abs(l);
      header(n);
      for (let i = 0; i < n; i++) {
        const [f, v] = h.random(Math.random, PAIR);
        one(f, v);
      }
      return;
    }
    if (l >= h.size) {
      header(h.size);
      h.forEach(one);
      return;
    }
    // Distinct picks: random draws while few are wanted, else a partial shuffle.
    const picked = distinctFields(h, l);
    header(picked.length);
    for (const f of picked) one(f, h.get(f)!);
  });
}

const PAIR: [string, string] = ['', ''];

function distinctFields(h: HashValue, n: number): string[] {
  if (n * 3 <= h.size) {
    const seen = new Set<string>();
    while (seen.size < n) seen.add(h.random(Math.random, PAIR)[0]);
    return [...seen];
  }
  const all: string[] = [];
  h.forEach((f) => {
    all.push(f);
  });
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(Math.random() * (all.length - i));
    const t = all[i]!;
    all[i] = all[j]!;
    all[j] = t;
  }
  all.length = n;
  return all;
}

function hscan(c: Client, argv: Buffer[]): CommandResult {
  const cursor = parseCursor(argv[2]!);
  return read(c, argv[1]!, (h) => {
    const w = c.reply;
    if (h === null) {
      w.array(2);
      w.bulk('0');
      w.array(0);
      return;
    }
    const opts = parseCollectionScan(argv, 3, 'novalues');
    const out: string[] = [];
    const now = c.now();
    const next = h.scan(cursor, opts.count, (f, v) => {
      // An expired field not deleted yet is skipped (Redis 8's scanCallback).
      if (!matches(opts.match, f) || h.isExpired(f, now)) return;
      out.push(f);
      if (!opts.flag) out.push(v);
    });
    w.array(2);
    w.bulk(String(next));
    w.array(out.length);
    for (const s of out) w.bulkLatin1(s);
  });
}

// ---- the table -----------------------------------------------------------------

export const hashCommands: CommandDefinition[] = [
  {
    name: 'hset',
    arity: -4,
    flags: ['write', 'denyoom', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'update', 'insert'],
    since: '2.0.0',
    complexity:
      'O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.',
    summary: 'Creates or modifies the value of a field in a hash.',
    handler: (c, a) => hset(c, a, 'hset'),
  },
  {
    name: 'hmset',
    arity: -4,
    flags: ['write', 'denyoom', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'update', 'insert'],
    since: '2.0.0',
    complexity: 'O(N) where N is the number of fields being set.',
    summary: 'Sets the values of multiple fields.',
    handler: (c, a) => hset(c, a, 'hmset'),
  },
  {
    name: 'hsetnx',
    arity: 4,
    flags: ['write', 'denyoom', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'insert'],
    since: '2.0.0',
    complexity: 'O(1)',
    summary: "Sets the value of a field in a hash only when the field doesn't exist.",
    handler: hsetnx,
  },
  {
    name: 'hget',
    arity: 3,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    since: '2.0.0',
    complexity: 'O(1)',
    summary: 'Returns the value of a field in a hash.',
    handler: (c, a) => readFields(c, a, 2, 3, (h) => bulkOrNull(c.reply, h?.get(latin1(a[2]!)))),
  },
  {
    name: 'hmget',
    arity: -3,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    since: '2.0.0',
    complexity: 'O(N) where N is the number of fields being requested.',
    summary: 'Returns the values of all fields in a hash.',
    handler: (c, a) =>
      readFields(c, a, 2, a.length, (h) => {
        c.reply.array(a.length - 2);
        for (let i = 2; i < a.length; i++) bulkOrNull(c.reply, h?.get(latin1(a[i]!)));
      }),
  },
  {
    name: 'hdel',
    arity: -3,
    flags: ['write', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'delete'],
    since: '2.0.0',
    complexity: 'O(N) where N is the number of fields to be removed.',
    summary:
      'Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.',
    handler: hdel,
    replay: whenNonZero,
  },
  {
    name: 'hlen',
    arity: 2,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    since: '2.0.0',
    complexity: 'O(1)',
    summary: 'Returns the number of fields in a hash.',
    // Expired fields not deleted yet count, as Redis 8's HLEN (hashTypeLength(o, 0)) counts them.
    handler: (c, a) => read(c, a[1]!, (h) => c.reply.integer(h?.size ?? 0)),
  },
  {
    name: 'hstrlen',
    arity: 3,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    since: '3.2.0',
    complexity: 'O(1)',
    summary: 'Returns the length of the value of a field.',
    handler: (c, a) =>
      readFields(c, a, 2, 3, (h) => c.reply.integer(h?.get(latin1(a[2]!))?.length ?? 0)),
  },
  {
    name: 'hexists',
    arity: 3,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    since: '2.0.0',
    complexity: 'O(1)',
    summary: 'Determines whether a field exists in a hash.',
    handler: (c, a) =>
      readFields(c, a, 2, 3, (h) => c.reply.integer(h?.has(latin1(a[2]!)) ? 1 : 0)),
  },
  {
    name: 'hkeys',
    arity: 2,
    flags: ['readonly'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    tips: ['nondeterministic_output_order'],
    since: '2.0.0',
    complexity: 'O(N) where N is the size of the hash.',
    summary: 'Returns all fields in a hash.',
    handler: (c, a) => read(c, a[1]!, (h) => replyAll(c, h, 'fields')),
  },
  {
    name: 'hvals',
    arity: 2,
    flags: ['readonly'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    tips: ['nondeterministic_output_order'],
    since: '2.0.0',
    complexity: 'O(N) where N is the size of the hash.',
    summary: 'Returns all values in a hash.',
    handler: (c, a) => read(c, a[1]!, (h) => replyAll(c, h, 'values')),
  },
  {
    name: 'hgetall',
    arity: 2,
    flags: ['readonly'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    tips: ['nondeterministic_output_order'],
    since: '2.0.0',
    complexity: 'O(N) where N is the size of the hash.',
    summary: 'Returns all fields and values in a hash.',
    handler: (c, a) => read(c, a[1]!, (h) => replyAll(c, h, 'both')),
  },
  {
    name: 'hincrby',
    arity: 4,
    flags: ['write', 'denyoom', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'update'],
    since: '2.0.0',
    complexity: 'O(1)',
    summary:
      "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.",
    handler: hincrby,
  },
  {
    name: 'hincrbyfloat',
    arity: 4,
    flags: ['write', 'denyoom', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'update'],
    since: '2.6.0',
    complexity: 'O(1)',
    summary:
      "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.",
    handler: hincrbyfloat,
    replay: hincrbyfloatReplay,
  },
  {
    name: 'hrandfield',
    arity: -2,
    flags: ['readonly'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    tips: ['nondeterministic_output'],
    since: '6.2.0',
    complexity: 'O(N) where N is the number of fields returned',
    summary: 'Returns one or more random fields from a hash.',
    handler: hrandfield,
  },
  {
    name: 'hscan',
    arity: -3,
    flags: ['readonly'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RO', 'access'],
    tips: ['nondeterministic_output'],
    since: '2.8.0',
    complexity:
      'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
    summary: 'Iterates over fields and values of a hash.',
    handler: hscan,
  },
];
