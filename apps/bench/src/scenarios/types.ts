import type { spawn } from 'node:child_process';
import path from 'node:path';
import { RespServer } from '@strata/resp';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';
import {
  type BenchLoad,
  benchmarkCommand,
  sendAll,
  startRedisServer,
  which,
} from './types-support.js';

/**
 * One command per collection type through strata's RespServer (in process)
 * and redis-server, driven by redis-benchmark (50 clients, pipeline 1) in
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
 */

type Params = {
  requests: number;
  keyspace: number;
  clients: number;
  bigMembers: number;
  valueBytes: number;
  memory: number;
};

const OPS = ['hset', 'hget', 'sadd', 'sismember', 'zadd', 'zrange', 'lpush', 'lpop'] as const;
type Op = (typeof OPS)[number];
const SIZES = ['zadd-1k', 'zadd-1m'] as const;

interface State {
  strata: RespServer;
  ports: Record<string, number>;
  redis: ReturnType<typeof spawn> | null;
}

const hasRedisServer = () => which('redis-server') !== null;
const servers = (): string[] => (hasRedisServer() ? ['strata', 'redis'] : ['strata']);

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

export const types = defineScenario<Params, State>({
  name: 'types',
  description:
    'HSET HGET SADD SISMEMBER ZADD ZRANGE LPUSH LPOP through RespServer vs redis-server (redis-benchmark, 50 clients); ZADD cost on a 1M-member set over a 1K one',
  params: {
    full: {
      requests: 100_000,
      keyspace: 10_000,
      clients: 50,
      bigMembers: 1_000_000,
      valueBytes: 16,
      memory: 512 * MiB,
    },
    ci: {
      requests: 5_000,
      keyspace: 1_000,
      clients: 50,
      bigMembers: 100_000,
      valueBytes: 16,
      memory: 256 * MiB,
    },
  },
  runs: { full: 3, ci: 1 },
  warmup: { full: 1, ci: 0 },
  variants: () =>
    servers().flatMap((s) => [...OPS, ...SIZES].map((op) => higher(`${s}-${op}`, 'ops/s'))),
  ratios: () => (hasRedisServer() ? OPS.map((op) => `strata-${op}/redis-${op}`) : []),

  async setup(ctx) {
    if (which('redis-benchmark') === null) {
      throw new Error('the types scenario needs redis-benchmark (redis-tools)');
    }
    const p = ctx.params;
    const value = 'v'.repeat(p.valueBytes);
    // The decoded collections get half the store's memory: the 1M-member set stays cached.
    const strata = new RespServer({
      databases: { dir: path.join(ctx.dir, 'strata'), store: { memory: p.memory } },
    });
    const ports: Record<string, number> = { strata: (await strata.listen(0)).port };
    let redis: ReturnType<typeof spawn> | null = null;
    try {
      if (hasRedisServer()) {
        const r = await startRedisServer(ctx.dir);
        redis = r.child;
        ports.redis = r.port;
      } else ctx.log('redis-server not installed: strata variants only');
      for (const [name, port] of Object.entries(ports)) {
        ctx.log(`${name}: loading ${p.keyspace} members per type and a ${p.bigMembers}-member set`);
        await fill(port, p, value);
      }
    } catch (e) {
      redis?.kill('SIGKILL');
      await strata.close();
      throw e;
    }
    return { strata, ports, redis };
  },

  async run(variant, ctx): Promise<Measurement> {
    const dash = variant.name.indexOf('-');
    const server = variant.name.slice(0, dash);
    const op = variant.name.slice(dash + 1);
    const port = ctx.state.ports[server]!;
    const p = ctx.params;
    const value = 'v'.repeat(p.valueBytes);
    const base = { requests: p.requests, clients: p.clients, depth: 1, keyspace: p.keyspace };
    let load: BenchLoad;
    if (op === 'zadd-1k' || op === 'zadd-1m') {
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

  metrics(results, ctx) {
    const out: Record<string, number> = {
      redis_server: ctx.state.redis !== null ? 1 : 0,
      zadd_big_members: ctx.params.bigMembers,
    };
    for (const s of servers()) {
      const small = results.median(`${s}-zadd-1k`);
      const big = results.median(`${s}-zadd-1m`);
      out[s === 'strata' ? 'zadd_1m_over_1k' : `${s}_zadd_1m_over_1k`] = small / big;
    }
    const z = ctx.state.strata.keyspace.collections(0)?.stats();
    if (z !== undefined) {
      out.collection_cache_mb = z.bytes / MiB;
      out.collection_evictions = z.evictions;
    }
    out.rss_mb = process.memoryUsage().rss / MiB;
    return out;
  },

  async teardown(ctx) {
    const { redis, strata } = ctx.state;
    if (redis !== null && redis.exitCode === null) {
      const exited = new Promise((r) => redis.once('exit', r));
      redis.kill('SIGKILL');
      await exited;
    }
    await strata.close();
  },
});
