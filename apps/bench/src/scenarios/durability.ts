import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { median } from '../stats.js';
import {
  comparedSystems,
  hasRedisServer,
  redisBenchmark,
  type ServerProcess,
  startRedisServer,
  startStrataServer,
  stopServers,
  which,
} from './server-harness.js';

/**
 * SET throughput with the append-only file on, per `appendfsync` policy
 * (always, everysec, no), 50 redis-benchmark clients, pipeline 1, 100-byte
 * values: strata-server (the built binary, apps/server/dist/cli.js) against
 * redis-server with the same settings when it is installed, each in its own
 * process and directory, the variants interleaved in every round
 * (`STRATA_SERVER_CLI=<path>` runs another build of strata-server). Ratios
 * `strata-<policy>/redis-<policy>`; `metrics.always_over_no` is strata's
 * `always` over its `no`, per round then median: what waiting for the disk
 * costs with group commit (target >= 0.5 at 50 clients). Samples per
 * variant: p50/p99 latency and the server's CPU µs per SET.
 */

const POLICIES = ['always', 'everysec', 'no'] as const;
type Policy = (typeof POLICIES)[number];

type Params = {
  requests: number;
  clients: number;
  valueBytes: number;
  keyspace: number;
};

interface State {
  servers: Map<string, ServerProcess>;
}

function startStrata(dir: string, policy: Policy): Promise<ServerProcess> {
  return startStrataServer(dir, ['--appendonly', 'yes', '--appendfsync', policy]);
}

function startRedis(dir: string, policy: Policy): Promise<ServerProcess> {
  return startRedisServer(dir, ['--appendonly', 'yes', '--appendfsync', policy]);
}

export const durability = defineScenario<Params, State>({
  name: 'durability',
  description:
    'SET throughput with the AOF on, appendfsync always/everysec/no, 50 clients, strata-server vs redis-server',
  params: {
    full: { requests: 100_000, clients: 50, valueBytes: 100, keyspace: 100_000 },
    ci: { requests: 10_000, clients: 50, valueBytes: 100, keyspace: 10_000 },
  },
  variants: () =>
    comparedSystems().flatMap((s) => POLICIES.map((p) => higher(`${s}-${p}`, 'ops/s'))),
  ratios: () => [
    ...(hasRedisServer() ? POLICIES.map((p) => `strata-${p}/redis-${p}`) : []),
    'strata-always/strata-no',
  ],
  targets: { 'strata-always/strata-no': 0.5 },

  async setup(ctx) {
    if (which('redis-benchmark') === null) {
      throw new Error('durability needs redis-benchmark (it drives the load)');
    }
    if (!hasRedisServer()) ctx.log('redis-server not installed: strata variants only');
    const servers = new Map<string, ServerProcess>();
    try {
      for (const s of comparedSystems()) {
        for (const p of POLICIES) {
          const dir = path.join(ctx.dir, `${s}-${p}`);
          await mkdir(dir, { recursive: true });
          servers.set(
            `${s}-${p}`,
            s === 'strata' ? await startStrata(dir, p) : await startRedis(dir, p),
          );
        }
      }
    } catch (e) {
      await stopServers(servers.values(), 'SIGKILL');
      throw e;
    }
    return { servers };
  },

  async run(variant, ctx): Promise<Measurement> {
    const server = ctx.state.servers.get(variant.name)!;
    const cpu0 = server.cpuUs();
    const load = await redisBenchmark(server.port, ['-t', 'set'], ctx.params);
    const cpu = (server.cpuUs() - cpu0) / ctx.params.requests;
    return { value: load.rps, samples: { p50_ms: load.p50, p99_ms: load.p99, cpu_us_per_op: cpu } };
  },

  metrics(results) {
    // Per round, then the median (as the runner's ratios): both ran in the same round.
    const perRound = (a: string, b: string) => {
      const xs = results.get(a).values;
      const ys = results.get(b).values;
      return median(xs.map((x, i) => x / ys[i]!));
    };
    const out: Record<string, number> = { always_over_no: perRound('strata-always', 'strata-no') };
    if (hasRedisServer()) out.redis_always_over_no = perRound('redis-always', 'redis-no');
    return out;
  },

  async teardown(ctx) {
    await stopServers(ctx.state?.servers.values() ?? []);
  },
});
