import type { StoreCore } from '@strata/hlog';
import { KeyScanner, type KeyspaceInfo, listKeys, ScanError, type ScanOptions } from '@strata/scan';
import { invalidCursorError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import type { ServerState } from '../../server/server-state.js';
import { clientSlot } from '../family.js';
import { genericGroup } from '../shared/command-groups.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { parseCursor, parseScanWords } from '../shared/scan-options.js';

/**
 * DBSIZE, KEYS, SCAN and RANDOMKEY over @strata/scan. Each is a read-only
 * pass over the selected database's log (whole or, for SCAN, bounded): it
 * yields to the event loop as it goes, holds only its own connection (the
 * command table's `wholeLog`), and is tracked by the keyspace so that
 * FLUSHDB never drops a store under it.
 */

/** Runs `pass` on the selected database (opened on first use), tracked until it ends. */
function onStore<T>(
  c: Client,
  pass: (store: StoreCore) => Promise<T>,
  reply: (value: T) => void,
): Promise<void> {
  const keyspace = c.server.keyspace;
  const db = c.db;
  // Tracked from the moment it starts, so a FLUSHDB never misses it.
  const open = keyspace.get(db);
  if (open !== undefined) return keyspace.track(db, pass(open)).then(reply);
  return keyspace
    .ensure(db)
    .then((store) => keyspace.track(db, pass(store)))
    .then(reply);
}

// ---- SCAN ----------------------------------------------------------------------

/** SCAN's options for @strata/scan (an absent COUNT is the scanner's default). */
export function parseScanOptions(argv: Buffer[], from: number): ScanOptions {
  const w = parseScanWords(argv, from, { type: true, flag: null });
  const opts: { match?: Buffer; count?: number; type?: string } = {};
  if (w.count !== undefined) opts.count = w.count;
  if (w.match !== null) opts.match = w.match;
  if (w.type !== undefined) opts.type = w.type;
  return opts;
}

/** One scanner per connection and store (a scanner keeps its last page). */
const scannerSlot = clientSlot(
  'scan',
  (): { store: StoreCore | null; scanner: KeyScanner | null } => ({ store: null, scanner: null }),
);

function scannerOf(c: Client, store: StoreCore): KeyScanner {
  const held = c.state(scannerSlot);
  if (held.scanner !== null && held.store === store) return held.scanner;
  const scanner = new KeyScanner(store);
  held.store = store;
  held.scanner = scanner;
  return scanner;
}

function scan(c: Client, argv: Buffer[]): CommandResult {
  const cursor = parseCursor(argv[1]!);
  const opts = parseScanOptions(argv, 2);
  return onStore(
    c,
    async (store) => {
      try {
        return await scannerOf(c, store).scan(cursor, opts);
      } catch (e) {
        // Redis 7.0 has no error for an unknown TYPE: no key has it, the
        // iteration just returns nothing.
        if (e instanceof ScanError && e.code === 'ERR_UNKNOWN_TYPE') {
          return { cursor: 0, keys: [] as Buffer[] };
        }
        if (e instanceof ScanError && e.code === 'ERR_INVALID_CURSOR') throw invalidCursorError();
        throw e;
      }
    },
    (r) => {
      c.reply.array(2);
      c.reply.bulk(String(r.cursor));
      c.reply.array(r.keys.length);
      for (const k of r.keys) c.reply.bulk(k);
    },
  );
}

// ---- RANDOMKEY -------------------------------------------------------------------

const yieldNow = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A live key near a random log address: SCAN calls (COUNT 1) from there to
 * the tail, then from the start; nil once a whole pass found none.
 */
export async function randomKey(scanner: KeyScanner, store: StoreCore): Promise<Buffer | null> {
  const log = store.log;
  const begin = log.begin;
  const tail = log.tail;
  if (tail <= begin) return null;
  let cursor = begin + Math.floor(Math.random() * (tail - begin));
  let wraps = 0;
  for (let calls = 1; ; calls++) {
    const r = await scanner.scan(cursor, { count: 1 });
    if (r.keys.length > 0) return r.keys[0]!;
    if (r.cursor === 0 && ++wraps === 2) return null;
    cursor = r.cursor;
    if ((calls & 63) === 0) await yieldNow();
  }
}

// ---- INFO keyspace ---------------------------------------------------------------

/**
 * One database's `keys`, `expires` and `avg_ttl` from the store's counters:
 * the live-key count DBSIZE answers, and the in-memory table of keys with an
 * expiry. No record is read, so a dashboard's scrape costs the same whatever
 * the log holds on disk. Redis's avg_ttl is an estimate sampled by its
 * expire cycle; this one is the exact mean over the keys with an expiry.
 */
async function storeInfo(s: ServerState, db: number, store: StoreCore): Promise<KeyspaceInfo> {
  const keys = await s.keyspace.track(db, store.exactCount());
  const { count, ttlSum } = store.expiringTtl();
  return { keys, expires: count, avgTtl: count === 0 ? 0 : Math.round(ttlSum / count) };
}

/**
 * INFO's keyspace lines, `db0:keys=N,expires=N,avg_ttl=N`, for the open
 * databases that have keys (a database nobody opened since the start is
 * not read for INFO).
 */
export async function keyspaceLines(s: ServerState): Promise<string[]> {
  const dbs: number[] = [];
  const infos: Promise<KeyspaceInfo>[] = [];
  for (let db = 0; db < s.keyspace.count; db++) {
    const store = s.keyspace.get(db);
    if (store === undefined) continue;
    dbs.push(db);
    infos.push(storeInfo(s, db, store));
  }
  const out: string[] = [];
  const results = await Promise.all(infos);
  for (let i = 0; i < dbs.length; i++) {
    const r = results[i]!;
    if (r.keys === 0) continue;
    out.push(`db${dbs[i]}:keys=${r.keys},expires=${r.expires},avg_ttl=${Math.max(0, r.avgTtl)}`);
  }
  return out;
}

// ---- the table -----------------------------------------------------------------

export const scanCommands: CommandDefinition[] = [
  {
    name: 'dbsize',
    arity: 1,
    flags: ['readonly', 'fast'],
    ...NO_KEYS,
    acl: ['keyspace'],
    group: 'server',
    tips: ['request_policy:all_shards', 'response_policy:agg_sum'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Returns the number of keys in the database.',
    wholeLog: true,
    // The store keeps an exact live-key count; this waits only for the
    // background resolutions of blind writes over keys on disk.
    handler: (c) =>
      onStore(
        c,
        (store) => store.exactCount(),
        (n) => {
          c.reply.integer(n);
        },
      ),
  },
  {
    name: 'keys',
    // The key space walk reads records, looks no key up: no touch.
    touch: 'none',
    arity: 2,
    flags: ['readonly'],
    ...NO_KEYS,
    acl: ['keyspace', 'dangerous'],
    group: 'generic',
    tips: ['request_policy:all_shards', 'nondeterministic_output_order'],
    since: '1.0.0',
    complexity:
      'O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.',
    summary: 'Returns all key names that match a pattern.',
    wholeLog: true,
    handler(c, argv) {
      const pattern = argv[1]!;
      return onStore(
        c,
        (store) => listKeys(store, pattern),
        (keys) => {
          c.reply.array(keys.length);
          for (const k of keys) c.reply.bulk(k);
        },
      );
    },
  },
  {
    name: 'scan',
    touch: 'none',
    arity: -2,
    flags: ['readonly'],
    ...NO_KEYS,
    ...genericGroup,
    tips: ['nondeterministic_output', 'request_policy:special'],
    since: '2.8.0',
    complexity:
      'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
    summary: 'Iterates over the key names in the database.',
    wholeLog: true,
    handler: scan,
  },
  {
    name: 'randomkey',
    touch: 'none',
    arity: 1,
    flags: ['readonly'],
    ...NO_KEYS,
    ...genericGroup,
    tips: ['request_policy:all_shards', 'nondeterministic_output'],
    since: '1.0.0',
    complexity: 'O(1)',
    summary: 'Returns a random key name from the database.',
    wholeLog: true,
    handler: (c) =>
      onStore(
        c,
        (store) => randomKey(scannerOf(c, store), store),
        (key) => {
          if (key === null) c.reply.null();
          else c.reply.bulk(key);
        },
      ),
  },
];
