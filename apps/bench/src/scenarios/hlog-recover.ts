import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Store } from '@strata/hlog';
import { readMode } from '@strata/pagebuf';
import { measureBestPlainRead } from '../plain-read.js';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { KiB, MiB, mbPerSecond, nextPowerOfTwo, sizeLabel } from '../sizes.js';
import { median } from '../stats.js';
import { loadStore } from './hlog-support.js';

/**
 * Recovery by whole-log rebuild: no checkpoint, so `Store.open` reads the
 * whole log, checks every page's checksum and rebuilds the hash index from
 * every record. Page cache made cold before each run. Variants:
 * - `fixed16k`: the log read 16 KiB at a time, one read at a time;
 * - `adaptive`: pagebuf's adaptive read-ahead (128 KiB doubling to 8 MiB,
 *   one read ahead while the records of the last one are indexed);
 * - `parallel`: `adaptive` with the rebuild on the machine's cores (this
 *   thread reads, verifies and inserts an eighth of the buckets, a worker
 *   the rest: `rebuildThreads`); the two above rebuild on one thread.
 * `parallel/adaptive` (also reported as `parallel_over_single`, the
 * median of the per-round ratios) is the parallel rebuild's speed-up over
 * the one-thread rebuild, runs interleaved; target 1.6 on 2 cores.
 * `recover_over_best_plain` holds `adaptive` to the best plain sequential
 * read of the same file, measured in the same run. The store serves once
 * the index is rebuilt (what is timed); the live-key count of such a
 * rebuild finishes after open, in the background: `count_ready_ms` is the
 * time from the start of open until `exactCount()` resolves.
 */

type Params = {
  logBytes: number;
  pageSize: number;
  valueBytes: number;
};

interface State {
  dir: string;
  logBytes: number;
  bestPlainMbps: number;
}

const RECORD_BYTES = 136;
const FIXED = 'fixed16k';
const ADAPTIVE = 'adaptive';
const PARALLEL = 'parallel';

export const hlogRecover = defineScenario<Params, State>({
  name: 'hlog-recover',
  description:
    'rebuild the index from the whole log: fixed 16 KiB reads vs adaptive read-ahead, one thread vs the cores',
  params: {
    full: { logBytes: 2048 * MiB, pageSize: 1024 * KiB, valueBytes: 100 },
    ci: { logBytes: 64 * MiB, pageSize: 256 * KiB, valueBytes: 100 },
  },
  readsDisk: true,
  variants: [higher(FIXED, 'MB/s'), higher(ADAPTIVE, 'MB/s'), higher(PARALLEL, 'MB/s')],
  ratios: [`${ADAPTIVE}/${FIXED}`, `${PARALLEL}/${ADAPTIVE}`],
  targets: { [`${PARALLEL}/${ADAPTIVE}`]: 1.6 },

  async setup(ctx) {
    const p = ctx.params;
    const dir = path.join(ctx.dir, 'log');
    const keys = Math.floor(p.logBytes / RECORD_BYTES);
    // One segment file holds the whole log, so plain reads read the same bytes.
    const segmentSize = nextPowerOfTwo(p.logBytes * 1.1);
    ctx.log(`writing a ${sizeLabel(p.logBytes)} log (${keys} records)`);
    const store = await Store.open({
      dir,
      memory: 64 * p.pageSize,
      pageSize: p.pageSize,
      segmentSize,
      checkpoints: null,
      expiry: false,
    });
    await loadStore(store, keys, p.valueBytes);
    await store.close();
    const best = await measureBestPlainRead({
      path: path.join(dir, 'log.0'),
      before: () => ctx.dropCaches(),
    });
    ctx.log(`best plain read: ${best.mbps.toFixed(0)} MB/s at ${sizeLabel(best.readSize)}`);
    return { dir, logBytes: store.log.tail, bestPlainMbps: best.mbps };
  },

  async run(variant, ctx): Promise<Measurement> {
    const p = ctx.params;
    const mode =
      variant.name === FIXED
        ? readMode.adaptive({ minReadSize: 16 * KiB, maxReadSize: 16 * KiB, readsAhead: 0 })
        : readMode.adaptive();
    const started = performance.now();
    const store = await Store.open({
      dir: ctx.state.dir,
      memory: 16 * p.pageSize,
      pageSize: p.pageSize,
      checkpoints: null,
      expiry: false,
      recoveryMode: mode,
      segmentSize: nextPowerOfTwo(p.logBytes * 1.1),
      rebuildThreads: variant.name === PARALLEL ? availableParallelism() : 1,
    });
    const r = store.recovery;
    const entries = store.stats().index.entries;
    const count = await store.exactCount();
    const countReadyMs = performance.now() - started;
    // The log holds each key once.
    if (count !== r.records) throw new Error(`counted ${count} keys in ${r.records} records`);
    // A crash-style exit: write nothing, so every run reads the same log.
    await store.abandon();
    if (r.cutAt !== null) throw new Error(`recovery cut the log at ${r.cutAt}: ${r.cutReason}`);
    return {
      value: mbPerSecond(r.scannedBytes, r.ms),
      samples: {
        recover_ms: r.ms,
        count_ready_ms: countReadyMs,
        records: r.records,
        index_entries: entries,
        rebuild_threads: r.rebuildThreads,
      },
    };
  },

  metrics(results, ctx) {
    const single = results.get(ADAPTIVE).values;
    const perRound = results.get(PARALLEL).values.map((v, i) => v / single[i]!);
    return {
      recover_over_best_plain: results.median(ADAPTIVE) / ctx.state.bestPlainMbps,
      best_plain_mbps: ctx.state.bestPlainMbps,
      parallel_over_single: median(perRound),
    };
  },
});
