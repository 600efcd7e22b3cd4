import { SortedSet, ZAddFlag } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { eqi } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { signalKey } from '../blocking/blocking-registry.js';
import { keyMiss, NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { afterChange, whenWritten, withCollection } from '../shared/collection-access.js';
import { removeMembers } from '../shared/collection-remove.js';
import { sortedSetGroup } from '../shared/command-groups.js';
import { indexWindow } from '../shared/index-range.js';
import { KEY1, SRC_DST } from '../shared/key-positions.js';
import { parseRandomCount } from '../shared/random-count.js';
import { whenNonZero } from '../shared/replay-rules.js';
import { zsetAlgebraCommands } from './zsets-algebra.js';
import {
  lexRanks,
  member,
  parseLexRange,
  parseLong,
  parsePositive,
  parseScore,
  parseScoreRange,
  scoreRanks,
  syntax,
} from './zsets-args.js';
import { storeEvents } from './zsets-notify.js';
import { replyPairs } from './zsets-reply.js';
import { zscanCommand } from './zsets-scan.js';

const ZSET = RecordType.ZSET;

/** The sorted set at `key` (null when missing), WRONGTYPE for another type. */
export function withZset(
  c: Client,
  key: Buffer,
  fn: (z: SortedSet | null) => CommandResult,
): CommandResult {
  return withCollection<SortedSet>(c, key, ZSET, fn);
}

// ---- ZADD / ZINCRBY ---------------------------------------------------------------

const nanError = () =>
  new CommandError('ERR_NAN_OR_INFINITY', 'ERR resulting score is not a number (NaN)');

function zadd(c: Client, argv: Buffer[], incrbyOnly: boolean): CommandResult {
  let flags = 0;
  let ch = false;
  let incr = incrbyOnly;
  let i = 2;
  if (!incrbyOnly) {
    for (; i < argv.length; i++) {
      const a = argv[i]!;
      if (eqi(a, 'nx')) flags |= ZAddFlag.NX;
      else if (eqi(a, 'xx')) flags |= ZAddFlag.XX;
      else if (eqi(a, 'ch')) ch = true;
      else if (eqi(a, 'incr')) incr = true;
      else if (eqi(a, 'gt')) flags |= ZAddFlag.GT;
      else if (eqi(a, 'lt')) flags |= ZAddFlag.LT;
      else break;
    }
  }
  const elements = argv.length - i;
  if (elements % 2 !== 0 || elements === 0) throw syntaxError();
  const nx = (flags & ZAddFlag.NX) !== 0;
  const gt = (flags & ZAddFlag.GT) !== 0;
  const lt = (flags & ZAddFlag.LT) !== 0;
  if (nx && (flags & ZAddFlag.XX) !== 0) {
    throw syntax('XX and NX options at the same time are not compatible');
  }
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    throw syntax('GT, LT, and/or NX options at the same time are not compatible');
  }
  if (incr && elements > 2) throw syntax('INCR option supports a single increment-element pair');
  // Every score is checked before anything changes: all or nothing.
  const n = elements / 2;
  const scores = new Array<number>(n);
  for (let j = 0; j < n; j++) scores[j] = parseScore(argv[i + j * 2]!);
  const key = argv[1]!;
  return withZset(c, key, (found) => {
    let z = found;
    let created = false;
    if (z === null) {
      if ((flags & ZAddFlag.XX) !== 0) {
        if (incr) c.reply.null();
        else c.reply.integer(0);
        return undefined;
      }
      z = new SortedSet();
      created = true;
    }
    let added = 0;
    let updated = 0;
    let processed = 0;
    let score = 0;
    for (let j = 0; j < n; j++) {
      const m = member(argv[i + 1 + j * 2]!);
      let s = scores[j]!;
      if (incr) {
        const old = z.score(m);
        if (old !== undefined) {
          s = old + s;
          if (Number.isNaN(s)) throw nanError();
        }
      }
      const outcome = z.add(m, s, flags);
      if (outcome === 'added') added++;
      else if (outcome === 'updated') updated++;
      if (outcome !== 'skipped') processed++;
      score = s;
    }
    const reply = () => {
      if (incr) {
        if (processed > 0) c.reply.double(score);
        else c.reply.null();
      } else c.reply.integer(ch ? added + updated : added);
    };
    if (created) {
      if (z.size === 0) {
        reply();
        return undefined;
      }
      const w = c.collections.create(key, z);
      notify(c, NotifyClass.new, 'new', key);
      notify(c, NotifyClass.zset, incr ? 'zincr' : 'zadd', key);
      signalKey(c, key, argv);
      return whenWritten(w, reply);
    }
    if (added + updated > 0) {
      c.collections.changed(key, z);
      notify(c, NotifyClass.zset, incr ? 'zincr' : 'zadd', key);
      if (added > 0) signalKey(c, key, argv);
    }
    reply();
    return undefined;
  });
}

// ---- reads ----------------------------------------------------------------------

function zscore(c: Client, argv: Buffer[]): CommandResult {
  return withZset(c, argv[1]!, (z) => {
    if (z === null) keyMiss(c, argv[1]!);
    const s = z?.score(member(argv[2]!));
    if (s === undefined) c.reply.null();
    else c.reply.double(s);
    return undefined;
  });
}

function zmscore(c: Client, argv: Buffer[]): CommandResult {
  return withZset(c, argv[1]!, (z) => {
    if (z === null) keyMiss(c, argv[1]!);
    c.reply.array(argv.length - 2);
    for (let i = 2; i < argv.length; i++) {
      const s = z?.score(member(argv[i]!));
      if (s === undefined) c.reply.null();
      else c.reply.double(s);
    }
    return undefined;
  });
}

function zrank(c: Client, argv: Buffer[], reverse: boolean): CommandResult {
  return withZset(c, argv[1]!, (z) => {
    if (z === null) keyMiss(c, argv[1]!);
    const r = z === null ? -1 : z.rank(member(argv[2]!), reverse);
    if (r < 0) c.reply.null();
    else c.reply.integer(r);
    return undefined;
  });
}

function zcount(c: Client, argv: Buffer[], lex: boolean): CommandResult {
  const range = lex ? parseLexRange(argv[2]!, argv[3]!) : parseScoreRange(argv[2]!, argv[3]!);
  return withZset(c, argv[1]!, (z) => {
    if (z === null) {
      keyMiss(c, argv[1]!);
      c.reply.integer(0);
      return undefined;
    }
    const [start, end] = lex
      ? lexRanks(z, range as ReturnType<typeof parseLexRange>)
      : scoreRanks(z, range as ReturnType<typeof parseScoreRange>);
    c.reply.integer(Math.max(0, end - start));
    return undefined;
  });
}

// ---- ZRANGE and its family --------------------------------------------------------

type RangeKind = 'rank' | 'score' | 'lex';

interface RangeCall {
  /** ZRANGESTORE: the destination (argv[1]); the source follows. */
  readonly store: boolean;
  /** The legacy commands fix the kind and direction; ZRANGE reads them from options. */
  readonly kind: RangeKind | null;
  readonly reverse: boolean | null;
}

/**
 * Redis's zrangeGenericCommand: options, their conflicts, the range (for
 * REV with BYSCORE/BYLEX given max first), then the key.
 */
function zrangeGeneric(c: Client, argv: Buffer[], call: RangeCall): CommandResult {
  const first = call.store ? 2 : 1;
  let withScores = false;
  let offset = 0;
  let limit = -1;
  let kind = call.kind;
  let reverse = call.reverse;
  for (let j = first + 3; j < argv.length; j++) {
    const a = argv[j]!;
    const left = argv.length - j - 1;
    if (!call.store && eqi(a, 'withscores')) withScores = true;
    else if (eqi(a, 'limit') && left >= 2) {
      offset = parseLong(argv[j + 1]!);
      limit = parseLong(argv[j + 2]!);
      j += 2;
    } else if (reverse === null && eqi(a, 'rev')) reverse = true;
    else if (kind === null && eqi(a, 'bylex')) kind = 'lex';
    else if (kind === null && eqi(a, 'byscore')) kind = 'score';
    else throw syntaxError();
  }
  reverse ??= false;
  kind ??= 'rank';
  if (limit !== -1 && kind === 'rank') {
    throw syntax(
      'syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX',
    );
  }
  if (withScores && kind === 'lex') {
    throw syntax('syntax error, WITHSCORES not supported in combination with BYLEX');
  }
  let minArg = argv[first + 1]!;
  let maxArg = argv[first + 2]!;
  if (reverse && kind !== 'rank') [minArg, maxArg] = [maxArg, minArg];
  let pick: (z: SortedSet) => [from: number, count: number];
  if (kind === 'rank') {
    const start = parseLong(minArg);
    const end = parseLong(maxArg);
    pick = (z) => rankWindow(z.size, start, end);
  } else {
    const range = kind === 'score' ? parseScoreRange(minArg, maxArg) : null;
    const lex = kind === 'lex' ? parseLexRange(minArg, maxArg) : null;
    const rev = reverse;
    pick = (z) => {
      const [a, b] = range !== null ? scoreRanks(z, range) : lexRanks(z, lex!);
      return limitWindow(z.size, a, b, offset, limit, rev);
    };
  }
  const rev = reverse;
  const src = argv[first]!;
  return withZset(c, src, (z) => {
    // Redis's ZRANGE and ZRANGESTORE both read the source with lookupKeyRead.
    if (z === null) keyMiss(c, src);
    const [from, count] = z === null ? [0, 0] : pick(z);
    // A rank window walks from its first rank; reverse ranks count from the end.
    const at = z !== null && kind === 'rank' && rev ? z.size - 1 - from : from;
    if (call.store) return storeRange(c, argv, z, at, count, rev);
    if (z === null) {
      c.reply.array(0);
      return undefined;
    }
    replyPairs(c, z, at, count, rev, withScores);
    return undefined;
  });
}

/** ZRANGE start stop by rank: [from, count), from counted in the walk's direction. */
function rankWindow(size: number, start: number, end: number): [number, number] {
  const w = indexWindow(size, start, end);
  return w === null ? [0, 0] : [w[0], w[1] - w[0] + 1];
}

/**
 * Ranks [a, b) of a score or lex range, after LIMIT: the first rank to
 * walk from (the highest for REV) and how many. A negative offset returns
 * nothing and a negative count means all, as Redis's loops do.
 */
function limitWindow(
  size: number,
  a: number,
  b: number,
  offset: number,
  limit: number,
  reverse: boolean,
): [number, number] {
  if (b <= a || offset < 0 || (offset > 0 && offset >= size)) return [0, 0];
  const available = b - a - offset;
  if (available <= 0) return [0, 0];
  const count = limit < 0 ? available : Math.min(limit, available);
  return [reverse ? b - 1 - offset : a + offset, count];
}

/** ZRANGESTORE: the picked pairs become the destination (deleted when none). */
function storeRange(
  c: Client,
  argv: Buffer[],
  z: SortedSet | null,
  from: number,
  count: number,
  reverse: boolean,
): CommandResult {
  const dst = argv[1]!;
  if (z === null || count === 0) {
    return storeEvents(c, dst, null, 'zrangestore', (w) =>
      whenWritten(w, () => c.reply.integer(0)),
    );
  }
  const scores = new Array<number>(count);
  const members = new Array<string>(count);
  const cur = z.at(from);
  for (let i = 0; i < count; i++) {
    // Reverse walks fill from the back: the new set is built in order.
    const j = reverse ? count - 1 - i : i;
    scores[j] = cur.score;
    members[j] = cur.member;
    if (reverse) cur.prev();
    else cur.next();
  }
  const stored = SortedSet.fromSorted(scores, members);
  return storeEvents(c, dst, stored, 'zrangestore', (w) => {
    signalKey(c, dst, argv);
    return whenWritten(w, () => c.reply.integer(count));
  });
}

// ---- removals ---------------------------------------------------------------------

function zrem(c: Client, argv: Buffer[]): CommandResult {
  return removeMembers<SortedSet>(c, argv, ZSET, (z, m) => z.remove(m), NotifyClass.zset, 'zrem');
}

/** Members were removed from the set at `key`: `event`, then `del` if it is empty now. */
function notifyRemoved(c: Client, key: Buffer, z: SortedSet, event: string): void {
  notify(c, NotifyClass.zset, event, key);
  if (z.size === 0) notify(c, NotifyClass.generic, 'del', key);
}

/** ZPOPMIN/ZPOPMAX (and the blocking forms) popped from the set at `key`. */
export function notifyZpopped(c: Client, key: Buffer, z: SortedSet, max: boolean): void {
  notifyRemoved(c, key, z, max ? 'zpopmax' : 'zpopmin');
}

function zremrange(c: Client, argv: Buffer[], kind: RangeKind): CommandResult {
  let pick: (z: SortedSet) => [number, number];
  if (kind === 'rank') {
    const start = parseLong(argv[2]!);
    const end = parseLong(argv[3]!);
    pick = (z) => rankWindow(z.size, start, end);
  } else if (kind === 'score') {
    const range = parseScoreRange(argv[2]!, argv[3]!);
    pick = (z) => {
      const [a, b] = scoreRanks(z, range);
      return [a, Math.max(0, b - a)];
    };
  } else {
    const range = parseLexRange(argv[2]!, argv[3]!);
    pick = (z) => {
      const [a, b] = lexRanks(z, range);
      return [a, Math.max(0, b - a)];
    };
  }
  const key = argv[1]!;
  return withZset(c, key, (z) => {
    if (z === null) {
      c.reply.integer(0);
      return undefined;
    }
    const [from, count] = pick(z);
    if (count === 0) {
      c.reply.integer(0);
      return undefined;
    }
    removeRanks(z, from, count);
    const written = afterChange(c, key, z);
    notifyRemoved(c, key, z, REMRANGE_EVENT[kind]);
    return whenWritten(written, () => c.reply.integer(count));
  });
}

const REMRANGE_EVENT: Record<RangeKind, string> = {
  rank: 'zremrangebyrank',
  score: 'zremrangebyscore',
  lex: 'zremrangebylex',
};

/** Removes `count` pairs from rank `from` on (members gathered first: the walk must not see removals). */
function removeRanks(z: SortedSet, from: number, count: number): void {
  const victims = new Array<string>(count);
  const cur = z.at(from);
  for (let i = 0; i < count; i++, cur.next()) victims[i] = cur.member;
  for (const m of victims) z.remove(m);
}

// ---- ZPOPMIN / ZPOPMAX -------------------------------------------------------------

/**
 * Pops up to `count` pairs from the low (min) or high end and writes them
 * (flat pairs, or [member, score] arrays with `nested`); returns how many.
 * The caller writes the array header first.
 */
export function popPairs(c: Client, z: SortedSet, count: number, max: boolean, nested: boolean) {
  const n = Math.min(count, z.size);
  for (let i = 0; i < n; i++) {
    const cur = z.at(max ? z.size - 1 : 0);
    const m = cur.member;
    const s = cur.score;
    z.remove(m);
    if (nested) c.reply.array(2);
    c.reply.bulkLatin1(m);
    c.reply.double(s);
  }
  return n;
}

function zpop(c: Client, argv: Buffer[], max: boolean): CommandResult {
  if (argv.length > 3) throw syntaxError();
  const hasCount = argv.length === 3;
  const count = hasCount ? parsePositive(argv[2]!) : 1;
  const key = argv[1]!;
  return withZset(c, key, (z) => {
    if (count === 0 || z === null) {
      c.reply.array(0);
      return undefined;
    }
    const nested = c.protocol === 3 && hasCount;
    const n = Math.min(count, z.size);
    c.reply.array(nested ? n : n * 2);
    popPairs(c, z, n, max, nested);
    const written = afterChange(c, key, z);
    notifyZpopped(c, key, z, max);
    return written;
  });
}

// ---- ZRANDMEMBER ---------------------------------------------------------------------

function zrandmember(c: Client, argv: Buffer[]): CommandResult {
  if (argv.length > 4 || (argv.length === 4 && !eqi(argv[3]!, 'withscores'))) {
    throw syntaxError();
  }
  const withScores = argv.length === 4;
  const hasCount = argv.length >= 3;
  let count = 0;
  if (hasCount) {
    count = parseRandomCount(argv[2]!);
    // Redis refuses counts whose reply length would overflow.
    if (withScores && (count < -(2 ** 62) || count > 2 ** 62)) {
      throw new CommandError('ERR_OUT_OF_RANGE', 'ERR value is out of range');
    }
  }
  return withZset(c, argv[1]!, (z) => {
    if (z === null) keyMiss(c, argv[1]!);
    if (!hasCount) {
      if (z === null) c.reply.null();
      else c.reply.bulkLatin1(z.at(Math.floor(Math.random() * z.size)).member);
      return undefined;
    }
    if (z === null || count === 0) {
      c.reply.array(0);
      return undefined;
    }
    const r3 = c.protocol === 3 && withScores;
    const emit = (rank: number) => {
      const cur = z.at(rank);
      if (r3) c.reply.array(2);
      c.reply.bulkLatin1(cur.member);
      if (withScores) c.reply.double(cur.score);
    };
    if (count < 0) {
      // Repetitions allowed: |count| independent draws.
      const n = -count;
      c.reply.array(withScores && !r3 ? n * 2 : n);
      for (let i = 0; i < n; i++) emit(Math.floor(Math.random() * z.size));
      return undefined;
    }
    const n = Math.min(count, z.size);
    c.reply.array(withScores && !r3 ? n * 2 : n);
    if (n === z.size) {
      for (let i = 0; i < n; i++) emit(i);
      return undefined;
    }
    // Distinct ranks: a partial Fisher-Yates over a sparse map of swapped ranks.
    const swapped = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(Math.random() * (z.size - i));
      const pick = swapped.get(j) ?? j;
      swapped.set(j, swapped.get(i) ?? i);
      emit(pick);
    }
    return undefined;
  });
}

// ---- the table ------------------------------------------------------------------------

const W = ['write', 'denyoom', 'fast'] as const;
const RF = ['readonly', 'fast'] as const;
const R = ['readonly'] as const;

export const zsetCommands: CommandDefinition[] = [
  {
    name: 'zadd',
    arity: -4,
    flags: W,
    ...KEY1,
    ...sortedSetGroup,
    since: '1.2.0',
    complexity: 'O(log(N))',
    summary: 'Adds members to a sorted set, or updates their scores.',
    handler: (c, a) => zadd(c, a, false),
  },
  {
    name: 'zincrby',
    arity: 4,
    flags: W,
    ...KEY1,
    ...sortedSetGroup,
    since: '1.2.0',
    complexity: 'O(log(N))',
    summary: 'Increments the score of a member in a sorted set.',
    handler: (c, a) => zadd(c, [a[0]!, a[1]!, a[2]!, a[3]!], true),
  },
  {
    name: 'zrem',
    arity: -3,
    flags: ['write', 'fast'],
    ...KEY1,
    ...sortedSetGroup,
    since: '1.2.0',
    complexity: 'O(log(N))',
    summary: 'Removes members from a sorted set.',
    handler: zrem,
    replay: whenNonZero,
  },
  {
    name: 'zcard',
    arity: 2,
    flags: RF,
    ...KEY1,
    ...sortedSetGroup,
    since: '1.2.0',
    complexity: 'O(log(N))',
    summary: 'Returns the number of members in a sorted set.',
    handler: (c, a) =>
      withZset(c, a[1]!, (z) => {
        if (z === null) keyMiss(c, a[1]!);
        c.reply.integer(z?.size ?? 0);
        return undefined;
      }),
  },
  {
    name: 'zscore',
    arity: 3,
    flags: RF,
    ...KEY1,
    ...sortedSetGroup,
    since: '1.2.0',
    complexity: 'O(log(N))',
    summary: 'Returns the score of a member in a sorted set.',
    handler: zscore,
  },
  {
    name: 'zmscore',
    arity: -3,
    flags: RF,
    ...KEY1,
    ...sortedSetGroup,
    since: '6.2.0',
    complexity: 'O(log(N))',
    summary: 'Returns the score of one or more members.',
    handler: zmscore,
  },
  {
    name: 'zrank',
    arity: 3,
    flags: RF,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.0.0',
    complexity: 'O(log(N))',
    summary: 'Returns the index of a member ordered by ascending scores.',
    handler: (c, a) => zrank(c, a, false),
  },
  {
    name: 'zrevrank',
    arity: 3,
    flags: RF,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.0.0',
    complexity: 'O(log(N))',
    summary: 'Returns the index of a member ordered by descending scores.',
    handler: (c, a) => zrank(c, a, true),
  },
  {
    name: 'zcount',
    arity: 4,
    flags: RF,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.0.0',
    complexity: 'O(log(N))',
    summary: 'Returns the count of members with scores in a range.',
    handler: (c, a) => zcount(c, a, false),
  },
  {
    name: 'zlexcount',
    arity: 4,
    flags: RF,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.8.9',
    complexity: 'O(log(N))',
    summary: 'Returns the number of members in a lexicographical range.',
    handler: (c, a) => zcount(c, a, true),
  },
  {
    name: 'zrange',
    arity: -4,
    flags: R,
    ...KEY1,
    ...sortedSetGroup,
    since: '1.2.0',
    complexity: 'O(log(N)+M)',
    summary: 'Returns members in a sorted set within a range of indexes.',
    handler: (c, a) => zrangeGeneric(c, a, { store: false, kind: null, reverse: null }),
  },
  {
    name: 'zrangestore',
    arity: -5,
    flags: ['write', 'denyoom'],
    ...SRC_DST,
    ...sortedSetGroup,
    since: '6.2.0',
    complexity: 'O(log(N)+M)',
    summary: 'Stores a range of members in a key.',
    handler: (c, a) => zrangeGeneric(c, a, { store: true, kind: null, reverse: null }),
  },
  {
    name: 'zrevrange',
    arity: -4,
    flags: R,
    ...KEY1,
    ...sortedSetGroup,
    since: '1.2.0',
    complexity: 'O(log(N)+M)',
    summary: 'Returns members within a range of indexes in reverse order.',
    handler: (c, a) => zrangeGeneric(c, a, { store: false, kind: 'rank', reverse: true }),
  },
  {
    name: 'zrangebyscore',
    arity: -4,
    flags: R,
    ...KEY1,
    ...sortedSetGroup,
    since: '1.0.5',
    complexity: 'O(log(N)+M)',
    summary: 'Returns members within a range of scores.',
    handler: (c, a) => zrangeGeneric(c, a, { store: false, kind: 'score', reverse: false }),
  },
  {
    name: 'zrevrangebyscore',
    arity: -4,
    flags: R,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.2.0',
    complexity: 'O(log(N)+M)',
    summary: 'Returns members within a range of scores in reverse order.',
    handler: (c, a) => zrangeGeneric(c, a, { store: false, kind: 'score', reverse: true }),
  },
  {
    name: 'zrangebylex',
    arity: -4,
    flags: R,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.8.9',
    complexity: 'O(log(N)+M)',
    summary: 'Returns members within a lexicographical range.',
    handler: (c, a) => zrangeGeneric(c, a, { store: false, kind: 'lex', reverse: false }),
  },
  {
    name: 'zrevrangebylex',
    arity: -4,
    flags: R,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.8.9',
    complexity: 'O(log(N)+M)',
    summary: 'Returns members within a lexicographical range in reverse order.',
    handler: (c, a) => zrangeGeneric(c, a, { store: false, kind: 'lex', reverse: true }),
  },
  {
    name: 'zremrangebyrank',
    arity: 4,
    flags: ['write'],
    ...KEY1,
    ...sortedSetGroup,
    since: '2.0.0',
    complexity: 'O(log(N)+M)',
    summary: 'Removes members within a range of indexes.',
    handler: (c, a) => zremrange(c, a, 'rank'),
  },
  {
    name: 'zremrangebyscore',
    arity: 4,
    flags: ['write'],
    ...KEY1,
    ...sortedSetGroup,
    since: '1.2.0',
    complexity: 'O(log(N)+M)',
    summary: 'Removes members within a range of scores.',
    handler: (c, a) => zremrange(c, a, 'score'),
  },
  {
    name: 'zremrangebylex',
    arity: 4,
    flags: ['write'],
    ...KEY1,
    ...sortedSetGroup,
    since: '2.8.9',
    complexity: 'O(log(N)+M)',
    summary: 'Removes members within a lexicographical range.',
    handler: (c, a) => zremrange(c, a, 'lex'),
  },
  {
    name: 'zpopmin',
    arity: -2,
    flags: ['write', 'fast'],
    ...KEY1,
    ...sortedSetGroup,
    since: '5.0.0',
    complexity: 'O(log(N))',
    summary: 'Removes and returns the members with the lowest scores.',
    handler: (c, a) => zpop(c, a, false),
  },
  {
    name: 'zpopmax',
    arity: -2,
    flags: ['write', 'fast'],
    ...KEY1,
    ...sortedSetGroup,
    since: '5.0.0',
    complexity: 'O(log(N))',
    summary: 'Removes and returns the members with the highest scores.',
    handler: (c, a) => zpop(c, a, true),
  },
  {
    name: 'zrandmember',
    arity: -2,
    flags: R,
    ...KEY1,
    ...sortedSetGroup,
    since: '6.2.0',
    complexity: 'O(N)',
    summary: 'Returns one or more random members from a sorted set.',
    handler: zrandmember,
  },
  ...zsetAlgebraCommands,
  zscanCommand,
];
