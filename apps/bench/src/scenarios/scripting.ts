import { createHash, randomInt } from 'node:crypto';
import net from 'node:net';
import { encodeCommand, ReplyReader } from '@strata/protocol';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { median } from '../stats.js';
import {
  hasRedisServer,
  peakRssMetrics,
  query,
  redisBenchmark,
  type ServerProcess,
  startStrataAndRedis,
  stopServers,
  which,
} from './server-harness.js';

/**
 * Lua scripts through strata-server and redis-server, in the same rounds,
 * driven by redis-benchmark (`clients` connections, pipeline `depth`) with
 * EVALSHA of scripts loaded in setup:
 *
 * - `evalsha1`: one command, `INCR` of a random key (`KEYS[1]`);
 * - `evalsha10`: ten commands on keys derived from a random key (SET, GET,
 *   INCR, HSET, HGET, LPUSH, LTRIM, ZADD, ZSCORE, EXISTS): the crossing
 *   into Lua and back, ten times a call;
 * - `movetoactive`: BullMQ's moveToActive in miniature over one queue:
 *   RPOPLPUSH wait -> active, SET the job's lock with PX, HSET and HINCRBY
 *   on its hash, ZADD to a sorted set, HGETALL, then LREM from active and
 *   LPUSH back to wait so the queue stays as it was (1000 jobs).
 *
 * Variants `<server>-<case>` (ops/s), ratios `strata-<case>/redis-<case>`
 * (target >= 0.7), sample `cpu_us_per_op` (the server's CPU over the run,
 * per script call; `cpu_ratio.<case>` is strata's over redis's). After
 * each run the calls are counted on the server (`INCR` of a counter in
 * every script), so a run whose scripts failed is an error, not a number.
 * strata-server runs with `--memory 256mb` (the data set stays in memory,
 * as redis-server's does; the scripts' cost is what is measured, not the
 * disk's). `<server>_peak_rss_mb`: each server's peak resident set. Without
 * redis-benchmark a Node load in this process sends the same commands
 * (`clients` connections, one command in flight each); metric
 * `load_redis_benchmark` says which drove the load.
 */

type Params = {
  requests: number;
  clients: number;
  /** Pipeline depth (redis-benchmark -P). */
  depth: number;
  /** Random keys of evalsha1 and evalsha10 are below this. */
  keyspace: number;
  /** Jobs in the movetoactive queue. */
  jobs: number;
};

interface State {
  servers: Record<string, ServerProcess>;
}

const CALLS = 'sc:calls';

const SCRIPTS = {
  evalsha1: `redis.call('INCR', '${CALLS}')
return redis.call('INCR', KEYS[1])`,
  evalsha10: `local k = KEYS[1]
redis.call('SET', k, 'value')
redis.call('GET', k)
redis.call('INCR', '${CALLS}')
redis.call('HSET', k .. ':h', 'f', 'value')
redis.call('HGET', k .. ':h', 'f')
redis.call('LPUSH', k .. ':l', 'value')
redis.call('LTRIM', k .. ':l', 0, 9)
redis.call('ZADD', k .. ':z', 1, 'value')
redis.call('ZSCORE', k .. ':z', 'value')
return redis.call('EXISTS', k)`,
  movetoactive: `local id = redis.call('RPOPLPUSH', KEYS[1], KEYS[2])
if not id then return redis.error_reply('ERR empty queue') end
local job = ARGV[1] .. id
redis.call('SET', job .. ':lock', 'token', 'PX', 30000)
redis.call('HSET', job, 'processedOn', ARGV[2])
redis.call('HINCRBY', job, 'attemptsStarted', 1)
redis.call('ZADD', KEYS[3], ARGV[2], id)
local fields = redis.call('HGETALL', job)
redis.call('LREM', KEYS[2], 1, id)
redis.call('LPUSH', KEYS[1], id)
redis.call('INCR', '${CALLS}')
return {id, #fields}`,
} as const;

type Case = keyof typeof SCRIPTS;
const CASES = Object.keys(SCRIPTS) as Case[];

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

function servers(): string[] {
  return hasRedisServer() ? ['strata', 'redis'] : ['strata'];
}

/** The EVALSHA command line redis-benchmark sends for a case. */
function command(c: Case): string[] {
  const sha = sha1(SCRIPTS[c]);
  if (c === 'movetoactive') {
    return ['EVALSHA', sha, '3', 'q:wait', 'q:active', 'q:seen', 'q:job:', '1733200000000'];
  }
  return ['EVALSHA', sha, '1', `sc:${c}:__rand_int__`];
}

const hasRedisBenchmark = () => which('redis-benchmark') !== null;

/** The fallback load: `clients` connections, one command in flight each, `__rand_int__` replaced. */
async function nodeLoad(port: number, argv: readonly string[], p: Params): Promise<number> {
  let issued = 0;
  const start = performance.now();
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1');
      s.setNoDelay(true);
      const reader = new ReplyReader();
      const send = () => {
        if (issued >= p.requests) {
          s.destroy();
          resolve();
          return;
        }
        issued++;
        const key = String(randomInt(p.keyspace)).padStart(12, '0');
        s.write(encodeCommand(argv.map((a) => a.replace('__rand_int__', key))));
      };
      s.on('data', (d) => {
        if (reader.feed(d) > 0) {
          if (reader.last[0] === 0x2d) {
            s.destroy();
            reject(new Error(reader.last.toString('latin1')));
            return;
          }
          send();
        }
      });
      s.once('error', reject);
      s.once('connect', send);
    });
  await Promise.all(Array.from({ length: p.clients }, one));
  return (p.requests / (performance.now() - start)) * 1000;
}

async function seed(port: number, p: Params): Promise<void> {
  for (const [c, body] of Object.entries(SCRIPTS)) {
    const sha = await query(port, ['SCRIPT', 'LOAD', body]);
    if (sha !== sha1(body)) throw new Error(`SCRIPT LOAD ${c} answered ${sha}`);
  }
  await query(port, ['DEL', 'q:wait', 'q:active', 'q:seen']);
  for (let from = 0; from < p.jobs; from += 500) {
    const ids = Array.from({ length: Math.min(500, p.jobs - from) }, (_, i) => String(from + i));
    await query(port, ['RPUSH', 'q:wait', ...ids]);
  }
  for (let i = 0; i < p.jobs; i++) {
    await query(port, [
      'HSET',
      `q:job:${i}`,
      'name',
      'job',
      'data',
      '{"n":1}',
      'attemptsStarted',
      '0',
    ]);
  }
}

export const scripting = defineScenario<Params, State>({
  name: 'scripting',
  description:
    'EVALSHA of a 1-command script, a 10-command script and a BullMQ-style moveToActive, strata vs redis-server',
  params: {
    full: { requests: 200_000, clients: 50, depth: 1, keyspace: 100_000, jobs: 1000 },
    ci: { requests: 20_000, clients: 20, depth: 1, keyspace: 10_000, jobs: 200 },
  },
  variants: () => servers().flatMap((s) => CASES.map((c) => higher(`${s}-${c}`, 'ops/s'))),
  ratios: () => (hasRedisServer() ? CASES.map((c) => `strata-${c}/redis-${c}`) : []),
  targets: () =>
    hasRedisServer() ? Object.fromEntries(CASES.map((c) => [`strata-${c}/redis-${c}`, 0.7])) : {},

  async setup(ctx) {
    // Memory for the whole data set (as redis-server holds it): with the
    // default 64 MiB, the full size's ~1M keys and collections went to disk
    // and the scripts waited for their keys' reads (strata-server's
    // resp-throughput `strata` variant runs with the same flags).
    const started = await startStrataAndRedis(
      ctx.dir,
      ['--memory', '256mb', '--checkpoint-interval', '0'],
      ctx.log,
    );
    for (const s of Object.values(started)) await seed(s.port, ctx.params);
    return { servers: started };
  },

  async run(variant, ctx): Promise<Measurement> {
    const [server, c] = variant.name.split('-') as [string, Case];
    const target = ctx.state.servers[server]!;
    const p = ctx.params;
    const before = Number(await query(target.port, ['GET', CALLS]));
    const cpu0 = target.cpuUs();
    const rps = hasRedisBenchmark()
      ? (
          await redisBenchmark(target.port, command(c), {
            clients: p.clients,
            requests: p.requests,
            keyspace: p.keyspace,
            depth: p.depth,
          })
        ).rps
      : await nodeLoad(target.port, command(c), p);
    const cpu = target.cpuUs() - cpu0;
    const calls = Number(await query(target.port, ['GET', CALLS])) - before;
    // redis-benchmark may send a few more than asked (its clients race for the last ones).
    if (calls < p.requests || calls > p.requests + p.clients) {
      throw new Error(`${variant.name}: ${calls} of ${p.requests} scripts ran to their end`);
    }
    return { value: rps, samples: { cpu_us_per_op: cpu / p.requests } };
  },

  async metrics(results, ctx) {
    const { servers: running } = ctx.state;
    const out: Record<string, number> = {
      redis_server: running.redis !== undefined ? 1 : 0,
      load_redis_benchmark: hasRedisBenchmark() ? 1 : 0,
    };
    if (running.redis !== undefined) {
      for (const c of CASES) {
        const mine = median(results.samples(`strata-${c}`, 'cpu_us_per_op'));
        const redis = median(results.samples(`redis-${c}`, 'cpu_us_per_op'));
        if (Number.isFinite(mine / redis)) out[`cpu_ratio.${c}`] = mine / redis;
      }
    }
    Object.assign(out, peakRssMetrics(running));
    return out;
  },

  async teardown(ctx) {
    await stopServers(Object.values(ctx.state?.servers ?? {}));
  },
});
