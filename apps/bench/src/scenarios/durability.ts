import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { median } from '../stats.js';
import {
  childCpuUs,
  freePort,
  redisBenchmark,
  stopChild,
  waitForPing,
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

interface Server {
  port: number;
  child: ChildProcess;
}

interface State {
  servers: Map<string, Server>;
}

/** Where the strata-server build is: STRATA_SERVER_CLI, else apps/server/dist/cli.js; null if none. */
export function findStrataCli(): string | null {
  try {
    return strataCli();
  } catch {
    return null;
  }
}

function strataCli(): string {
  const fromEnv = process.env.STRATA_SERVER_CLI;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const candidates = [
    path.resolve(import.meta.dirname, '../../server/dist/cli.js'),
    path.resolve(import.meta.dirname, '../../../server/dist/cli.js'),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (found === undefined) {
    throw new Error('strata-server is not built: run `pnpm -F @strata/server build` first');
  }
  return found;
}

const hasRedis = () => which('redis-server') !== null;

function systems(): string[] {
  return hasRedis() ? ['strata', 'redis'] : ['strata'];
}

async function startStrata(dir: string, policy: Policy): Promise<Server> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      strataCli(),
      '--port',
      String(port),
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      policy,
      '--log-level',
      'warning',
    ],
    { stdio: 'ignore' },
  );
  await waitForPing(port);
  return { port, child };
}

async function startRedis(dir: string, policy: Policy): Promise<Server> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      policy,
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  await waitForPing(port);
  return { port, child };
}

export const durability = defineScenario<Params, State>({
  name: 'durability',
  description:
    'SET throughput with the AOF on, appendfsync always/everysec/no, 50 clients, strata-server vs redis-server',
  params: {
    full: { requests: 100_000, clients: 50, valueBytes: 100, keyspace: 100_000 },
    ci: { requests: 10_000, clients: 50, valueBytes: 100, keyspace: 10_000 },
  },
  variants: () => systems().flatMap((s) => POLICIES.map((p) => higher(`${s}-${p}`, 'ops/s'))),
  ratios: () => [
    ...(hasRedis() ? POLICIES.map((p) => `strata-${p}/redis-${p}`) : []),
    'strata-always/strata-no',
  ],

  async setup(ctx) {
    if (which('redis-benchmark') === null) {
      throw new Error('durability needs redis-benchmark (it drives the load)');
    }
    if (!hasRedis()) ctx.log('redis-server not installed: strata variants only');
    const servers = new Map<string, Server>();
    try {
      for (const s of systems()) {
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
      for (const srv of servers.values()) await stopChild(srv.child, 'SIGKILL');
      throw e;
    }
    return { servers };
  },

  async run(variant, ctx): Promise<Measurement> {
    const server = ctx.state.servers.get(variant.name)!;
    const cpu0 = childCpuUs(server.child.pid);
    const load = await redisBenchmark(server.port, ['-t', 'set'], ctx.params);
    const cpu = (childCpuUs(server.child.pid) - cpu0) / ctx.params.requests;
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
    if (hasRedis()) out.redis_always_over_no = perRound('redis-always', 'redis-no');
    return out;
  },

  async teardown(ctx) {
    for (const srv of ctx.state?.servers.values() ?? []) await stopChild(srv.child);
  },
});
