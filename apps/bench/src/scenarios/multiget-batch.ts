import path from 'node:path';
import { Store } from '@strata/hlog';
import { multiGet } from '@strata/scan';
import { defineScenario, lower, type Measurement } from '../scenario.js';
import { KiB, MiB, nextPowerOfTwo } from '../sizes.js';
import { loadStore, newKey, rng, writeKey } from './hlog-support.js';

/**
 * MGET of 100 disk-resident keys: `multiGet` (one device read per contiguous
 * range of wanted records, all in flight together) vs `store.get` one key after another.
 * Key sets: `clustered` (100 keys written one after the other: a page or
 * two) and `random` (uniform over the on-disk part of the log). Page cache
 * dropped before every run. Value: the MGET's latency; device reads issued
 * and bytes read are samples (`<variant>.reads`, `.bytes_read`) and
 * `metrics.reads_*`. multiGet reads only the wanted records' spans, so
 * scattered keys read as few bytes as single gets.
 */

type Params = { keys: number; valueBytes: number; pageSize: number; memory: number; batch: number };

interface State {
  store: Store;
  sets: Record<'clustered' | 'random', Buffer[]>;
}

const VARIANTS = ['batched-clustered', 'single-clustered', 'batched-random', 'single-random'];

export const multigetBatch = defineScenario<Params, State>({
  name: 'multiget-batch',
  description: 'MGET of 100 disk-resident keys: multiGet batched by page vs get one by one',
  params: {
    full: { keys: 2_000_000, valueBytes: 100, pageSize: 1 * MiB, memory: 16 * MiB, batch: 100 },
    ci: { keys: 50_000, valueBytes: 100, pageSize: 64 * KiB, memory: 512 * KiB, batch: 100 },
  },
  readsDisk: true,
  variants: VARIANTS.map((n) => lower(n, 'ms')),
  ratios: ['single-clustered/batched-clustered', 'single-random/batched-random'],

  async setup(ctx) {
    const p = ctx.params;
    const store = await Store.open({
      dir: path.join(ctx.dir, 'log'),
      memory: p.memory,
      pageSize: p.pageSize,
      segmentSize: nextPowerOfTwo(Math.max(MiB, p.keys * (p.valueBytes + 64) * 1.3)),
      checkpoints: null,
      expiry: false,
    });
    await loadStore(store, p.keys, p.valueBytes);
    const log = store.log;
    const perRecord = (log.tail - log.begin) / p.keys;
    // Keys whose records are below head (on the device), with a page of margin.
    const onDisk = Math.floor((log.head - log.begin - p.pageSize) / perRecord);
    if (onDisk < 2 * p.batch) throw new Error(`only ${onDisk} keys on disk`);
    const make = (i: number): Buffer => {
      const k = newKey();
      writeKey(k, i);
      return k;
    };
    const first = Math.floor(onDisk / 3);
    const clustered = Array.from({ length: p.batch }, (_, j) => make(first + j));
    const next = rng(11);
    const random = Array.from({ length: p.batch }, () => make(Math.floor(next() * onDisk)));
    ctx.log(
      `${p.keys} keys, ${onDisk} on disk (log ${log.tail - log.begin} bytes, head ${log.head})`,
    );
    return { store, sets: { clustered, random } };
  },

  async run(variant, ctx): Promise<Measurement> {
    const { store, sets } = ctx.state;
    const [how, which] = variant.name.split('-') as ['batched' | 'single', 'clustered' | 'random'];
    const keys = sets[which];
    const before = store.stats().device;
    let found = 0;
    let pageReads = 0;
    const start = performance.now();
    if (how === 'batched') {
      const r = await multiGet(store, keys);
      pageReads = r.pageReads;
      for (const v of r.results) if (v.status === 'found') found++;
    } else {
      for (const k of keys) {
        const v = await store.get(k);
        if (v.status === 'found') found++;
      }
    }
    const ms = performance.now() - start;
    const after = store.stats().device;
    const reads = after.reads - before.reads;
    const bytesRead = after.bytesRead - before.bytesRead;
    if (found !== keys.length) throw new Error(`${variant.name}: found ${found} of ${keys.length}`);
    return { value: ms, samples: { reads, bytes_read: bytesRead, page_reads: pageReads } };
  },

  metrics(results) {
    const median = (name: string): number => {
      const s = [...results.samples(name, 'reads')].sort((a, b) => a - b);
      return s[Math.floor(s.length / 2)] ?? 0;
    };
    return {
      reads_batched_clustered: median('batched-clustered'),
      reads_single_clustered: median('single-clustered'),
      reads_batched_random: median('batched-random'),
      reads_single_random: median('single-random'),
    };
  },

  async teardown(ctx) {
    await ctx.state.store.abandon();
  },
});
