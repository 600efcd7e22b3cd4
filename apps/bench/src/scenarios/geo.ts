import { defineScenario, higher, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';
import {
  hasRedisServer,
  peakRssMetrics,
  type ServerProcess,
  startStrataAndRedis,
  stopServers,
} from './server-harness.js';
import { benchmarkCommand, sendAll, which } from './types-support.js';

/**
 * Geo commands through strata-server and redis-server, driven by
 * redis-benchmark in the same rounds, on one key of `points` places spread
 * over Europe (a deterministic grid, jittered): GEOADD of a new member,
 * GEOPOS and GEODIST of existing ones, GEOSEARCH of a 50 km radius (a few
 * dozen places found among the 9 cells' candidates) and of a 10 km box
 * with COUNT 10 ASC, and GEOSEARCHSTORE ... STOREDIST (distances computed
 * with glibc's rounding, `geo/libm.ts`, the slower trigonometry).
 * Variants `<server>-<op>`, ratios `strata-<op>/redis-<op>`; samples
 * `p50_ms`, `p99_ms`; metrics each server's peak resident set.
 */

type Params = {
  requests: number;
  /** The searches' requests: each reads and answers hundreds of places. */
  searchRequests: number;
  points: number;
  clients: number;
  memory: number;
};

const OPS = ['geoadd', 'geopos', 'geodist', 'radius', 'box-count', 'storedist'] as const;
type Op = (typeof OPS)[number];
const SEARCHES: ReadonlySet<Op> = new Set(['radius', 'storedist']);

interface State {
  servers: Record<string, ServerProcess>;
}

const systems = (): string[] => (hasRedisServer() ? ['strata', 'redis'] : ['strata']);

/** Place `i` of `n`: a grid over lon -10..30, lat 36..60, moved a little by a fixed hash. */
function place(i: number, n: number): [lon: number, lat: number] {
  const side = Math.ceil(Math.sqrt(n));
  const jitter = ((i * 2654435761) % 1000) / 1000;
  return [
    -10 + (40 * ((i % side) + jitter)) / side,
    36 + (24 * (Math.floor(i / side) + jitter)) / side,
  ];
}

function command(op: Op, points: number): string[] {
  switch (op) {
    case 'geoadd':
      return ['GEOADD', 'geo:new', '13.361389', '38.115556', 'p:__rand_int__'];
    case 'geopos':
      return ['GEOPOS', 'geo:eu', 'p:__rand_int__'];
    case 'geodist':
      return ['GEODIST', 'geo:eu', 'p:__rand_int__', `p:${Math.floor(points / 2)}`, 'km'];
    case 'radius':
      return ['GEOSEARCH', 'geo:eu', 'FROMLONLAT', '10', '48', 'BYRADIUS', '50', 'km'];
    case 'box-count':
      return [
        'GEOSEARCH',
        'geo:eu',
        'FROMLONLAT',
        '2.35',
        '48.85',
        'BYBOX',
        '10',
        '10',
        'km',
        'COUNT',
        '10',
        'ASC',
      ];
    case 'storedist':
      return [
        'GEOSEARCHSTORE',
        'geo:near',
        'geo:eu',
        'FROMLONLAT',
        '10',
        '48',
        'BYRADIUS',
        '50',
        'km',
        'STOREDIST',
      ];
  }
}

async function fill(port: number, points: number): Promise<void> {
  const batch = 500;
  const cmds: string[][] = [];
  for (let i = 0; i < points; i += batch) {
    const add = ['GEOADD', 'geo:eu'];
    for (let j = i; j < Math.min(points, i + batch); j++) {
      const [lon, lat] = place(j, points);
      add.push(lon.toFixed(6), lat.toFixed(6), `p:${j}`);
    }
    cmds.push(add);
  }
  await sendAll(port, cmds);
}

export const geo = defineScenario<Params, State>({
  name: 'geo',
  description:
    'GEOADD GEOPOS GEODIST GEOSEARCH (radius; box COUNT ASC) GEOSEARCHSTORE STOREDIST on a 1M-place key vs redis-server (redis-benchmark)',
  params: {
    full: {
      requests: 50_000,
      searchRequests: 5_000,
      points: 1_000_000,
      clients: 50,
      memory: 512 * MiB,
    },
    ci: { requests: 2_000, searchRequests: 200, points: 20_000, clients: 20, memory: 256 * MiB },
  },
  runs: { full: 3, ci: 1 },
  warmup: { full: 1, ci: 0 },
  variants: () => systems().flatMap((s) => OPS.map((op) => higher(`${s}-${op}`, 'ops/s'))),
  ratios: () => (hasRedisServer() ? OPS.map((op) => `strata-${op}/redis-${op}`) : []),

  async setup(ctx) {
    if (which('redis-benchmark') === null) {
      throw new Error('the geo scenario needs redis-benchmark (redis-tools)');
    }
    const p = ctx.params;
    const servers = await startStrataAndRedis(
      ctx.dir,
      ['--checkpoint-interval', '0', '--memory', String(p.memory)],
      ctx.log,
    );
    try {
      for (const [name, srv] of Object.entries(servers)) {
        ctx.log(`${name}: loading ${p.points} places`);
        await fill(srv.port, p.points);
      }
    } catch (e) {
      await stopServers(Object.values(servers), 'SIGKILL');
      throw e;
    }
    return { servers };
  },

  async run(variant, ctx): Promise<Measurement> {
    const dash = variant.name.indexOf('-');
    const server = variant.name.slice(0, dash);
    const op = variant.name.slice(dash + 1) as Op;
    const p = ctx.params;
    const load = await benchmarkCommand(ctx.state.servers[server]!.port, command(op, p.points), {
      requests: SEARCHES.has(op) ? p.searchRequests : p.requests,
      clients: p.clients,
      depth: 1,
      keyspace: p.points,
    });
    return { value: load.rps, samples: { p50_ms: load.p50, p99_ms: load.p99 } };
  },

  async metrics(_results, ctx) {
    return {
      redis_server: ctx.state.servers.redis !== undefined ? 1 : 0,
      points: ctx.params.points,
      ...peakRssMetrics(ctx.state.servers),
    };
  },

  async teardown(ctx) {
    await stopServers(Object.values(ctx.state?.servers ?? {}));
  },
});
