import { type CollectionLookup, type SetValue, SortedSet } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { eqi, parseInteger } from '../args.js';
import type { Client } from '../client.js';
import type { CommandDefinition, CommandResult } from '../command-table.js';
import { CommandError, syntaxError, wrongTypeError } from '../errors.js';
import { signalKey } from './blocking-registry.js';
import { whenWritten, withOpenDb } from './collection-lookup.js';
import { parseDouble, parsePositive } from './zsets-args.js';

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

/** A sorted set or a set at `key` (null when missing); WRONGTYPE for anything else. */
function lookupSource(c: Client, key: Buffer): Source | Promise<Source> {
  const r = c.collections.get<SortedSet>(key, RecordType.ZSET);
  const settle = (z: CollectionLookup<SortedSet>): Source | Promise<Source> => {
    if (z.status === 'found') return z.value;
    if (z.status === 'missing') return null;
    if (z.type !== RecordType.SET) throw wrongTypeError();
    const s = c.collections.get<SetValue>(key, RecordType.SET);
    const asSet = (x: CollectionLookup<SetValue>): Source => {
      if (x.status === 'found') return x.value;
      if (x.status === 'missing') return null;
      throw wrongTypeError();
    };
    return s instanceof Promise ? s.then(asSet) : asSet(s);
  };
  return r instanceof Promise ? r.then(settle) : settle(r);
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
  const run = (sources: Source[]) => finish(c, argv, call, numkeysAt + 1 + setnum, sources);
  return withOpenDb(c, () => {
    const found: (Source | Promise<Source>)[] = keys.map((k) => lookupSource(c, k));
    if (found.some((f) => f instanceof Promise)) return Promise.all(found).then(run);
    return run(found as Source[]);
  });
}

function finish(
  c: Client,
  argv: Buffer[],
  call: AlgebraCall,
  optionsAt: number,
  sources: Source[],
): CommandResult {
  const n = sources.length;
  const weights = new Array<number>(n).fill(1);
  let aggregate: Aggregate = 'sum';
  let withScores = false;
  let limit = 0;
  const store = call.dst !== 0;
  const card = call.cardinalityOnly === true;
  for (let j = optionsAt; j < argv.length; ) {
    const remaining = argv.length - j;
    const a = argv[j]!;
    if (call.op !== 'diff' && !card && remaining >= n + 1 && eqi(a, 'weights')) {
      j++;
      for (let i = 0; i < n; i++, j++) {
        const w = parseDouble(argv[j]!);
        if (Number.isNaN(w)) {
          throw new CommandError('ERR_NOT_FLOAT', 'ERR weight value is not a float');
        }
        weights[i] = w;
      }
    } else if (call.op !== 'diff' && !card && remaining >= 2 && eqi(a, 'aggregate')) {
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

  const result = new Map<string, number>();
  if (call.op === 'union') {
    const order = byCardinality(sources);
    for (const i of order) {
      const src = sources[i]!;
      if (src === null) continue;
      const w = weights[i]!;
      forEachScored(src, (m, s) => {
        const v = weighted(s, w);
        const old = result.get(m);
        result.set(m, old === undefined ? v : aggregateInto(old, v, aggregate));
      });
    }
  } else if (call.op === 'inter') {
    const order = byCardinality(sources);
    const first = sources[order[0]!]!;
    if (sources.every((s) => s !== null)) {
      forEachScored(first as SortedSet | SetValue, (m, s) => {
        if (card && limit > 0 && result.size >= limit) return;
        let v = weighted(s, weights[order[0]!]!);
        for (let k = 1; k < order.length; k++) {
          const other = sources[order[k]!]!;
          const os = scoreOf(other, m);
          if (os === undefined) return;
          v = aggregateInto(v, weighted(os, weights[order[k]!]!), aggregate);
        }
        result.set(m, v);
      });
    }
  } else {
    const first = sources[0];
    if (first !== null && first !== undefined) {
      forEachScored(first, (m, s) => {
        for (let k = 1; k < n; k++) {
          const other = sources[k];
          if (other !== null && other !== undefined && scoreOf(other, m) !== undefined) return;
        }
        result.set(m, s);
      });
    }
  }

  if (card) {
    c.reply.integer(limit > 0 ? Math.min(limit, result.size) : result.size);
    return undefined;
  }
  const entries = [...result];
  entries.sort((x, y) =>
    x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0,
  );
  if (store) {
    const dst = argv[call.dst]!;
    if (entries.length === 0) {
      return whenWritten(c.collections.delete(dst), () => c.reply.integer(0));
    }
    const z = SortedSet.fromSorted(
      entries.map((e) => e[1]),
      entries.map((e) => e[0]),
    );
    const w = c.collections.create(dst, z);
    signalKey(c, dst, argv);
    return whenWritten(w, () => c.reply.integer(entries.length));
  }
  const nested = withScores && c.protocol === 3;
  c.reply.array(withScores && !nested ? entries.length * 2 : entries.length);
  for (const [m, s] of entries) {
    if (nested) c.reply.array(2);
    c.reply.bulkLatin1(m);
    if (withScores) c.reply.double(s);
  }
  return undefined;
}

/** Input positions, smallest input first (a missing one counts 0), ties in argument order. */
function byCardinality(sources: readonly Source[]): number[] {
  const order = sources.map((_, i) => i);
  order.sort((a, b) => (sources[a]?.size ?? 0) - (sources[b]?.size ?? 0));
  return order;
}

const meta = {
  acl: ['sortedset'],
  group: 'sorted_set',
  complexity: 'O(N)+O(M log(M))',
} as const;

export const zsetAlgebraCommands: CommandDefinition[] = [
  {
    name: 'zunionstore',
    arity: -4,
    flags: ['write', 'denyoom'],
    firstKey: 1,
    lastKey: 1,
    step: 1,
    ...meta,
    since: '2.0.0',
    summary: 'Stores the union of multiple sorted sets in a key.',
    handler: (c, a) => algebra(c, a, { op: 'union', dst: 1 }),
  },
  {
    name: 'zinterstore',
    arity: -4,
    flags: ['write', 'denyoom'],
    firstKey: 1,
    lastKey: 1,
    step: 1,
    ...meta,
    since: '2.0.0',
    summary: 'Stores the intersect of multiple sorted sets in a key.',
    handler: (c, a) => algebra(c, a, { op: 'inter', dst: 1 }),
  },
  {
    name: 'zdiffstore',
    arity: -4,
    flags: ['write', 'denyoom'],
    firstKey: 1,
    lastKey: 1,
    step: 1,
    ...meta,
    since: '6.2.0',
    summary: 'Stores the difference of multiple sorted sets in a key.',
    handler: (c, a) => algebra(c, a, { op: 'diff', dst: 1 }),
  },
  {
    name: 'zunion',
    arity: -3,
    flags: ['readonly'],
    firstKey: 0,
    lastKey: 0,
    step: 0,
    ...meta,
    since: '6.2.0',
    summary: 'Returns the union of multiple sorted sets.',
    handler: (c, a) => algebra(c, a, { op: 'union', dst: 0 }),
  },
  {
    name: 'zinter',
    arity: -3,
    flags: ['readonly'],
    firstKey: 0,
    lastKey: 0,
    step: 0,
    ...meta,
    since: '6.2.0',
    summary: 'Returns the intersect of multiple sorted sets.',
    handler: (c, a) => algebra(c, a, { op: 'inter', dst: 0 }),
  },
  {
    name: 'zdiff',
    arity: -3,
    flags: ['readonly'],
    firstKey: 0,
    lastKey: 0,
    step: 0,
    ...meta,
    since: '6.2.0',
    summary: 'Returns the difference between multiple sorted sets.',
    handler: (c, a) => algebra(c, a, { op: 'diff', dst: 0 }),
  },
  {
    name: 'zintercard',
    arity: -3,
    flags: ['readonly'],
    firstKey: 0,
    lastKey: 0,
    step: 0,
    ...meta,
    since: '7.0.0',
    summary: 'Returns the number of members of the intersect of multiple sorted sets.',
    handler: (c, a) => algebra(c, a, { op: 'inter', dst: 0, cardinalityOnly: true }),
  },
];
