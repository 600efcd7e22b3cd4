import net from 'node:net';
import { encodeCommand, ReplyReader } from '@strata/protocol';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';
import {
  hasRedisServer,
  peakRssMetrics,
  redisBenchmark,
  type ServerProcess,
  startStrataAndRedis,
  stopServers,
} from './server-harness.js';
import { which } from './types-support.js';

/**
 * What a dashboard costs: redis-benchmark's SET/GET mix (50 clients) with
 * and without a scraper sending `INFO ALL` every `intervalMs` on its own
 * connection, as redis_exporter or RedisInsight does, for the whole run
 * (a minute at full size). Variants `<server>-plain` and `<server>-scraped`,
 * interleaved; ratios `strata-scraped/strata-plain` (the share of
 * throughput the scrape leaves; issue 24 asks >= 0.95) and the same for
 * redis-server; metrics the scrapes answered and INFO's reply size.
 */

type Params = {
  requests: number;
  clients: number;
  keyspace: number;
  intervalMs: number;
  memory: number;
};

interface State {
  servers: Record<string, ServerProcess>;
  scrapes: Record<string, { count: number; bytes: number }>;
}

const systems = (): string[] => (hasRedisServer() ? ['strata', 'redis'] : ['strata']);

/** Sends INFO ALL every `ms` until stopped; counts the replies. */
function startScraper(port: number, ms: number, tally: { count: number; bytes: number }) {
  const sock = net.connect(port, '127.0.0.1');
  const info = encodeCommand([Buffer.from('INFO'), Buffer.from('ALL')]);
  let waiting = false;
  const reader = new ReplyReader((reply) => {
    waiting = false;
    tally.count++;
    tally.bytes = reply.length;
  });
  sock.on('data', (d: Buffer) => reader.feed(d));
  sock.on('error', () => {});
  const timer = setInterval(() => {
    // A dashboard waits for one answer before asking again.
    if (waiting) return;
    waiting = true;
    sock.write(info);
  }, ms);
  return () => {
    clearInterval(timer);
    sock.destroy();
  };
}

export const infoScrape = defineScenario<Params, State>({
  name: 'info-scrape',
  description:
    'SET/GET throughput with and without an INFO ALL scrape every 100 ms (a dashboard), strata-server and redis-server',
  params: {
    full: {
      requests: 3_000_000,
      clients: 50,
      keyspace: 100_000,
      intervalMs: 100,
      memory: 512 * MiB,
    },
    ci: { requests: 40_000, clients: 20, keyspace: 10_000, intervalMs: 100, memory: 256 * MiB },
  },
  runs: { full: 3, ci: 1 },
  warmup: { full: 1, ci: 0 },
  variants: () =>
    systems().flatMap((s) => [higher(`${s}-plain`, 'ops/s'), higher(`${s}-scraped`, 'ops/s')]),
  ratios: () => systems().map((s) => `${s}-scraped/${s}-plain`),
  targets: { 'strata-scraped/strata-plain': 0.95 },

  async setup(ctx) {
    if (which('redis-benchmark') === null) {
      throw new Error('the info-scrape scenario needs redis-benchmark (redis-tools)');
    }
    const servers = await startStrataAndRedis(
      ctx.dir,
      ['--checkpoint-interval', '0', '--memory', String(ctx.params.memory)],
      ctx.log,
    );
    const scrapes: State['scrapes'] = {};
    for (const s of Object.keys(servers)) scrapes[s] = { count: 0, bytes: 0 };
    return { servers, scrapes };
  },

  async run(variant, ctx): Promise<Measurement> {
    const [server, mode] = variant.name.split('-') as [string, 'plain' | 'scraped'];
    const p = ctx.params;
    const port = ctx.state.servers[server]!.port;
    const stop =
      mode === 'scraped' ? startScraper(port, p.intervalMs, ctx.state.scrapes[server]!) : null;
    try {
      // redis-benchmark's SET and GET one after the other: a read/write mix.
      const o = { requests: p.requests / 2, clients: p.clients, keyspace: p.keyspace };
      const set = await redisBenchmark(port, ['-t', 'set'], o);
      const get = await redisBenchmark(port, ['-t', 'get'], o);
      // The mix's rate: all requests over the time both took.
      const rps = p.requests / (o.requests / set.rps + o.requests / get.rps);
      return { value: rps, samples: { set_p99_ms: set.p99, get_p99_ms: get.p99 } };
    } finally {
      stop?.();
    }
  },

  async metrics(_results, ctx) {
    const out: Record<string, number> = { interval_ms: ctx.params.intervalMs };
    for (const [s, t] of Object.entries(ctx.state.scrapes)) {
      out[`${s}_scrapes`] = t.count;
      out[`${s}_info_bytes`] = t.bytes;
    }
    Object.assign(out, peakRssMetrics(ctx.state.servers));
    return out;
  },

  async teardown(ctx) {
    await stopServers(Object.values(ctx.state?.servers ?? {}));
  },
});
