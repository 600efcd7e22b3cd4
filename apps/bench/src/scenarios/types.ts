import path from 'node:path';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';
import {
  firstRunMetrics,
  hasRedisServer,
  peakRssMetrics,
  query,
  type ServerProcess,
  sampleRatiosOverRedis,
  startStrataAndRedis,
  startStrataServer,
  stopServers,
} from './server-harness.js';
import { type BenchLoad, benchmarkCommand, sendAll, which } from './types-support.js';

/**
 * One command per collection type through strata-server and redis-server
 * (each alone in its own process, no periodic snapshots), driven by
 * redis-benchmark (50 clients, pipeline 1) in
 * the same rounds: HSET, HGET, SADD, SISMEMBER, ZADD, ZRANGE (0 9), LPUSH,
 * LPOP, each on one key of its type holding `keyspace` members
 * (`__rand_int__` picks the member). Variants `strata-<op>`, `redis-<op>`,
 * ratios `strata-<op>/redis-<op>`; samples `p50_ms`, `p99_ms`.
 *
 * ZADD cost against set size: one-member ZADDs (pipeline 16, so the
 * server's work shows through the network's) on a set of 1K members and on
 * one of `bigMembers` (1M), variants `<server>-zadd-1k` / `-zadd-1m`;
 * `metrics.zadd_1m_over_1k` is strata's ops/s on the small set over ops/s
 * on the big one (the cost ratio; target <= 2), `redis_zadd_1m_over_1k` the
 * same for redis-server. Needs redis-benchmark (the load generator).
 * Metrics also give strata's collection cache (INFO storage) and each
 * server's peak resident set (`<server>_peak_rss_mb`).
 *
 * Beside the tuned strata-server (`strata-...`: `memory`, no periodic
 * checkpoints), `defaults-...` is the same binary with no flags but its
 * port and directory, exactly as `strata-server` starts. `<op>-c500`
 * (HSET, HGET) runs with `manyClients` connections. `p99_ratio.<server>-<op>`
 * is the median p99 over redis-server's (pipeline 1). The first run of
 * each write (HSET, SADD, ZADD) on a fresh server adds new members, later
 * ones mostly update them: it is measured once before the fill and
 * reported apart, `first_run.<server>-<op>` (ops/s) and
 * `first_run_ratio.<server>-<op>` (over redis-server's).
 */

type Params = {
  requests: number;
  keyspace: number;
  clients: number;
  /** Connections of the `-c500` cases. */
  manyClients: number;
  bigMembers: number;
  valueBytes: number;
  memory: number;
};

const OPS = ['hset', 'hget', 'sadd', 'sismember', 'zadd', 'zrange', 'lpush', 'lpop'] as const;
type Op = (typeof OPS)[number];
const SIZES = ['zadd-1k', 'zadd-1m'] as const;
/** The ops also run with many connections (`<op>-c500`). */
const MANY = ['hset', 'hget'] as const;
/** The writes whose first run on a fresh server is reported apart. */
const FIRST = ['hset', 'sadd', 'zadd'] as const;

interface State {
  servers: Record<string, ServerProcess>;
  /** Each write's first run on each fresh server (new members). */
  firstRuns: Record<string, BenchLoad>;
}

const systems = (): string[] =>
  hasRedisServer() ? ['strata', 'defaults', 'redis'] : ['strata', 'defaults'];
const manyOps = (p: Params): string[] => MANY.map((op) => `${op}-c${p.manyClients}`);
/** The ops compared with redis-server's: pipeline 1, 50 and many clients. */
const comparedOps = (p: Params): string[] => [...OPS, ...manyOps(p)];

function command(op: Op, value: string): string[] {
  switch (op) {
    case 'hset':
      return ['HSET', 'types:h', 'f:__rand_int__', value];
    case 'hget':
      return ['HGET', 'types:h', 'f:__rand_int__'];
    case 'sadd':
      return ['SADD', 'types:s', 'm:__rand_int__'];
    case 'sismember':
      return ['SISMEMBER', 'types:s', 'm:__rand_int__'];
    case 'zadd':
      return ['ZADD', 'types:z', '__rand_int__', 'm:__rand_int__'];
    case 'zrange':
      return ['ZRANGE', 'types:z', '0', '9'];
    case 'lpush':
      return ['LPUSH', 'types:l', value];
    case 'lpop':
      return ['LPOP', 'types:l'];
  }
}

/** Fills each type's key with `n` members (and the sorted sets of the size runs). */
async function fill(port: number, p: Params, value: string): Promise<void> {
  const batch = 1000;
  const cmds: string[][] = [];
  for (let i = 0; i < p.keyspace; i += batch) {
    const h = ['HSET', 'types:h'];
    const s = ['SADD', 'types:s'];
    const z = ['ZADD', 'types:z'];
    for (let j = i; j < Math.min(p.keyspace, i + batch); j++) {
      h.push(`f:${String(j).padStart(12, '0')}`, value);
      s.push(`m:${String(j).padStart(12, '0')}`);
      z.push(String(j), `m:${String(j).padStart(12, '0')}`);
    }
    cmds.push(h, s, z);
  }
  for (const [key, n] of [
    ['types:z1k', 1000],
    ['types:z1m', p.bigMembers],
  ] as const) {
    for (let i = 0; i < n; i += batch) {
      const z = ['ZADD', key];
      for (let j = i; j < Math.min(n, i + batch); j++) {
        z.push(String(j), `m:${String(j).padStart(12, '0')}`);
      }
      cmds.push(z);
    }
  }
  await sendAll(port, cmds);
}

/** Database 0's collection cache from INFO storage. */
async function collectionCache(port: number): Promise<{ bytes: number; evictions: number }> {
  const info = await query(port, ['INFO', 'storage']);
  const bytes = /collections_bytes=(\d+)/.exec(info);
  const evictions = /collections_evictions=(\d+)/.exec(info);
  if (bytes === null || evictions === null) throw new Error('INFO storage has no collection cache');
  return { bytes: Number(bytes[1]), evictions: Number(evictions[1]) };
}

export const types = defineScenario<Params, State>({
  name: 'types',
  description:
    'HSET HGET SADD SISMEMBER ZADD ZRANGE LPUSH LPOP through strata-server (tuned, and on its defaults) vs redis-server (redis-benchmark, 50 clients; HSET/HGET at 500); ZADD cost on a 1M-member set over a 1K one',
  params: {
    full: {
      requests: 100_000,
      keyspace: 10_000,
      clients: 50,
      manyClients: 500,
      bigMembers: 1_000_000,
      valueBytes: 16,
      memory: 512 * MiB,
    },
    ci: {
      requests: 5_000,
      keyspace: 1_000,
      clients: 50,
      manyClients: 500,
      bigMembers: 100_000,
      valueBytes: 16,
      memory: 256 * MiB,
    },
  },
  runs: { full: 3, ci: 1 },
  warmup: { full: 1, ci: 0 },
  variants: (p) =>
    systems().flatMap((s) =>
      [...OPS, ...SIZES, ...manyOps(p)].map((op) => higher(`${s}-${op}`, 'ops/s')),
    ),
  ratios: (p) =>
    hasRedisServer()
      ? comparedOps(p).flatMap((op) => [`strata-${op}/redis-${op}`, `defaults-${op}/redis-${op}`])
      : [],

  async setup(ctx) {
    if (which('redis-benchmark') === null) {
      throw new Error('the types scenario needs redis-benchmark (redis-tools)');
    }
    const p = ctx.params;
    const value = 'v'.repeat(p.valueBytes);
    // The decoded collections get half the store's memory: the 1M-member set stays cached.
    const servers = await startStrataAndRedis(
      ctx.dir,
      ['--checkpoint-interval', '0', '--memory', String(p.memory)],
      ctx.log,
    );
    const firstRuns: Record<string, BenchLoad> = {};
    try {
      // As a user starts it: no flags (the harness's port, dir and log level only).
      servers.defaults = await startStrataServer(path.join(ctx.dir, 'defaults'));
      for (const [name, srv] of Object.entries(servers)) {
        for (const op of FIRST) {
          firstRuns[`${name}-${op}`] = await benchmarkCommand(srv.port, command(op, value), {
            requests: p.requests,
            clients: p.clients,
            depth: 1,
            keyspace: p.keyspace,
          });
        }
      }
      for (const [name, srv] of Object.entries(servers)) {
        ctx.log(`${name}: loading ${p.keyspace} members per type and a ${p.bigMembers}-member set`);
        await fill(srv.port, p, value);
      }
    } catch (e) {
      await stopServers(Object.values(servers), 'SIGKILL');
      throw e;
    }
    return { servers, firstRuns };
  },

  async run(variant, ctx): Promise<Measurement> {
    const dash = variant.name.indexOf('-');
    const server = variant.name.slice(0, dash);
    const op = variant.name.slice(dash + 1);
    const port = ctx.state.servers[server]!.port;
    const p = ctx.params;
    const value = 'v'.repeat(p.valueBytes);
    const base = { requests: p.requests, clients: p.clients, depth: 1, keyspace: p.keyspace };
    let load: BenchLoad;
    const many = /^(\w+)-c(\d+)$/.exec(op);
    if (many !== null) {
      load = await benchmarkCommand(port, command(many[1] as Op, value), {
        ...base,
        clients: Number(many[2]),
      });
    } else if (op === 'zadd-1k' || op === 'zadd-1m') {
      const big = op === 'zadd-1m';
      load = await benchmarkCommand(
        port,
        ['ZADD', big ? 'types:z1m' : 'types:z1k', '__rand_int__', 'm:__rand_int__'],
        { ...base, depth: 16, keyspace: big ? p.bigMembers : 1000 },
      );
    } else {
      if (op === 'lpop') {
        // Untimed: the list gets as many elements as the run pops.
        await benchmarkCommand(port, command('lpush', value), { ...base, depth: 16 });
      }
      load = await benchmarkCommand(port, command(op as Op, value), base);
    }
    return { value: load.rps, samples: { p50_ms: load.p50, p99_ms: load.p99 } };
  },

  async metrics(results, ctx) {
    const { servers } = ctx.state;
    const out: Record<string, number> = {
      redis_server: servers.redis !== undefined ? 1 : 0,
      zadd_big_members: ctx.params.bigMembers,
    };
    for (const s of Object.keys(servers)) {
      const small = results.median(`${s}-zadd-1k`);
      const big = results.median(`${s}-zadd-1m`);
      out[s === 'strata' ? 'zadd_1m_over_1k' : `${s}_zadd_1m_over_1k`] = small / big;
    }
    if (servers.redis !== undefined) {
      const ours = ['strata', 'defaults'];
      Object.assign(
        out,
        sampleRatiosOverRedis(results, 'p99_ratio', 'p99_ms', ours, comparedOps(ctx.params)),
      );
    }
    Object.assign(out, firstRunMetrics(ctx.state.firstRuns));
    const cache = await collectionCache(servers.strata!.port);
    out.collection_cache_mb = cache.bytes / MiB;
    out.collection_evictions = cache.evictions;
    Object.assign(out, peakRssMetrics(servers));
    return out;
  },

  async teardown(ctx) {
    await stopServers(Object.values(ctx.state?.servers ?? {}));
  },
});
