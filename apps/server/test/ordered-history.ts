import type { Redis } from 'ioredis';

/**
 * An ordered history of writes across strings, lists, hashes, sets, sorted
 * sets and streams (and one set large enough that the object cache writes
 * it back in slices), each write carrying its sequence number, and the check
 * that a database holds exactly the state after some prefix of it.
 *
 * Write `i` is a function of `i` alone, so the state after any prefix `k`
 * can be rebuilt (`modelAfter`), and every write leaves its number where a
 * read sees it (a new value, element, field value, member or entry), so the
 * last write of a prefix is visible: the prefix a database holds is one past
 * the highest number found in it (`prefixOf`).
 */

export interface HistoryShape {
  /** Keys per collection type (few: they stay hot in the object cache). */
  readonly collectionKeys: number;
  /** String keys (many: they fill the log). */
  readonly stringKeys: number;
  /** Appended to every value, element and member. */
  readonly pad: string;
  /** Appended to the members of the one large set (`big`): large enough to write back in slices. */
  readonly bigPad: string;
}

const KINDS = ['set', 'rpush', 'hset', 'sadd', 'zadd', 'xadd', 'big'] as const;
type Kind = (typeof KINDS)[number];

/** Hash fields per hash: a field is written again every this many hash writes. */
const HASH_FIELDS = 37;

export interface Write {
  readonly kind: Kind;
  readonly key: string;
  readonly argv: readonly string[];
}

const tagged = (i: number, pad: string): string => `${i}:${pad}`;
const seqOf = (s: string): number => Number.parseInt(s, 10);

/** Write number `i` of the history. */
export function writeAt(i: number, shape: HistoryShape): Write {
  const kind = KINDS[i % KINDS.length]!;
  const round = Math.floor(i / KINDS.length);
  const c = round % shape.collectionKeys;
  const v = tagged(i, shape.pad);
  switch (kind) {
    case 'set': {
      const key = `s:${round % shape.stringKeys}`;
      return { kind, key, argv: ['SET', key, v] };
    }
    case 'rpush':
      return { kind, key: `l:${c}`, argv: ['RPUSH', `l:${c}`, v] };
    case 'hset':
      return { kind, key: `h:${c}`, argv: ['HSET', `h:${c}`, `f${round % HASH_FIELDS}`, v] };
    case 'sadd':
      return { kind, key: `t:${c}`, argv: ['SADD', `t:${c}`, v] };
    case 'zadd':
      return { kind, key: `z:${c}`, argv: ['ZADD', `z:${c}`, String(i), v] };
    case 'xadd':
      return { kind, key: `x:${c}`, argv: ['XADD', `x:${c}`, `${i + 1}-1`, 'v', v] };
    case 'big':
      return { kind, key: 'big', argv: ['SADD', 'big', tagged(i, shape.bigPad)] };
  }
}

/** A database's content in a form two states compare by (key -> canonical text). */
export type State = Map<string, string>;

/** The state after writes 0..k-1. */
export function modelAfter(k: number, shape: HistoryShape): State {
  const strings = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const hashes = new Map<string, Map<string, string>>();
  const sets = new Map<string, string[]>();
  const zsets = new Map<string, string[]>();
  const streams = new Map<string, string[]>();
  const push = (m: Map<string, string[]>, key: string, item: string) => {
    const a = m.get(key);
    if (a === undefined) m.set(key, [item]);
    else a.push(item);
  };
  for (let i = 0; i < k; i++) {
    const w = writeAt(i, shape);
    const a = w.argv;
    switch (w.kind) {
      case 'set':
        strings.set(w.key, a[2]!);
        break;
      case 'rpush':
        push(lists, w.key, a[2]!);
        break;
      case 'hset': {
        const h = hashes.get(w.key) ?? new Map<string, string>();
        hashes.set(w.key, h);
        h.set(a[2]!, a[3]!);
        break;
      }
      case 'sadd':
      case 'big':
        push(sets, w.key, a[2]!);
        break;
      case 'zadd':
        push(zsets, w.key, `${a[3]}=${a[2]}`);
        break;
      case 'xadd':
        push(streams, w.key, `${a[2]} ${a[4]}`);
        break;
    }
  }
  const state: State = new Map();
  for (const [k2, v] of strings) state.set(k2, `string ${v}`);
  for (const [k2, v] of lists) state.set(k2, `list ${v.join(',')}`);
  for (const [k2, h] of hashes) state.set(k2, `hash ${canonicalHash(h)}`);
  for (const [k2, v] of sets) state.set(k2, `set ${sortedBySeq(v).join(',')}`);
  for (const [k2, v] of zsets) state.set(k2, `zset ${v.join(',')}`);
  for (const [k2, v] of streams) state.set(k2, `stream ${v.join(',')}`);
  return state;
}

function canonicalHash(h: Map<string, string>): string {
  return [...h]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([f, v]) => `${f}=${v}`)
    .join(',');
}

function sortedBySeq(items: string[]): string[] {
  return [...items].sort((a, b) => seqOf(a) - seqOf(b));
}

/** Reads every key the history can write (and DBSIZE, for keys it never wrote). */
export async function readState(
  r: Redis,
  shape: HistoryShape,
): Promise<{ state: State; dbsize: number }> {
  const state: State = new Map();
  const names = Array.from({ length: shape.stringKeys }, (_, j) => `s:${j}`);
  const values = await r.mget(names);
  values.forEach((v, j) => {
    if (v !== null) state.set(names[j]!, `string ${v}`);
  });
  for (let c = 0; c < shape.collectionKeys; c++) {
    const list = await r.lrange(`l:${c}`, 0, -1);
    if (list.length > 0) state.set(`l:${c}`, `list ${list.join(',')}`);
    const hash = await r.hgetall(`h:${c}`);
    if (Object.keys(hash).length > 0) {
      state.set(`h:${c}`, `hash ${canonicalHash(new Map(Object.entries(hash)))}`);
    }
    const members = await r.smembers(`t:${c}`);
    if (members.length > 0) state.set(`t:${c}`, `set ${sortedBySeq(members).join(',')}`);
    const z = await r.zrange(`z:${c}`, 0, -1, 'WITHSCORES');
    if (z.length > 0) {
      const pairs: string[] = [];
      for (let i = 0; i < z.length; i += 2) pairs.push(`${z[i]}=${z[i + 1]}`);
      state.set(`z:${c}`, `zset ${pairs.join(',')}`);
    }
    const entries = await r.xrange(`x:${c}`, '-', '+');
    if (entries.length > 0) {
      const items = entries.map(([id, fields]) => `${id} ${fields[1]}`);
      state.set(`x:${c}`, `stream ${items.join(',')}`);
    }
  }
  const big = await r.smembers('big');
  if (big.length > 0) state.set('big', `set ${sortedBySeq(big).join(',')}`);
  return { state, dbsize: await r.dbsize() };
}

/**
 * The prefix a state claims to be: one past the highest write number in it
 * (0 for an empty database).
 */
export function prefixOf(state: State): number {
  let highest = -1;
  for (const text of state.values()) {
    // Every number followed by ':' (after a space, comma or '=') is a write number.
    for (const m of text.matchAll(/[ ,=](\d+):/g)) {
      const i = Number(m[1]);
      if (i > highest) highest = i;
    }
  }
  return highest + 1;
}

/** Where two states differ (at most `limit` keys), empty when equal. */
export function differences(actual: State, expected: State, limit = 5): string[] {
  const out: string[] = [];
  const keys = new Set([...actual.keys(), ...expected.keys()]);
  for (const key of [...keys].sort()) {
    const a = actual.get(key);
    const e = expected.get(key);
    if (a === e) continue;
    const at = firstDifference(a ?? '', e ?? '');
    out.push(`${key}: from char ${at}, has ${clip(a, at)}, prefix has ${clip(e, at)}`);
    if (out.length >= limit) break;
  }
  return out;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** `s` around char `at` (where two states part), with its length. */
function clip(s: string | undefined, at: number): string {
  if (s === undefined) return '(none)';
  const from = Math.max(0, at - 60);
  return `...${s.slice(from, at + 100)}... (${s.length} chars)`;
}
