import path from 'node:path';
import { encodeCommand } from '@strata/protocol';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';
import { keyOf, loadOf } from './get-load.js';
import { runPipelined } from './pipelined.js';
import {
  type BenchLoad,
  firstRunMetrics,
  hasRedisServer,
  logBytes,
  peakRssMetrics,
  query,
  redisBenchmark,
  type ServerProcess,
  sampleRatiosOverRedis,
  startRedisServer,
  startStrataServer,
  stopServers,
  which,
} from './server-harness.js';

/**
 * GET and SET through strata-server, 50 connections,
 * pipeline depths 1 and 16 (cases `<op>-p<depth>`), and 500 connections at
 * pipeline 1 (`<op>-p1-c500`, `manyClients`), 16-byte keys (`key:000000012345`), 100-byte
 * values, data in memory. Load from `redis-benchmark` when installed, else
 * a built-in Node generator (net sockets, pipelined RESP). When
 * `redis-server` is installed, the same load runs against it in the same
 * rounds: variants `strata-<op>-p<depth>`, `redis-<op>-p<depth>`, ratios
 * `strata-x/redis-x`; samples `p50_ms`, `p99_ms` per variant.
 *
 * Every server runs alone in its own process, as users run it: the built
 * strata-server binary (`STRATA_SERVER_CLI=<path>` runs another build) with
 * periodic checkpoints off and `memory` (`strata-...`, the tuned one), the
 * same binary with no flags at all but its port and directory
 * (`defaults-...`: exactly as `strata-server` starts, 64 MiB, periodic
 * checkpoints on), and redis-server with no snapshots or AOF.
 *
 * The first run against a fresh server inserts most keys; later ones update
 * them. Each in-memory server's first SET run (pipeline 16, before the fill)
 * is reported apart, as `metrics.first_run.<server>` (ops/s),
 * `first_run_p99_ms.<server>` and `first_run_ratio.<server>` (over
 * redis-server's first run); every variant's runs come after the fill: the
 * steady state (updates). `metrics.p99_ratio.<server>-<case>` is the
 * median p99 latency over redis-server's in the same case (P1 rows
 * included: `p99_ratio.strata-get-p1`).
 *
 * Data 16x memory: a second strata-server (`strata16x-...`) whose store has
 * `diskMemory` bytes of memory and 16 times that in keys (`diskKeyspace`,
 * filled before the runs), so most GETs read the device and SETs push pages
 * out; its runs send `diskRequests`. Ratios `strata16x-x/redis-x` compare
 * it with redis-server in memory (the `redis-...` runs, over `keyspace`);
 * `metrics.strata16x_data_over_memory` is the log's size over its memory.
 * After each of its runs (untimed) a DBSIZE waits for the store's live-count
 * resolutions (sample `settle_ms`), so they do not land on the next run.
 *
 * CPU per operation (sample `cpu_us_per_op`): the server process's user +
 * system CPU time over the run (/proc/<pid>/stat) divided by the requests.
 * It does not depend
 * on how busy the machine is, unlike ops/s on a shared box; metrics
 * `cpu_ratio.<case>` = strata's over redis's (medians).
 * `metrics.load_redis_benchmark` is 1 when redis-benchmark drove the load;
 * `metrics.<server>_peak_rss_mb` each server's peak resident set.
 */

type Params = {
  requests: number;
  keyspace: number;
  clients: number;
  pipelines: readonly number[];
  /** Connections of the many-clients case (pipeline 1). */
  manyClients: number;
  valueBytes: number;
  memory: number;
  /** Memory of the `strata16x` server's store; it holds 16 times that in keys. */
  diskMemory: number;
  /** Keys loaded into the `strata16x` server (16x diskMemory of records). */
  diskKeyspace: number;
  /** Requests of each `strata16x` run. */
  diskRequests: number;
};

interface State {
  servers: Record<string, ServerProcess>;
  useBenchmark: boolean;
  /** Each in-memory server's first SET run, on the fresh server (mostly inserts). */
  firstRuns: Record<string, BenchLoad>;
}

const OPS = ['set', 'get'] as const;

const hasRedisBenchmark = () => which('redis-benchmark') !== null;

/** The servers whose data is in memory: they run every case. */
function memoryServers(): string[] {
  return hasRedisServer() ? ['strata', 'defaults', 'redis'] : ['strata', 'defaults'];
}

/** `<op>-p<depth>` at `clients` connections. */
function cases(p: Params): string[] {
  return OPS.flatMap((op) => p.pipelines.map((d) => `${op}-p${d}`));
}

/** The cases of the in-memory servers: `cases`, and `<op>-p1-c<manyClients>`. */
function memoryCases(p: Params): string[] {
  return [...cases(p), ...OPS.map((op) => `${op}-p1-c${p.manyClients}`)];
}

/** Which server, op, depth and connections a variant name says. */
function parseVariant(name: string): {
  server: string;
  op: string;
  depth: number;
  clients?: number;
} {
  const m = /^(\w+)-(set|get)-p(\d+)(?:-c(\d+))?$/.exec(name);
  if (m === null) throw new Error(`unknown variant ${name}`);
  return {
    server: m[1]!,
    op: m[2]!,
    depth: Number(m[3]),
    ...(m[4] === undefined ? {} : { clients: Number(m[4]) }),
  };
}

/** The redis-benchmark load of one case: `op` (set, get) at pipeline `depth`. */
function benchmarkLoad(port: number, op: string, depth: number, p: Params): Promise<BenchLoad> {
  return redisBenchmark(port, ['-t', op], {
    clients: p.clients,
    depth,
    requests: p.requests,
    valueBytes: p.valueBytes,
    keyspace: p.keyspace,
  });
}

/** The built-in generator: `clients` sockets, batches of `depth` commands. */
async function nodeLoad(port: number, op: string, depth: number, p: Params): Promise<BenchLoad> {
  const value = Buffer.alloc(p.valueBytes, 0x78);
  const latencies: number[] = [];
  let issued = 0;
  const start = performance.now();
  const client = () => {
    let sent = 0;
    return runPipelined(port, {
      next() {
        const n = Math.min(depth, p.requests - issued);
        if (n <= 0) return null;
        issued += n;
        const batch: Buffer[] = [];
        for (let i = 0; i < n; i++) {
          const k = keyOf(Math.floor(Math.random() * p.keyspace));
          batch.push(encodeCommand(op === 'set' ? ['SET', k, value] : ['GET', k]));
        }
        sent = performance.now();
        return { bytes: n === 1 ? batch[0]! : Buffer.concat(batch), commands: n };
      },
      onBatchDone: () => latencies.push(performance.now() - sent),
    });
  };
  await Promise.all(Array.from({ length: p.clients }, client));
  return loadOf(p.requests, performance.now() - start, latencies);
}

export const respThroughput = defineScenario<Params, State>({
  name: 'resp-throughput',
  description:
    'GET/SET through strata-server (tuned, and on its defaults) vs redis-server, 50 clients at pipeline 1 and 16, 500 at pipeline 1 (redis-benchmark load)',
  params: {
    full: {
      requests: 200_000,
      keyspace: 100_000,
      clients: 50,
      pipelines: [1, 16],
      manyClients: 500,
      valueBytes: 100,
      memory: 256 * MiB,
      diskMemory: 16 * MiB,
      // ~150 bytes a record (16-byte key, 100-byte value, header): 16 x 16 MiB.
      diskKeyspace: 1_800_000,
      diskRequests: 50_000,
    },
    ci: {
      requests: 20_000,
      keyspace: 10_000,
      clients: 50,
      pipelines: [1, 16],
      manyClients: 500,
      valueBytes: 100,
      memory: 64 * MiB,
      diskMemory: 2 * MiB,
      diskKeyspace: 230_000,
      diskRequests: 5_000,
    },
  },
  variants: (p) => [
    ...memoryServers().flatMap((s) => memoryCases(p).map((c) => higher(`${s}-${c}`, 'ops/s'))),
    ...cases(p).map((c) => higher(`strata16x-${c}`, 'ops/s')),
  ],
  ratios: (p) =>
    hasRedisServer()
      ? [
          ...memoryCases(p).flatMap((c) => [`strata-${c}/redis-${c}`, `defaults-${c}/redis-${c}`]),
          ...cases(p).map((c) => `strata16x-${c}/redis-${c}`),
        ]
      : [],

  async setup(ctx) {
    const p = ctx.params;
    const useBenchmark = hasRedisBenchmark();
    if (!useBenchmark)
      ctx.log('redis-benchmark not installed: using the built-in Node load generator');
    const servers: Record<string, ServerProcess> = {};
    const state: State = { servers, useBenchmark, firstRuns: {} };
    try {
      const quiet = ['--checkpoint-interval', '0'];
      servers.strata = await startStrataServer(path.join(ctx.dir, 'strata'), [
        ...quiet,
        '--memory',
        String(p.memory),
      ]);
      // Small pages, so 16x memory is many pages and reads fetch records, not whole pages.
      servers.strata16x = await startStrataServer(path.join(ctx.dir, 'strata16x'), [
        ...quiet,
        '--memory',
        String(p.diskMemory),
        '--page-size',
        String(256 * 1024),
      ]);
      // As a user starts it: no flags (the harness's port, dir and log level only).
      servers.defaults = await startStrataServer(path.join(ctx.dir, 'defaults'));
      if (hasRedisServer()) servers.redis = await startRedisServer(ctx.dir);
      else ctx.log('redis-server not installed: strata variants only');
      // The first SET run on each fresh in-memory server: mostly inserts, reported apart.
      const firstRuns: Record<string, BenchLoad> = {};
      const depth = Math.max(...p.pipelines);
      for (const name of memoryServers()) {
        ctx.log(`${name}: first SET run (pipeline ${depth}) on the fresh server`);
        firstRuns[name] = await (useBenchmark ? benchmarkLoad : nodeLoad)(
          servers[name]!.port,
          'set',
          depth,
          p,
        );
      }
      state.firstRuns = firstRuns;
      // Fill the keyspace so GETs hit (data in memory).
      for (const [name, t] of Object.entries(servers)) {
        const keyspace = name === 'strata16x' ? p.diskKeyspace : p.keyspace;
        ctx.log(`${name}: loading ${keyspace} keys`);
        const fill = { ...p, keyspace, requests: keyspace * 2 };
        await (useBenchmark ? benchmarkLoad : nodeLoad)(t.port, 'set', 16, fill);
      }
    } catch (err) {
      await stopServers(Object.values(servers), 'SIGKILL');
      throw err;
    }
    return state;
  },

  async run(variant, ctx): Promise<Measurement> {
    const v = parseVariant(variant.name);
    const name = v.server;
    const target = ctx.state.servers[name]!;
    const p = ctx.params;
    const params =
      name === 'strata16x'
        ? { ...p, keyspace: p.diskKeyspace, requests: p.diskRequests }
        : { ...p, clients: v.clients ?? p.clients };
    const cpu0 = target.cpuUs();
    const load = await (ctx.state.useBenchmark ? benchmarkLoad : nodeLoad)(
      target.port,
      v.op,
      v.depth,
      params,
    );
    const cpuUsPerOp = (target.cpuUs() - cpu0) / params.requests;
    const samples: Record<string, number> = {
      p50_ms: load.p50,
      p99_ms: load.p99,
      cpu_us_per_op: cpuUsPerOp,
    };
    if (name === 'strata16x') {
      // Blind SETs of keys on disk leave the live count's resolutions
      // (device reads) running after the load; untimed, they end here (DBSIZE
      // waits for them), so the next variant does not share the CPU with them.
      const settle = performance.now();
      await query(target.port, ['DBSIZE']);
      samples.settle_ms = performance.now() - settle;
    }
    return { value: load.rps, samples };
  },

  async metrics(results, ctx) {
    const { servers } = ctx.state;
    const out: Record<string, number> = {
      load_redis_benchmark: ctx.state.useBenchmark ? 1 : 0,
      redis_server: servers.redis !== undefined ? 1 : 0,
    };
    if (servers.redis !== undefined) {
      for (const [key, sample] of [
        ['cpu_ratio', 'cpu_us_per_op'],
        ['p99_ratio', 'p99_ms'],
      ] as const) {
        const mem = memoryCases(ctx.params);
        Object.assign(
          out,
          sampleRatiosOverRedis(results, key, sample, ['strata', 'defaults'], mem),
        );
        // strata16x runs the 50-client cases only.
        Object.assign(
          out,
          sampleRatiosOverRedis(results, key, sample, ['strata16x'], cases(ctx.params)),
        );
      }
    }
    Object.assign(out, firstRunMetrics(ctx.state.firstRuns));
    for (const [name, load] of Object.entries(ctx.state.firstRuns)) {
      out[`first_run_p99_ms.${name}`] = load.p99;
    }
    Object.assign(out, peakRssMetrics(servers));
    out.strata16x_data_over_memory =
      (await logBytes(servers.strata16x!.port)) / ctx.params.diskMemory;
    return out;
  },

  async teardown(ctx) {
    await stopServers(Object.values(ctx.state?.servers ?? {}));
  },
});
