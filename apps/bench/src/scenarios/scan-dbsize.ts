import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { Store } from '@strata/hlog';
import { type ReadMode, readMode } from '@strata/pagebuf';
import { countKeys, wholeLogMode } from '@strata/scan';
import { measureBestPlainRead, measurePlainRead } from '../plain-read.js';
import {
  defineScenario,
  higher,
  lower,
  type Measurement,
  type ScenarioResults,
} from '../scenario.js';
import { KiB, MiB, mbPerSecond, nextPowerOfTwo, sizeLabel } from '../sizes.js';
import { loadStore } from './hlog-support.js';

/**
 * DBSIZE by a whole-log pass (`countKeys`) over a log much larger than the
 * store's memory (Garnet's measurement: 4M keys x 64 B values, 64 MiB
 * memory, 4 MiB pages), page cache dropped before every run. Variants are
 * the device read modes: `single` (one page per read, nothing ahead),
 * `double` (one page ahead), `adaptive` (the whole-log default). MB/s of
 * log bytes (`tail - begin`). `adaptive_over_best_plain` holds `adaptive`
 * to the best plain `FileHandle.read` of the log's segment file, measured
 * in setup of the same run.
 *
 * `o1` (and `o1-large`) is the store's exact live-key count without a scan
 * (`store.exactCount()`, waiting for background resolutions), on the same
 * store: its own unit (µs per call, lower is better), so the MB/s columns
 * stay comparable; `metrics.o1_count_us` and `metrics.o1_over_adaptive`
 * (adaptive whole-log seconds over o1 seconds, medians) hold it beside the
 * pass. Every `o1` run also checks, after the timed call, that
 * `exactCount()` equals an untimed `countKeys` of the same log (and the keys
 * loaded) and fails the run otherwise: exactness is the point.
 *
 * `plain` (and `plain-large`) repeat the plain read at the best read size
 * found in setup, interleaved with the passes in every round, page cache
 * dropped like theirs: `adaptive/plain` holds the pass to a plain read made
 * under the same load (the setup figure is the best of single attempts,
 * taken minutes earlier, on a shared machine). Each pass also records its
 * CPU time per record (`cpu_ns_per_record`: the process's user + system
 * time, IO threads included), the number that says whether the pass is
 * CPU-bound; `metrics.<variant>_cpu_ns_per_record` are their medians.
 */

type Params = {
  keys: number;
  valueBytes: number;
  /** The second shape (Garnet's 60K x 128 KiB): variants `<mode>-large`; 0 keys: none. */
  largeKeys: number;
  largeValueBytes: number;
  memory: number;
  pageSize: number;
};

interface Shape {
  store: Store;
  handle: FileHandle;
  keys: number;
  logBytes: number;
  bestPlainMbps: number;
  bestPlainReadSize: number;
  /** The interleaved plain reads' buffer, allocated once. */
  plainBuffer: Uint8Array;
}

interface State {
  small: Shape;
  large: Shape | null;
}

const SINGLE = 'single';
const DOUBLE = 'double';
const ADAPTIVE = 'adaptive';
const O1 = 'o1';
const PLAIN = 'plain';

const LARGE = '-large';

function modeOf(name: string, pageSize: number): ReadMode {
  if (name.startsWith(SINGLE)) return readMode.single();
  if (name.startsWith(DOUBLE)) return readMode.double();
  return wholeLogMode(pageSize);
}

async function buildShape(
  ctx: { dir: string; log(m: string): void; dropCaches(): Promise<boolean> },
  name: string,
  p: Params,
  keys: number,
  valueBytes: number,
): Promise<Shape> {
  const dir = path.join(ctx.dir, name);
  const segmentSize = nextPowerOfTwo(keys * (valueBytes + 64) * 1.2);
  const store = await Store.open({
    dir,
    memory: p.memory,
    pageSize: p.pageSize,
    segmentSize,
    checkpoints: null,
    expiry: false,
  });
  // A failed load or plain read leaves nothing open: no store, no handle
  // for the garbage collector to close.
  let handle: FileHandle | undefined;
  try {
    ctx.log(`${name}: loading ${keys} keys x ${valueBytes} B`);
    const load = await loadStore(store, keys, valueBytes);
    const logBytes = store.log.tail - store.log.begin;
    ctx.log(
      `${name}: log ${sizeLabel(logBytes)} (${(logBytes / p.memory).toFixed(1)}x memory) in ${(load.ms / 1000).toFixed(1)} s`,
    );
    // Plain reads of the same segment file, through a handle kept open.
    handle = await open(path.join(dir, 'log.0'), 'r');
    const best = await measureBestPlainRead({ handle, before: () => ctx.dropCaches() });
    ctx.log(`${name}: best plain read ${best.mbps.toFixed(0)} MB/s at ${sizeLabel(best.readSize)}`);
    return {
      store,
      handle,
      keys,
      logBytes,
      bestPlainMbps: best.mbps,
      bestPlainReadSize: best.readSize,
      plainBuffer: new Uint8Array(best.readSize),
    };
  } catch (err) {
    await handle?.close();
    await store.abandon();
    throw err;
  }
}

/** The O(1) count, timed alone; then checked against an untimed whole-log count. */
async function runO1(shape: Shape, pageSize: number): Promise<Measurement> {
  const start = process.hrtime.bigint();
  const n = await shape.store.exactCount();
  const ns = Number(process.hrtime.bigint() - start);
  const scanned = await countKeys(shape.store, { mode: wholeLogMode(pageSize) });
  if (n !== scanned || n !== shape.keys) {
    throw new Error(
      `exactCount gave ${n}, countKeys ${scanned}, expected ${shape.keys}: the O(1) count is not exact`,
    );
  }
  return { value: ns / 1000, samples: { seconds: ns / 1e9, keys: n } };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median seconds of variant `a` over median seconds of variant `b`. */
function secondsOver(results: ScenarioResults, a: string, b: string): number {
  return median(results.samples(a, 'seconds')) / median(results.samples(b, 'seconds'));
}

export const scanDbsize = defineScenario<Params, State>({
  name: 'scan-dbsize',
  description:
    'DBSIZE as a whole-log pass over a mostly-on-disk log: single, double, adaptive reads',
  params: {
    // 12M x 64 B: ~1.1 GiB of log, > 16x the 64 MiB of memory; 60K x 128 KiB: ~7.4 GiB.
    full: {
      keys: 12_000_000,
      valueBytes: 64,
      largeKeys: 60_000,
      largeValueBytes: 128 * KiB,
      memory: 64 * MiB,
      pageSize: 4 * MiB,
    },
    ci: {
      keys: 200_000,
      valueBytes: 64,
      largeKeys: 1_000,
      largeValueBytes: 16 * KiB,
      memory: 1 * MiB,
      pageSize: 128 * KiB,
    },
  },
  readsDisk: true,
  variants: (p) => [
    ...[
      SINGLE,
      DOUBLE,
      ADAPTIVE,
      ...(p.largeKeys > 0 ? [SINGLE, DOUBLE, ADAPTIVE].map((m) => m + LARGE) : []),
      PLAIN,
      ...(p.largeKeys > 0 ? [PLAIN + LARGE] : []),
    ].map((n) => higher(n, 'MB/s')),
    ...[O1, ...(p.largeKeys > 0 ? [O1 + LARGE] : [])].map((n) => lower(n, 'us')),
  ],
  ratios: (p) => [
    `${DOUBLE}/${SINGLE}`,
    `${ADAPTIVE}/${SINGLE}`,
    ...(p.largeKeys > 0
      ? [`${DOUBLE}${LARGE}/${SINGLE}${LARGE}`, `${ADAPTIVE}${LARGE}/${SINGLE}${LARGE}`]
      : []),
    `${ADAPTIVE}/${DOUBLE}`,
    `${ADAPTIVE}/${PLAIN}`,
    ...(p.largeKeys > 0
      ? [`${ADAPTIVE}${LARGE}/${DOUBLE}${LARGE}`, `${ADAPTIVE}${LARGE}/${PLAIN}${LARGE}`]
      : []),
  ],

  async setup(ctx) {
    const p = ctx.params;
    const small = await buildShape(ctx, 'small', p, p.keys, p.valueBytes);
    try {
      const large =
        p.largeKeys > 0 ? await buildShape(ctx, 'large', p, p.largeKeys, p.largeValueBytes) : null;
      return { small, large };
    } catch (err) {
      await small.handle.close();
      await small.store.abandon();
      throw err;
    }
  },

  async run(variant, ctx): Promise<Measurement> {
    const shape = variant.name.endsWith(LARGE) ? ctx.state.large! : ctx.state.small;
    const { store } = shape;
    if (variant.name.startsWith(O1)) return runO1(shape, ctx.params.pageSize);
    if (variant.name.startsWith(PLAIN)) {
      const r = await measurePlainRead({
        handle: shape.handle,
        readSize: shape.bestPlainReadSize,
        buffer: shape.plainBuffer,
      });
      return { value: r.mbps, samples: { seconds: r.milliseconds / 1000 } };
    }
    const bytes = store.log.tail - store.log.begin;
    const cpu = process.cpuUsage();
    const start = performance.now();
    const n = await countKeys(store, { mode: modeOf(variant.name, ctx.params.pageSize) });
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (n !== shape.keys) throw new Error(`countKeys gave ${n}, expected ${shape.keys}`);
    return {
      value: mbPerSecond(bytes, ms),
      samples: {
        seconds: ms / 1000,
        keys: n,
        cpu_ns_per_record: ((used.user + used.system) * 1000) / n,
      },
    };
  },

  metrics(results, ctx) {
    const { small, large } = ctx.state;
    const out: Record<string, number> = {
      adaptive_over_best_plain: results.median(ADAPTIVE) / small.bestPlainMbps,
      best_plain_mbps: small.bestPlainMbps,
      best_plain_read_size: small.bestPlainReadSize,
      log_bytes: small.logBytes,
      log_over_memory: small.logBytes / ctx.params.memory,
      o1_count_us: results.median(O1),
      o1_over_adaptive: secondsOver(results, ADAPTIVE, O1),
      plain_mbps: results.median(PLAIN),
    };
    for (const m of [SINGLE, DOUBLE, ADAPTIVE]) {
      out[`${m}_cpu_ns_per_record`] = median(results.samples(m, 'cpu_ns_per_record'));
      if (large !== null) {
        out[`${m}_large_cpu_ns_per_record`] = median(
          results.samples(m + LARGE, 'cpu_ns_per_record'),
        );
      }
    }
    if (large !== null) {
      out.adaptive_large_over_best_plain = results.median(ADAPTIVE + LARGE) / large.bestPlainMbps;
      out.best_plain_mbps_large = large.bestPlainMbps;
      out.log_bytes_large = large.logBytes;
      out.log_over_memory_large = large.logBytes / ctx.params.memory;
      out.o1_count_us_large = results.median(O1 + LARGE);
      out.o1_large_over_adaptive_large = secondsOver(results, ADAPTIVE + LARGE, O1 + LARGE);
      out.plain_mbps_large = results.median(PLAIN + LARGE);
    }
    return out;
  },

  async teardown(ctx) {
    for (const shape of [ctx.state.small, ctx.state.large]) {
      if (shape === null) continue;
      await shape.handle.close();
      await shape.store.abandon();
    }
  },
});
