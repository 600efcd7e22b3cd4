import { randomFillSync } from 'node:crypto';
import path from 'node:path';
import { FileDevice } from '@strata/io';
import { DiskReads } from '../disk-stats.js';
import { keepEvicting } from '../page-cache.js';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { KiB, MiB, nextPowerOfTwo } from '../sizes.js';
import { Zipfian } from '../zipfian.js';
import { fillKeys, getLoad } from './get-load.js';
import {
  logBytes,
  peakRssMetrics,
  type ServerProcess,
  startStrataServer,
  stopServers,
} from './server-harness.js';

/**
 * GETs of keys that are not in memory, against the device's own random-read
 * rate, measured in the same run:
 *
 * - `device-q<d>`: random 4 KiB reads (4 KiB aligned) of a file as large as
 *   strata's log, through `@strata/io`'s FileDevice, `d` reads in flight:
 *   the physical limit as this machine gives it, reads/s.
 * - `strata-uniform-q<d>`: GETs through strata-server (its own process, as
 *   users run it, `--memory` `memory`, no periodic checkpoints) of keys
 *   drawn uniformly from `keys` keys whose records are ~16x its memory: `d`
 *   connections, one GET in flight on each. `strata-uniform-q<d>-p<P>`:
 *   the same depth as `d / P` connections of `P` pipelined GETs.
 *   `strata-zipf-q<d>`: Zipfian (theta 0.99, scrambled) keys beside them.
 * - Ratios `strata-...-q<d>/device-q<d>`: `get_over_device` per depth.
 *
 * The page cache could hold all of it (the data is 16x the server's
 * memory, not the machine's), so during every run the bench evicts the
 * scenario's files from it again and again (`posix_fadvise(DONTNEED)`
 * every `evictEveryMs`; no root, no cgroup), device and server alike:
 * reads reach the device but for pages read within the last pass. Samples
 * `device_reads_per_op` and `device_kib_per_op` are the block device's
 * completed reads and the bytes they read (/proc/diskstats, the whole
 * device's: other processes' reads count too) over the run's operations:
 * one read of 4 KiB per GET is the aim (a kernel read-ahead would show as
 * more KiB).
 *
 * The bench and strata-server read through Node's thread pool: its size
 * (UV_THREADPOOL_SIZE) bounds the reads in flight; the bench's is
 * `metrics.bench_threadpool`.
 */

type Params = {
  /** strata-server's `--memory`. */
  memory: number;
  /** strata-server's `--page-size` (its default is 1 MiB). */
  pageSize: number;
  /** Keys loaded: their records are ~16x `memory`. */
  keys: number;
  valueBytes: number;
  /** Queue depths: reads in flight, connections x pipeline. */
  depths: readonly number[];
  /** The pipelined variant's pipeline depth, at the largest depth (0: none). */
  pipeline: number;
  /** Operations per run at depth >= 8 (a quarter at depth 1). */
  requests: number;
  evictEveryMs: number;
  /** How the page cache is kept from holding the data (reported). */
  pageCache: string;
};

interface State {
  server: ServerProcess;
  device: FileDevice;
  deviceBytes: number;
  buffers: Uint8Array[];
  zipf: Zipfian;
  disk: DiskReads | null;
  dataOverMemory: number;
}

const READ = 4 * KiB;
const NAME = 'rand';

type Plan =
  | { kind: 'device'; depth: number }
  | { kind: 'get'; dist: 'uniform' | 'zipf'; depth: number; pipeline: number };

function plans(p: Params): { name: string; plan: Plan }[] {
  const top = Math.max(...p.depths);
  const out: { name: string; plan: Plan }[] = [];
  for (const d of p.depths) out.push({ name: `device-q${d}`, plan: { kind: 'device', depth: d } });
  for (const dist of ['uniform', 'zipf'] as const) {
    for (const d of p.depths) {
      out.push({
        name: `strata-${dist}-q${d}`,
        plan: { kind: 'get', dist, depth: d, pipeline: 1 },
      });
    }
  }
  if (p.pipeline > 1 && top % p.pipeline === 0) {
    out.push({
      name: `strata-uniform-q${top}-p${p.pipeline}`,
      plan: { kind: 'get', dist: 'uniform', depth: top, pipeline: p.pipeline },
    });
  }
  return out;
}

function planOf(p: Params, name: string): Plan {
  const found = plans(p).find((v) => v.name === name);
  if (found === undefined) throw new Error(`unknown variant ${name}`);
  return found.plan;
}

/** Random 4 KiB reads of `[0, bytes)`, `lanes.length` in flight, `total` in all: reads/s. */
async function randomReads(
  device: FileDevice,
  bytes: number,
  lanes: readonly Uint8Array[],
  total: number,
): Promise<number> {
  const blocks = Math.floor(bytes / READ);
  let issued = 0;
  const lane = async (buffer: Uint8Array) => {
    while (issued < total) {
      issued++;
      const n = await device.read(Math.floor(Math.random() * blocks) * READ, buffer);
      if (n !== READ) throw new Error(`device read ${n} of ${READ} bytes`);
    }
  };
  const start = performance.now();
  await Promise.all(lanes.map(lane));
  return (total / (performance.now() - start)) * 1000;
}

/** Writes `bytes` of random data as one segment of a device in `dir`. */
async function writeDeviceFile(dir: string, bytes: number): Promise<FileDevice> {
  const segmentSize = Math.max(nextPowerOfTwo(bytes), MiB);
  const device = await FileDevice.open({ dir, name: NAME, segmentSize });
  const chunk = new Uint8Array(4 * MiB);
  for (let at = 0; at < bytes; at += chunk.byteLength) {
    randomFillSync(chunk);
    await device.write(at, chunk.subarray(0, Math.min(chunk.byteLength, bytes - at)));
  }
  await device.sync();
  return device;
}

export const diskRead = defineScenario<Params, State>({
  name: 'disk-read',
  description:
    'GETs of keys on disk (data 16x memory, uniform and Zipfian) vs the device random 4 KiB read rate, depths 1/8/32',
  params: {
    full: {
      memory: 16 * MiB,
      pageSize: MiB,
      // ~150 bytes a record (16-byte key, 100-byte value, header): 16 x 16 MiB.
      keys: 1_800_000,
      valueBytes: 100,
      depths: [1, 8, 32],
      pipeline: 16,
      requests: 40_000,
      evictEveryMs: 20,
      pageCache: 'evict-loop',
    },
    ci: {
      memory: 2 * MiB,
      pageSize: 256 * KiB,
      keys: 230_000,
      valueBytes: 100,
      depths: [1, 8, 32],
      pipeline: 16,
      requests: 4_000,
      evictEveryMs: 20,
      pageCache: 'evict-loop',
    },
  },
  readsDisk: true,
  variants: (p) => plans(p).map((v) => higher(v.name, 'ops/s')),
  ratios: (p) =>
    plans(p).flatMap(({ name, plan }) =>
      plan.kind === 'get' ? [`${name}/device-q${plan.depth}`] : [],
    ),
  targets: (p) => {
    const top = Math.max(...p.depths);
    return { [`strata-uniform-q${top}/device-q${top}`]: 0.7 };
  },

  async setup(ctx) {
    const p = ctx.params;
    const server = await startStrataServer(path.join(ctx.dir, 'strata'), [
      '--checkpoint-interval',
      '0',
      '--memory',
      String(p.memory),
      '--page-size',
      String(p.pageSize),
    ]);
    try {
      ctx.log(`strata: loading ${p.keys} keys of ${p.valueBytes} bytes`);
      await fillKeys(server.port, p.keys, p.valueBytes);
      const bytes = await logBytes(server.port);
      const deviceBytes = Math.max(READ, Math.floor(bytes / READ) * READ);
      ctx.log(`device: writing ${Math.round(deviceBytes / MiB)} MiB (strata's log size)`);
      const device = await writeDeviceFile(path.join(ctx.dir, 'device'), deviceBytes);
      return {
        server,
        device,
        deviceBytes,
        buffers: Array.from({ length: Math.max(...p.depths) }, () => new Uint8Array(READ)),
        zipf: new Zipfian(p.keys, 0.99),
        disk: DiskReads.of(ctx.dir),
        dataOverMemory: bytes / p.memory,
      };
    } catch (e) {
      await stopServers([server], 'SIGKILL');
      throw e;
    }
  },

  async run(variant, ctx): Promise<Measurement> {
    const p = ctx.params;
    const s = ctx.state;
    const plan = planOf(p, variant.name);
    const ops = plan.depth === 1 ? Math.max(1, Math.floor(p.requests / 4)) : p.requests;
    const stop = keepEvicting(ctx.dir, p.evictEveryMs);
    const reads0 = s.disk?.count();
    const cpu0 = s.server.cpuUs();
    const samples: Record<string, number> = {};
    let value: number;
    try {
      if (plan.kind === 'device') {
        value = await randomReads(s.device, s.deviceBytes, s.buffers.slice(0, plan.depth), ops);
      } else {
        const keys = p.keys;
        const zipf = s.zipf;
        const load = await getLoad(s.server.port, {
          connections: plan.depth / plan.pipeline,
          pipeline: plan.pipeline,
          requests: ops,
          pick:
            plan.dist === 'uniform' ? () => Math.floor(Math.random() * keys) : () => zipf.next(),
        });
        if (load.misses > 0)
          throw new Error(`${load.misses} GETs found no key: the load is broken`);
        value = load.rps;
        samples.p50_ms = load.p50;
        samples.p99_ms = load.p99;
        samples.cpu_us_per_op = (s.server.cpuUs() - cpu0) / ops;
      }
    } finally {
      samples.evict_passes = await stop();
    }
    const reads1 = s.disk?.count();
    if (
      reads0 !== undefined &&
      reads1 !== undefined &&
      Number.isFinite(reads1.reads - reads0.reads)
    ) {
      samples.device_reads_per_op = (reads1.reads - reads0.reads) / ops;
      samples.device_kib_per_op = (reads1.bytes - reads0.bytes) / KiB / ops;
    }
    return { value, samples };
  },

  metrics(results, ctx) {
    const p = ctx.params;
    const out: Record<string, number> = {
      data_over_memory: ctx.state.dataOverMemory,
      device_mib: ctx.state.deviceBytes / MiB,
      bench_threadpool: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
      ...peakRssMetrics({ strata: ctx.state.server }),
    };
    for (const d of p.depths) {
      const device = results.median(`device-q${d}`);
      out[`get_over_device.q${d}`] = results.median(`strata-uniform-q${d}`) / device;
      out[`zipf_over_device.q${d}`] = results.median(`strata-zipf-q${d}`) / device;
    }
    return out;
  },

  async teardown(ctx) {
    const s = ctx.state;
    if (s === undefined) return;
    await s.device.close();
    await stopServers([s.server]);
  },
});
