import path from 'node:path';
import { Store } from '@strata/hlog';
import { buildSummaries, forEachLive, KeyScanner, PageSummaries } from '@strata/scan';
import { defineScenario, lower, type Measurement } from '../scenario.js';
import { KiB, MiB, nextPowerOfTwo } from '../sizes.js';
import { yieldToLoop } from './hlog-support.js';
import { valuesByType, writeTyped } from './mixed-types.js';

/**
 * Page summaries on an on-disk log where ~1% of the pages can match: N
 * string keys `key:<n>`, with a burst of N/100 small hashes `rare:<n>`
 * (records of about the same size) written in the middle, so they fill ~1%
 * of the pages. Memory is 16 pages: the log is almost all on disk. Page
 * cache dropped before every run.
 * - `keys-summarized` / `keys-plain`: KEYS rare:* (a whole-log pass with
 *   read-ahead) with and without summaries;
 * - `scan-summarized` / `scan-plain`: a full SCAN iteration, MATCH rare:*,
 *   COUNT 1000, single-buffered, with and without summaries;
 * - `type-summarized` / `type-plain`: the same with TYPE hash instead of
 *   MATCH (the summaries' type bits, #7).
 * `pages_read_fraction`: device pages read / device pages in the log, by the
 * summarized KEYS pass; `type_pages_read_fraction` the same for a
 * whole-log pass with TYPE hash, run once after the rounds.
 */

type Params = { keys: number; valueBytes: number; pageSize: number; pagesInMemory: number };

interface State {
  store: Store;
  summaries: PageSummaries;
  rareKeys: number;
}

const PATTERN = 'rare:*';

export const scanSummaries = defineScenario<Params, State>({
  name: 'scan-summaries',
  description: 'prefix scans over an on-disk log where ~1% of pages match: summaries vs none',
  params: {
    full: { keys: 2_000_000, valueBytes: 64, pageSize: 256 * KiB, pagesInMemory: 16 },
    ci: { keys: 100_000, valueBytes: 64, pageSize: 64 * KiB, pagesInMemory: 16 },
  },
  readsDisk: true,
  variants: [
    lower('keys-summarized', 'ms'),
    lower('keys-plain', 'ms'),
    lower('scan-summarized', 'ms'),
    lower('scan-plain', 'ms'),
    lower('type-summarized', 'ms'),
    lower('type-plain', 'ms'),
  ],
  ratios: [
    'keys-plain/keys-summarized',
    'scan-plain/scan-summarized',
    'type-plain/type-summarized',
  ],

  async setup(ctx) {
    const p = ctx.params;
    const store = await Store.open({
      dir: path.join(ctx.dir, 'log'),
      memory: p.pagesInMemory * p.pageSize,
      pageSize: p.pageSize,
      segmentSize: nextPowerOfTwo(Math.max(MiB, p.keys * (p.valueBytes + 64) * 1.3)),
      checkpoints: null,
      expiry: false,
    });
    const value = Buffer.alloc(p.valueBytes, 0x61);
    // A string and a two-field hash: records of about the same size.
    const values = valuesByType(2, value);
    const key = Buffer.alloc(14);
    const rareKeys = Math.max(1, Math.round(p.keys / 100));
    const write = async (prefix: string, i: number, type: number): Promise<void> => {
      key.write(prefix, 0, 'latin1');
      key.write(String(i).padStart(14 - prefix.length, '0'), prefix.length, 'latin1');
      const w = writeTyped(store, key, type, values);
      if (w !== undefined) await w;
      if ((i & 1023) === 1023) await yieldToLoop();
    };
    const half = Math.floor(p.keys / 2);
    for (let i = 0; i < half; i++) await write('key:', i, 0);
    for (let i = 0; i < rareKeys; i++) await write('rare:', i, 1);
    for (let i = half; i < p.keys; i++) await write('key:', i, 0);
    const summaries = new PageSummaries(store.log);
    const pages = await buildSummaries(store, summaries);
    ctx.log(
      `log ${store.log.tail - store.log.begin} bytes, ${pages} pages summarized, ${rareKeys} rare keys`,
    );
    return { store, summaries, rareKeys };
  },

  async run(variant, ctx): Promise<Measurement> {
    const { store, summaries, rareKeys } = ctx.state;
    const summarized = variant.name.endsWith('-summarized');
    let found = 0;
    const start = performance.now();
    if (variant.name.startsWith('keys-')) {
      const stats = await forEachLive(
        store,
        { match: PATTERN },
        () => found++,
        summarized ? { summaries } : {},
      );
      const ms = performance.now() - start;
      if (found !== rareKeys) throw new Error(`found ${found} rare keys, expected ${rareKeys}`);
      const total = stats.diskPages + stats.skippedPages;
      return {
        value: ms,
        samples: {
          disk_pages_read: stats.diskPages,
          pages_skipped: stats.skippedPages,
          pages_read_fraction: total === 0 ? 0 : stats.diskPages / total,
        },
      };
    }
    const scanner = new KeyScanner(store, summarized ? { summaries } : {});
    const before = store.stats().device.reads;
    const filter = variant.name.startsWith('type-') ? { type: 'hash' } : { match: PATTERN };
    let cursor = 0;
    do {
      const r = await scanner.scan(cursor, { ...filter, count: 1000 });
      found += r.keys.length;
      cursor = r.cursor;
    } while (cursor !== 0);
    const ms = performance.now() - start;
    if (found < rareKeys) throw new Error(`scan found ${found} rare keys, expected ${rareKeys}`);
    return {
      value: ms,
      samples: {
        device_reads: store.stats().device.reads - before,
        pages_skipped: scanner.skippedPages,
      },
    };
  },

  async metrics(results, ctx) {
    const fraction = results.samples('keys-summarized', 'pages_read_fraction');
    const sorted = [...fraction].sort((a, b) => a - b);
    // A whole-log pass with TYPE hash: the pages the type bits let it skip.
    const { store, summaries, rareKeys } = ctx.state;
    let hashes = 0;
    const stats = await forEachLive(store, { type: 'hash' }, () => hashes++, { summaries });
    if (hashes !== rareKeys) throw new Error(`TYPE hash found ${hashes}, expected ${rareKeys}`);
    const total = stats.diskPages + stats.skippedPages;
    return {
      pages_read_fraction: sorted[Math.floor(sorted.length / 2)] ?? 0,
      type_pages_read_fraction: total === 0 ? 0 : stats.diskPages / total,
      keys_speedup: results.median('keys-plain') / results.median('keys-summarized'),
      scan_speedup: results.median('scan-plain') / results.median('scan-summarized'),
      type_speedup: results.median('type-plain') / results.median('type-summarized'),
    };
  },

  async teardown(ctx) {
    await ctx.state.store.abandon();
  },
});
