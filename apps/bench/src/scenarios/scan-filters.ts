import path from 'node:path';
import { Store } from '@strata/hlog';
import { KeyScanner, type ScanOptions } from '@strata/scan';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';
import { yieldToLoop } from './hlog-support.js';

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
 * Unit: records of the log covered per second (the log holds N records,
 * one per key, and a full iteration visits each once; `type-hash` covers
 * them without visiting any).
 */

type Params = { keys: number; valueBytes: number; count: number };

interface State {
  store: Store;
  scanner: KeyScanner;
  records: number;
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
  variants: [...Object.keys(VARIANTS), NAIVE].map((n) => higher(n, 'records/s')),
  ratios: ['match0/nofilter', `callback/${NAIVE}`],

  async setup(ctx) {
    const p = ctx.params;
    const store = await Store.open({
      dir: path.join(ctx.dir, 'log'),
      // Everything in memory: the filters' cost, not the disk's.
      memory: Math.max(64 * MiB, 2 ** Math.ceil(Math.log2(p.keys * (p.valueBytes + 64) * 2))),
      pageSize: 1 * MiB,
      checkpoints: null,
      expiry: false,
    });
    const key = Buffer.alloc(15);
    const value = Buffer.alloc(p.valueBytes, 0x61);
    for (let i = 0; i < p.keys; i++) {
      keyOf(key, i);
      const v = store.upsert(key, value);
      if (v.status === 'pending') await v.pending;
      if ((i & 1023) === 1023) await yieldToLoop();
    }
    ctx.log(
      `${p.keys} keys, log ${store.log.tail - store.log.begin} bytes, head ${store.log.head}`,
    );
    return { store, scanner: new KeyScanner(store), records: p.keys };
  },

  async run(variant, ctx): Promise<Measurement> {
    const { scanner, records } = ctx.state;
    const count = ctx.params.count;
    let found = 0;
    let calls = 0;
    let cursor = 0;
    const start = performance.now();
    if (variant.name === NAIVE) {
      const re = globToRegExp(HALF_PATTERN);
      do {
        const r = await scanner.scan(cursor, { count });
        const all: string[] = r.keys.map((k) => k.toString('latin1'));
        for (const k of all) if (re.test(k)) found++;
        cursor = r.cursor;
        calls++;
      } while (cursor !== 0);
    } else {
      const options = { ...VARIANTS[variant.name]!, count };
      do {
        const r = await scanner.scan(cursor, options);
        found += r.keys.length;
        cursor = r.cursor;
        calls++;
      } while (cursor !== 0);
    }
    const ms = performance.now() - start;
    return { value: records / (ms / 1000), samples: { keys_found: found, calls, ms } };
  },

  metrics(results) {
    return {
      match0_over_nofilter: results.median('match0') / results.median('nofilter'),
      callback_over_naive: results.median('callback') / results.median(NAIVE),
    };
  },

  async teardown(ctx) {
    await ctx.state.store.abandon();
  },
});
