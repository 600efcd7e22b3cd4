import type { CollectionLookup, CollectionValue, MaybePending } from '@strata/collections';
import type { GlobMatcher } from '@strata/scan';
import { compileGlob } from '@strata/scan';
import { eqi, parseInteger } from '../args.js';
import type { Client } from '../client.js';
import type { CommandResult } from '../command-table.js';
import { syntaxError, wrongTypeError } from '../errors.js';
import type { ReplyWriter } from '../protocol/reply-writer.js';

/**
 * What hash and set commands share: looking a collection up (synchronously
 * when cached or in memory) with WRONGTYPE answered once here, replying with
 * the latin1 strings the structures hold without making a Buffer of each,
 * and HSCAN/SSCAN's options.
 */

export type Found<V> = V | null;

/**
 * Runs `f` with the collection at `key` (null when missing); WRONGTYPE when
 * the key holds another type. `f` may return a promise (a record write).
 */
export function withCollection<V extends CollectionValue>(
  c: Client,
  key: Buffer,
  type: number,
  f: (value: Found<V>) => CommandResult,
): CommandResult {
  const r = c.collections.get<V>(key, type);
  if (!(r instanceof Promise)) return f(unwrap(r));
  // Looked up again once the disk read is in: another command may have
  // created or loaded the key meanwhile, and the decision (create or change)
  // must be taken in the same step as the change.
  return r.then(() => {
    const again = c.collections.get<V>(key, type);
    if (again instanceof Promise) return again.then((x) => f(unwrap(x)));
    return f(unwrap(again));
  });
}

function unwrap<V extends CollectionValue>(r: CollectionLookup<V>): Found<V> {
  if (r.status === 'wrongType') throw wrongTypeError();
  return r.status === 'found' ? r.value : null;
}

/** Every key's collection, in order (null when missing); WRONGTYPE if any holds another type. */
export function withCollections<V extends CollectionValue>(
  c: Client,
  keys: readonly Buffer[],
  type: number,
  f: (values: Found<V>[]) => CommandResult,
  again = true,
): CommandResult {
  const cs = c.collections;
  const found: MaybePending<CollectionLookup<V>>[] = [];
  let pending = false;
  for (const k of keys) {
    const r = cs.get<V>(k, type);
    if (r instanceof Promise) pending = true;
    found.push(r);
  }
  if (!pending) return f((found as CollectionLookup<V>[]).map(unwrap));
  // As withCollection: looked up again, synchronously, once the reads are in.
  // (Once: a cache too small for all the keys could send them to disk again.)
  return Promise.all(found).then((rs) =>
    again ? withCollections(c, keys, type, f, false) : f(rs.map(unwrap)),
  );
}

/** Replies once `p` (a record write) settled, so an error is the only reply. */
export function after(p: Promise<void> | undefined, reply: () => void): CommandResult {
  if (p === undefined) {
    reply();
    return undefined;
  }
  return p.then(() => {
    reply();
  });
}

// ---- latin1 replies -------------------------------------------------------------

let scratch = Buffer.allocUnsafe(64 << 10);

/** Writes `s` (latin1) into a reused buffer: its bytes are scratch[0, n). */
export function latin1Bytes(s: string): Buffer {
  if (s.length > scratch.length)
    scratch = Buffer.allocUnsafe(Math.max(s.length, scratch.length * 2));
  scratch.write(s, 0, 'latin1');
  return scratch;
}

/** A bulk reply of the latin1 string `s`, its bytes as they were stored. */
export function bulkLatin1(w: ReplyWriter, s: string): void {
  w.bulkLatin1(s);
}

export function bulkOrNull(w: ReplyWriter, s: string | undefined): void {
  if (s === undefined) w.null();
  else bulkLatin1(w, s);
}

// ---- HSCAN / SSCAN ---------------------------------------------------------------

export interface CollectionScanOptions {
  count: number;
  /** null: every member. */
  match: GlobMatcher | null;
  /** The command's own flag was given (HSCAN NOVALUES, ZSCAN NOSCORES). */
  flag: boolean;
}

/** Redis 7's scanGenericCommand options for a collection (later ones win); `flag`: the command's own flag word, if any. */
export function parseCollectionScan(
  argv: Buffer[],
  from: number,
  flag: string | null,
): CollectionScanOptions {
  const opts: CollectionScanOptions = { count: 10, match: null, flag: false };
  for (let i = from; i < argv.length; ) {
    const a = argv[i]!;
    const more = argv.length - i >= 2;
    if (more && eqi(a, 'count')) {
      const count = parseInteger(argv[i + 1]!);
      if (count < 1) throw syntaxError();
      opts.count = count;
      i += 2;
    } else if (more && eqi(a, 'match')) {
      const g = compileGlob(argv[i + 1]!);
      opts.match = g.matchesAll ? null : g;
      i += 2;
    } else if (flag !== null && eqi(a, flag)) {
      opts.flag = true;
      i += 1;
    } else throw syntaxError();
  }
  return opts;
}

/** Whether the latin1 string `s` matches (no Buffer is made for it). */
export function matches(glob: GlobMatcher | null, s: string): boolean {
  if (glob === null) return true;
  return glob.match(latin1Bytes(s), 0, s.length);
}
