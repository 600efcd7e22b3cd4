import { type CollectionLookup, type SetValue, SortedSet } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { eqi, parseInteger } from '../../args.js';
import { CommandError, syntaxError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { signalKey } from '../blocking/blocking-registry.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import { whenWritten, withOpenDb } from '../shared/collection-access.js';
import { sortedSetGroup } from '../shared/command-groups.js';
import { KEY1, NO_KEYS } from '../shared/key-positions.js';
import { parseDouble, parsePositive } from './zsets-args.js';
import { storeEvents } from './zsets-notify.js';

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, after Redis's
 * zunionInterDiffGenericCommand: the inputs (sorted sets, or sets whose
 * members score 1) are looked up and type-checked before the options are
 * read, so WRONGTYPE wins over a syntax error; inputs are taken smallest
 * first, as Redis does, so sums add up in the same order.
 */

type Op = 'union' | 'inter' | 'diff';
type Aggregate = 'sum' | 'min' | 'max';
type Source = SortedSet | SetValue | null;

interface AlgebraCall {
  readonly op: Op;
  /** The destination key's position (STORE forms), else 0. */
  readonly dst: number;
  readonly cardinalityOnly?: boolean;
}

/** A key holding neither a sorted set nor a set. */
const WRONG = Symbol('wrong type');
type Looked = Source | typeof WRONG;

/** A sorted set or a set at `key` (null when missing), WRONG for anything else. */
function lookupSource(c: Client, key: Buffer): Looked | Promise<Looked> {
  const r = c.collections.get<SortedSet>(key, RecordType.ZSET);
  const settle = (z: CollectionLookup<SortedSet>): Looked | Promise<Looked> => {
    if (z.status === 'found') return z.value;
    if (z.status === 'missing') return null;
    if (z.type !== RecordType.SET) return WRONG;
    const s = c.collections.get<SetValue>(key, RecordType.SET);
    const asSet = (x: CollectionLookup<SetValue>): Looked => {
      if (x.status === 'found') return x.value;
      if (x.status === 'missing') return null;
      return WRONG;
    };
    return s instanceof Promise ? s.then(asSet) : asSet(s);
  };
  return r instanceof Promise ? r.then(settle) : settle(r);
}

/**
 * The inputs in order, as Redis's loop reads them (lookupKeyRead): a
 * `keymiss` for each missing one, WRONGTYPE at the first of another type
 * (the ones after it are not looked at).
 */
function checkSources(c: Client, keys: readonly Buffer[], found: readonly Looked[]): Source[] {
  for (let i = 0; i < found.length; i++) {
    const f = found[i];
    if (f === WRONG) throw wrongTypeError();
    if (f === null) keyMiss(c, keys[i]!);
  }
  return found as Source[];
}

function forEachScored(src: SortedSet | SetValue, fn: (member: string, score: number) => void) {
  if (src instanceof SortedSet) {
    src.forEach((s, m) => {
      fn(m, s);
    });
  } else {
    src.forEach((m) => {
      fn(m, 1);
    });
  }
}

function scoreOf(src: SortedSet | SetValue, member: string): number | undefined {
  if (src instanceof SortedSet) return src.score(member);
  return src.has(member) ? 1 : undefined;
}

function aggregateInto(a: number, b: number, how: Aggregate): number {
  if (how === 'sum') {
    const s = a + b;
    return Number.isNaN(s) ? 0 : s; // inf + -inf: Redis makes it 0
  }
  return how === 'min' ? Math.min(a, b) : Math.max(a, b);
}

function weighted(score: number, weight: number): number {
  const v = score * weight;
  return Number.isNaN(v) ? 0 : v;
}

function algebra(c: Client, argv: Buffer[], call: AlgebraCall): CommandResult {
  const numkeysAt = call.dst === 0 ? 1 : 2;
  const setnum = parseInteger(argv[numkeysAt]!);
  if (setnum < 1) {
    throw new CommandError(
      'ERR_OUT_OF_RANGE',
      `ERR at least 1 input key is needed for '${argv[0]!.toString('latin1').toLowerCase()}' command`,
    );
  }
  if (setnum > argv.length - (numkeysAt + 1)) throw syntaxError();
  const keys = argv.slice(numkeysAt + 1, numkeysAt + 1 + setnum);
  const run = (found: Looked[]) =>
    finish(c, argv, call, numkeysAt + 1 + setnum, checkSources(c, keys, found));
  return withOpenDb(c, () => {
    const found: (Looked | Promise<Looked>)[] = [];
    let pending = false;
    for (const k of keys) {
      const f = lookupSource(c, k);
      found.push(f);
      if (f instanceof Promise) pending = true;
      else if (f === WRONG) break;
    }
    if (pending) return Promise.all(found).then(run);
    return run(found as Looked[]);
  });
}

interface AlgebraOptions {
  readonly weights: number[];
  readonly aggregate: Aggregate;
  readonly withScores: boolean;
  /** ZINTERCARD's LIMIT; 0: none. */
  readonly limit: number;
}

/** The options after the keys; which ones a form takes follows Redis's parser (later ones win). */
function parseOptions(argv: Buffer[], call: AlgebraCall, from: number, n: number): AlgebraOptions {
  const weights = new Array<number>(n).fill(1);
  let aggregate: Aggregate = 'sum';
  let withScores = false;
  let limit = 0;
  const store = call.dst !== 0;
  const card = call.cardinalityOnly === true;
  const weighs = call.op !== 'diff' && !card;
  for (let j = from; j < argv.length; ) {
    const remaining = argv.length - j;
    const a = argv[j]!;
    if (weighs && remaining >= n + 1 && eqi(a, 'weights')) {
      j++;
      for (let i = 0; i < n; i++, j++) {
        const w = parseDouble(argv[j]!);
        if (Number.isNaN(w)) {
          throw new CommandError('ERR_NOT_FLOAT', 'ERR weight value is not a float');
        }
        weights[i] = w;
      }
    } else if (weighs && remaining >= 2 && eqi(a, 'aggregate')) {
      const how = argv[j + 1]!;
      if (eqi(how, 'sum')) aggregate = 'sum';
      else if (eqi(how, 'min')) aggregate = 'min';
      else if (eqi(how, 'max')) aggregate = 'max';
      else throw syntaxError();
      j += 2;
    } else if (!store && !card && eqi(a, 'withscores')) {
      withScores = true;
      j++;
    } else if (card && remaining >= 2 && eqi(a, 'limit')) {
      limit = parsePositive(argv[j + 1]!, "LIMIT can't be negative");
      j += 2;
    } else throw syntaxError();
  }
  return { weights, aggregate, withScores, limit };
}

function finish(
  c: Client,
  argv: Buffer[],
  call: AlgebraCall,
  optionsAt: number,
  sources: Source[],
): CommandResult {
  const opts = parseOptions(argv, call, optionsAt, sources.length);
  const result = COMBINE[call.op](sources, opts);
  if (call.cardinalityOnly === true) {
    c.reply.integer(result.size);
    return undefined;
  }
  const entries = [...result];
  entries.sort((x, y) =>
    x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0,
  );
  if (call.dst !== 0) return store(c, argv, argv[call.dst]!, entries, STORE_EVENT[call.op]);
  const withScores = opts.withScores;
  const nested = withScores && c.protocol === 3;
  c.reply.array(withScores && !nested ? entries.length * 2 : entries.length);
  for (const [m, s] of entries) {
    if (nested) c.reply.array(2);
    c.reply.bulkLatin1(m);
    if (withScores) c.reply.double(s);
  }
  return undefined;
}

const STORE_EVENT: Record<Op, string> = {
  union: 'zunionstore',
  inter: 'zinterstore',
  diff: 'zdiffstore',
};

/** The STORE forms: the sorted entries become `dst` (deleted when there are none). */
function store(
  c: Client,
  argv: Buffer[],
  dst: Buffer,
  entries: readonly [string, number][],
  event: string,
): CommandResult {
  if (entries.length === 0) {
    return storeEvents(c, dst, null, event, (w) => whenWritten(w, () => c.reply.integer(0)));
  }
  const z = SortedSet.fromSorted(
    entries.map((e) => e[1]),
    entries.map((e) => e[0]),
  );
  return storeEvents(c, dst, z, event, (w) => {
    signalKey(c, dst, argv);
    return whenWritten(w, () => c.reply.integer(entries.length));
  });
}

type Scores = Map<string, number>;

/** Each operation's members and scores, Redis's loops in Redis's order. */
const COMBINE: Record<Op, (sources: readonly Source[], o: AlgebraOptions) => Scores> = {
  union(sources, o) {
    const result: Scores = new Map();
    for (const i of byCardinality(sources)) {
      const src = sources[i];
      if (src === null || src === undefined) continue;
      const w = o.weights[i]!;
      forEachScored(src, (m, s) => {
        const v = weighted(s, w);
        const old = result.get(m);
        result.set(m, old === undefined ? v : aggregateInto(old, v, o.aggregate));
      });
    }
    return result;
  },
  inter(sources, o) {
    if (sources.some((s) => s === null)) return new Map();
    const [first, ...rest] = byCardinality(sources);
    return keepOf(sources[first!]!, o.limit, (m, s) => {
      let v = weighted(s, o.weights[first!]!);
      for (const k of rest) {
        const other = scoreOf(sources[k]!, m);
        if (other === undefined) return undefined;
        v = aggregateInto(v, weighted(other, o.weights[k]!), o.aggregate);
      }
      return v;
    });
  },
  diff(sources) {
    const [first, ...rest] = sources;
    if (first === null || first === undefined) return new Map();
    // Unweighted: ZDIFF takes no WEIGHTS.
    return keepOf(first, 0, (m, s) =>
      rest.some((o) => o !== null && scoreOf(o, m) !== undefined) ? undefined : s,
    );
  },
};

/**
 * ZINTER and ZDIFF walk one input and probe the others: `keep` gives a
 * member's score, or undefined to leave it out; at most `limit` are kept
 * (0: all).
 */
function keepOf(
  src: SortedSet | SetValue,
  limit: number,
  keep: (member: string, score: number) => number | undefined,
): Scores {
  const result: Scores = new Map();
  forEachScored(src, (m, s) => {
    if (limit > 0 && result.size >= limit) return;
    const v = keep(m, s);
    if (v !== undefined) result.set(m, v);
  });
  return result;
}

/** Input positions, smallest input first (a missing one counts 0), ties in argument order. */
function byCardinality(sources: readonly Source[]): number[] {
  const order = sources.map((_, i) => i);
  order.sort((a, b) => (sources[a]?.size ?? 0) - (sources[b]?.size ?? 0));
  return order;
}

const STORE = ['write', 'denyoom'] as const;
const READ = ['readonly'] as const;

export const zsetAlgebraCommands: CommandDefinition[] = [
  {
    name: 'zunionstore',
    arity: -4,
    flags: STORE,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.0.0',
    complexity: 'O(N)+O(M log(M))',
    summary: 'Stores the union of multiple sorted sets in a key.',
    handler: (c, a) => algebra(c, a, { op: 'union', dst: 1 }),
  },
  {
    name: 'zinterstore',
    arity: -4,
    flags: STORE,
    ...KEY1,
    ...sortedSetGroup,
    since: '2.0.0',
    complexity: 'O(N)+O(M log(M))',
    summary: 'Stores the intersect of multiple sorted sets in a key.',
    handler: (c, a) => algebra(c, a, { op: 'inter', dst: 1 }),
  },
  {
    name: 'zdiffstore',
    arity: -4,
    flags: STORE,
    ...KEY1,
    ...sortedSetGroup,
    since: '6.2.0',
    complexity: 'O(N)+O(M log(M))',
    summary: 'Stores the difference of multiple sorted sets in a key.',
    handler: (c, a) => algebra(c, a, { op: 'diff', dst: 1 }),
  },
  {
    name: 'zunion',
    arity: -3,
    flags: READ,
    ...NO_KEYS,
    ...sortedSetGroup,
    since: '6.2.0',
    complexity: 'O(N)+O(M log(M))',
    summary: 'Returns the union of multiple sorted sets.',
    handler: (c, a) => algebra(c, a, { op: 'union', dst: 0 }),
  },
  {
    name: 'zinter',
    arity: -3,
    flags: READ,
    ...NO_KEYS,
    ...sortedSetGroup,
    since: '6.2.0',
    complexity: 'O(N)+O(M log(M))',
    summary: 'Returns the intersect of multiple sorted sets.',
    handler: (c, a) => algebra(c, a, { op: 'inter', dst: 0 }),
  },
  {
    name: 'zdiff',
    arity: -3,
    flags: READ,
    ...NO_KEYS,
    ...sortedSetGroup,
    since: '6.2.0',
    complexity: 'O(N)+O(M log(M))',
    summary: 'Returns the difference between multiple sorted sets.',
    handler: (c, a) => algebra(c, a, { op: 'diff', dst: 0 }),
  },
  {
    name: 'zintercard',
    arity: -3,
    flags: READ,
    ...NO_KEYS,
    ...sortedSetGroup,
    since: '7.0.0',
    complexity: 'O(N)+O(M log(M))',
    summary: 'Returns the number of members of the intersect of multiple sorted sets.',
    handler: (c, a) => algebra(c, a, { op: 'inter', dst: 0, cardinalityOnly: true }),
  },
];
