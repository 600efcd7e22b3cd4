import path from 'node:path';
import { Store } from '@strata/hlog';
import { KeyScanner, type ScanOptions } from '@strata/scan';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';
import { yieldToLoop } from './hlog-support.js';
import { TYPE_NAMES, valuesByType, writeTyped } from './mixed-types.js';

/**
 * A full SCAN iteration (cursor 0 to 0, COUNT 1000) over N keys held in
 * memory, so the numbers are the filter's CPU cost, not the disk's:
 * - `nofilter`; MATCH matching 100% (`match100`), 50% (`callback`, the
 *   glob run inside the record callback), 0% (`match0`); TYPE matching
 *   (`type-string`) and not (`type-hash`: no hash exists, so the call
 *   answers before any work);
 * - `naive`: the same 50% MATCH done the naive way: every call collects
 *   every key (no filter) as Buffers, converts them to strings and filters
 *   them with a RegExp built from the glob.
 * - the same iteration over a second log of mixed types (#7): key i is a
 *   string, hash, set, sorted set or list as i % 5 says (small collections
 *   in their real encoding): `mixed-nofilter`; TYPE hash in the callback
 *   (`mixed-type-hash`, 20%); MATCH and TYPE together (`mixed-match-type`:
 *   `user:*` TYPE zset, 10%); and `mixed-naive-type`, what a client does
 *   without TYPE: every key collected, then each one's type looked up.
 *   Each run checks the number of keys found.
 * Unit: records of the log covered per second (the log holds N records,
 * one per key, and a full iteration visits each once; `type-hash` covers
 * them without visiting any).
 */

type Params = { keys: number; valueBytes: number; count: number };

interface State {
  store: Store;
  scanner: KeyScanner;
  records: number;
  mixed: Store;
  mixedScanner: KeyScanner;
}

const HALF_PATTERN = 'user:*';
const VARIANTS: Record<string, ScanOptions> = {
  nofilter: {},
  match100: { match: '*:*' },
  callback: { match: HALF_PATTERN },
  match0: { match: 'none:*' },
  'type-string': { type: 'string' },
  'type-hash': { type: 'hash' },
};
const NAIVE = 'naive';

/** Variants over the mixed-type log, with the keys each must find out of N (key i has type i % 5). */
const MIXED: Record<string, { options: ScanOptions; expected: (keys: number) => number }> = {
  'mixed-nofilter': { options: {}, expected: (n) => n },
  'mixed-type-hash': { options: { type: 'hash' }, expected: (n) => ofType(n, 1) },
  'mixed-match-type': {
    options: { match: HALF_PATTERN, type: 'zset' },
    // Even i (user:) with i % 5 == 3: i % 10 == 8.
    expected: (n) => Math.floor((n + 1) / 10),
  },
};
const MIXED_NAIVE = 'mixed-naive-type';

/** Keys below n with i % 5 == type. */
function ofType(n: number, type: number): number {
  return Math.floor((n - type + 4) / 5);
}

/** A RegExp from a Redis glob (only what the naive baseline needs: `*`, `?`, literals). */
export function globToRegExp(glob: string): RegExp {
  let src = '^';
  for (const ch of glob) {
    if (ch === '*') src += '[\\s\\S]*';
    else if (ch === '?') src += '[\\s\\S]';
    else src += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`${src}$`);
}

function keyOf(key: Buffer, i: number): void {
  // `user:` for even keys, `item:` for odd ones: the 50% pattern.
  key.write(i % 2 === 0 ? 'user:' : 'item:', 0, 'latin1');
  key.write(String(i).padStart(10, '0'), 5, 'latin1');
}

export const scanFilters = defineScenario<Params, State>({
  name: 'scan-filters',
  description:
    'full SCAN COUNT 1000 with MATCH/TYPE filters in the callback vs collect-then-RegExp',
  params: {
    full: { keys: 1_000_000, valueBytes: 16, count: 1000 },
    ci: { keys: 50_000, valueBytes: 16, count: 1000 },
  },
  variants: [...Object.keys(VARIANTS), NAIVE, ...Object.keys(MIXED), MIXED_NAIVE].map((n) =>
    higher(n, 'records/s'),
  ),
  ratios: [
    'match0/nofilter',
    `callback/${NAIVE}`,
    `mixed-type-hash/${MIXED_NAIVE}`,
    'mixed-type-hash/mixed-nofilter',
  ],

  async setup(ctx) {
    const p = ctx.params;
    const value = Buffer.alloc(p.valueBytes, 0x61);
    const open = (name: string, recordBytes: number) =>
      Store.open({
        dir: path.join(ctx.dir, name),
        // Everything in memory: the filters' cost, not the disk's.
        memory: Math.max(64 * MiB, 2 ** Math.ceil(Math.log2(p.keys * recordBytes * 2))),
        pageSize: 1 * MiB,
        checkpoints: null,
        expiry: false,
      });
    const store = await open('log', p.valueBytes + 64);
    const key = Buffer.alloc(15);
    for (let i = 0; i < p.keys; i++) {
      keyOf(key, i);
      const v = store.upsert(key, value);
      if (v.status === 'pending') await v.pending;
      if ((i & 1023) === 1023) await yieldToLoop();
    }
    ctx.log(
      `${p.keys} keys, log ${store.log.tail - store.log.begin} bytes, head ${store.log.head}`,
    );
    // Four members per collection: records about the size of the strings'.
    const values = valuesByType(4, value);
    const mixed = await open('mixed', Math.max(...values.map((v) => v.length)) + 64);
    for (let i = 0; i < p.keys; i++) {
      keyOf(key, i);
      const w = writeTyped(mixed, key, i % TYPE_NAMES.length, values);
      if (w !== undefined) await w;
      if ((i & 1023) === 1023) await yieldToLoop();
    }
    ctx.log(
      `${p.keys} keys of ${TYPE_NAMES.join('/')}, log ${mixed.log.tail - mixed.log.begin} bytes`,
    );
    return {
      store,
      scanner: new KeyScanner(store),
      records: p.keys,
      mixed,
      mixedScanner: new KeyScanner(mixed),
    };
  },

  async run(variant, ctx): Promise<Measurement> {
    const { scanner, mixed, mixedScanner, records } = ctx.state;
    const count = ctx.params.count;
    const name = variant.name;
    if (name === NAIVE) {
      const re = globToRegExp(HALF_PATTERN);
      return fullScan(scanner, { count }, records, (keys) => {
        let found = 0;
        const all: string[] = keys.map((k) => k.toString('latin1'));
        for (const k of all) if (re.test(k)) found++;
        return found;
      });
    }
    if (name === MIXED_NAIVE) {
      // SCAN, then TYPE of every key: one lookup per key the call returned.
      const m = await fullScan(mixedScanner, { count }, records, async (keys) => {
        let found = 0;
        for (const k of keys) {
          const v = mixed.read(k);
          const r = v.status === 'pending' ? await v.pending : v;
          if (r.status === 'found' && r.type === 1) found++;
        }
        return found;
      });
      return expectFound(name, m, ofType(records, 1));
    }
    const all = (keys: Buffer[]) => keys.length;
    const mixedCase = MIXED[name];
    if (mixedCase === undefined) {
      return fullScan(scanner, { ...VARIANTS[name]!, count }, records, all);
    }
    const m = await fullScan(mixedScanner, { ...mixedCase.options, count }, records, all);
    return expectFound(name, m, mixedCase.expected(records));
  },

  metrics(results) {
    return {
      match0_over_nofilter: results.median('match0') / results.median('nofilter'),
      callback_over_naive: results.median('callback') / results.median(NAIVE),
      mixed_type_over_naive: results.median('mixed-type-hash') / results.median(MIXED_NAIVE),
      mixed_type_over_nofilter:
        results.median('mixed-type-hash') / results.median('mixed-nofilter'),
    };
  },

  async teardown(ctx) {
    await ctx.state.store.abandon();
    await ctx.state.mixed.abandon();
  },
});

/**
 * One full SCAN iteration (cursor 0 to 0), timed; `found` counts the keys
 * of each call's reply that the variant wants.
 */
async function fullScan(
  scanner: KeyScanner,
  options: ScanOptions,
  records: number,
  found: (keys: Buffer[]) => number | Promise<number>,
): Promise<Measurement> {
  let keys = 0;
  let calls = 0;
  let cursor = 0;
  const start = performance.now();
  do {
    const r = await scanner.scan(cursor, options);
    keys += await found(r.keys);
    cursor = r.cursor;
    calls++;
  } while (cursor !== 0);
  const ms = performance.now() - start;
  return { value: records / (ms / 1000), samples: { keys_found: keys, calls, ms } };
}

/** Fails the run when it found the wrong number of keys (nothing writes meanwhile: exact). */
function expectFound(name: string, m: Measurement, expected: number): Measurement {
  const found = m.samples?.keys_found;
  if (found !== expected) throw new Error(`${name}: found ${found} keys, expected ${expected}`);
  return m;
}
