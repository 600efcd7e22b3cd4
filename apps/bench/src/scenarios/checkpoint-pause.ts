import { stat } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Store } from '@strata/hlog';
import { defineScenario, lower, type Measurement } from '../scenario.js';
import { KiB, MiB } from '../sizes.js';
import {
  LatencySample,
  loadStore,
  newKey,
  stampValue,
  writeKey,
  yieldToLoop,
} from './hlog-support.js';

/**
 * What a checkpoint of a large store costs the commands beside it: N keys
 * loaded into an embedded hlog Store (its index some tens of MiB), then a
 * checkpoint while GETs run concurrently (16 readers, one GET per
 * event-loop turn each, timed from before the turn: a stall is in the
 * latency; keys of the part of the log still in memory) and a
 * few writes keep landing. Measured: the longest event-loop stall during
 * the checkpoint (monitorEventLoopDelay's max, the variant's value), the
 * p50/p99/max latency of those GETs, the checkpoint's duration, and its IO:
 * log bytes flushed plus the checkpoint files written (`io_bytes`).
 *
 * The checkpoint's fold-over used to snapshot the whole index in one
 * synchronous step (and crc32 it in another): a stall proportional to the
 * index. It now only marks the index copy-on-write there and copies it in
 * slices of 2 MiB per event-loop turn (hash-index.ts, index-snapshot.ts).
 */

type Params = { keys: number; valueBytes: number; memory: number };

interface State {
  store: Store;
  dir: string;
  keys: number;
  /** How long the last checkpoint took: the no-checkpoint variant runs as long. */
  checkpointMs: number;
}

const CHECKPOINT = 'checkpoint';
/** The same load for as long, without a checkpoint: the stalls the machine makes anyway. */
const NONE = 'no-checkpoint';
const READERS = 16;

export const checkpointPause = defineScenario<Params, State>({
  name: 'checkpoint-pause',
  description: 'a checkpoint of a large store: longest event-loop stall, p99 of concurrent GETs',
  params: {
    full: { keys: 2_000_000, valueBytes: 100, memory: 64 * MiB },
    ci: { keys: 200_000, valueBytes: 100, memory: 16 * MiB },
  },
  variants: [lower(CHECKPOINT, 'ms'), lower(NONE, 'ms')],
  ratios: [`${CHECKPOINT}/${NONE}`],

  async setup(ctx) {
    const p = ctx.params;
    const dir = path.join(ctx.dir, 'store');
    ctx.log(`loading ${p.keys} keys`);
    const store = await Store.open({
      dir,
      memory: p.memory,
      pageSize: 256 * KiB,
      // The index sized for the keys, as strata-server's --index-size would be.
      indexBuckets: 2 ** Math.ceil(Math.log2(p.keys / 5)),
      expiry: false,
    });
    await loadStore(store, p.keys, p.valueBytes);
    const t = performance.now();
    await store.checkpoint();
    const checkpointMs = performance.now() - t;
    ctx.log(`index ${(store.stats().index.bytes / MiB).toFixed(1)} MiB`);
    return { store, dir, keys: p.keys, checkpointMs };
  },

  async run(variant, ctx): Promise<Measurement> {
    const { store, keys, dir } = ctx.state;
    const p = ctx.params;
    const hot = Math.max(1, Math.floor(keys / 20));
    let stop = false;
    const latencies = new LatencySample(1 << 20);
    const reader = async (seed: number) => {
      const key = newKey();
      let i = seed;
      while (!stop) {
        i = (i * 1_103_515_245 + 12_345) >>> 0;
        writeKey(key, keys - 1 - (i % hot));
        // A request arrives, waits for the event loop's next turn, is
        // served: a stall in between is in its latency, as a client's is.
        const t = performance.now();
        await yieldToLoop();
        await store.get(key);
        latencies.add((performance.now() - t) * 1000);
      }
    };
    const writer = async () => {
      const key = newKey();
      const value = Buffer.alloc(p.valueBytes, 0x61);
      let i = 0;
      while (!stop) {
        writeKey(key, i % keys);
        stampValue(value, i++);
        await store.set(key, value);
        if (i % 16 === 0) await yieldToLoop();
      }
    };
    const before = store.stats().device.bytesWritten;
    const monitor = monitorEventLoopDelay({ resolution: 1 });
    const workers = [...Array.from({ length: READERS }, (_, s) => reader(s + 1)), writer()];
    // Let the readers reach a steady state before the checkpoint starts.
    await new Promise((resolve) => setTimeout(resolve, 50));
    monitor.enable();
    const started = performance.now();
    let seq = 0;
    if (variant.name === CHECKPOINT) {
      seq = await store.checkpoint();
      ctx.state.checkpointMs = performance.now() - started;
    } else await new Promise((resolve) => setTimeout(resolve, ctx.state.checkpointMs));
    const checkpointMs = performance.now() - started;
    monitor.disable();
    stop = true;
    await Promise.all(workers);
    const logBytes = store.stats().device.bytesWritten - before;
    const indexBytes = seq === 0 ? 0 : (await stat(path.join(dir, `checkpoint.${seq}.index`))).size;
    return {
      value: monitor.max / 1e6,
      samples: {
        checkpoint_ms: checkpointMs,
        get_p50_us: latencies.percentile(50),
        get_p99_us: latencies.percentile(99),
        get_max_us: latencies.percentile(100),
        gets: latencies.count,
        io_bytes: logBytes + indexBytes,
        index_file_bytes: indexBytes,
      },
    };
  },

  async teardown(ctx) {
    await ctx.state.store.close();
  },
});
