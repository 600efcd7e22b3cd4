import net from 'node:net';
import { encodeCommand, ReplyReader } from '@strata/protocol';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { median } from '../stats.js';
import {
  hasRedisServer,
  peakRssMetrics,
  query,
  type ServerProcess,
  startStrataAndRedis,
  stopServers,
} from './server-harness.js';

/**
 * PUBLISH fan-out through strata-server and redis-server, in the same
 * rounds: `subs<N>` has N clients subscribed to one channel, `psubs<N>` N
 * clients on a pattern the channel matches; one publisher pipelines
 * PUBLISH (`depth` at a time, 32-byte messages). A run ends when every
 * subscriber has every message; the variant's number is messages
 * delivered per second (subscribers x messages / time). Ratios
 * `strata-x/redis-x`.
 *
 * The subscribers read in this process, so at high fan-out the load
 * generator may bound both servers alike; sample `cpu_us_per_msg` (the
 * server's user + system CPU over the run, per delivered message) does
 * not depend on that, and `cpu_ratio.<case>` compares it (strata's over
 * redis's, medians). `<server>_peak_rss_mb`: each server's peak resident set.
 */

type Params = {
  /** Subscriber counts of the channel cases (subs1, subs10, subs1000). */
  subscribers: readonly number[];
  /** Pattern subscriber counts (psubs10). */
  patternSubscribers: readonly number[];
  /** Deliveries each run aims at: messages = deliveries / subscribers. */
  deliveries: number;
  /** PUBLISH commands in flight on the publisher. */
  depth: number;
  messageBytes: number;
};

interface State {
  servers: Record<string, ServerProcess>;
}

const CHANNEL = 'bench:channel';
const PATTERN = 'bench:*';

function servers(): string[] {
  return hasRedisServer() ? ['strata', 'redis'] : ['strata'];
}

function cases(p: Params): string[] {
  return [...p.subscribers.map((n) => `subs${n}`), ...p.patternSubscribers.map((n) => `psubs${n}`)];
}

function open(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.setNoDelay(true);
    s.once('error', reject);
  });
}

/** A subscriber socket: resolves `done` once it has counted `messages` frames after its subscribe reply. */
async function subscriber(
  port: number,
  pattern: boolean,
  messages: number,
): Promise<{ socket: net.Socket; done: Promise<void> }> {
  const socket = await open(port);
  const reader = new ReplyReader();
  let frames = 0;
  let ready!: () => void;
  let finish!: () => void;
  const subscribed = new Promise<void>((r) => {
    ready = r;
  });
  const done = new Promise<void>((r) => {
    finish = r;
  });
  socket.on('data', (d) => {
    frames += reader.feed(d);
    if (frames >= 1) ready();
    if (frames >= messages + 1) finish();
  });
  socket.write(encodeCommand(pattern ? ['PSUBSCRIBE', PATTERN] : ['SUBSCRIBE', CHANNEL]));
  await subscribed;
  return { socket, done };
}

/** Sends `messages` PUBLISH, `depth` in flight, and resolves once all are answered. */
async function publishAll(port: number, messages: number, depth: number, bytes: number) {
  const socket = await open(port);
  const command = encodeCommand(['PUBLISH', CHANNEL, Buffer.alloc(bytes, 0x6d)]);
  const batch = Buffer.concat(Array.from({ length: depth }, () => command));
  const reader = new ReplyReader();
  let sent = 0;
  let answered = 0;
  await new Promise<void>((resolve, reject) => {
    const send = () => {
      const n = Math.min(depth, messages - sent);
      sent += n;
      socket.write(n === depth ? batch : batch.subarray(0, command.length * n));
    };
    socket.on('data', (d) => {
      answered += reader.feed(d);
      if (answered === messages) resolve();
      else if (answered === sent) send();
    });
    socket.once('error', reject);
    send();
  });
  socket.destroy();
}

export const pubsub = defineScenario<Params, State>({
  name: 'pubsub',
  description:
    'PUBLISH fan-out to 1, 10 and 1000 subscribers and to pattern subscribers, strata vs redis-server',
  params: {
    full: {
      subscribers: [1, 10, 1000],
      patternSubscribers: [10],
      deliveries: 1_000_000,
      depth: 32,
      messageBytes: 32,
    },
    ci: {
      subscribers: [1, 10, 1000],
      patternSubscribers: [10],
      deliveries: 100_000,
      depth: 32,
      messageBytes: 32,
    },
  },
  variants: (p) => servers().flatMap((s) => cases(p).map((c) => higher(`${s}-${c}`, 'msg/s'))),
  ratios: (p) => (hasRedisServer() ? cases(p).map((c) => `strata-${c}/redis-${c}`) : []),

  async setup(ctx) {
    return { servers: await startStrataAndRedis(ctx.dir, ['--checkpoint-interval', '0'], ctx.log) };
  },

  async run(variant, ctx): Promise<Measurement> {
    const m = /^(\w+)-(p?)subs(\d+)$/.exec(variant.name)!;
    const target = ctx.state.servers[m[1]!]!;
    const pattern = m[2] === 'p';
    const n = Number(m[3]);
    const p = ctx.params;
    const messages = Math.max(1, Math.floor(p.deliveries / n));
    const subs = await Promise.all(
      Array.from({ length: n }, () => subscriber(target.port, pattern, messages)),
    );
    try {
      const cpu0 = target.cpuUs();
      const start = performance.now();
      await Promise.all([
        publishAll(target.port, messages, p.depth, p.messageBytes),
        ...subs.map((s) => s.done),
      ]);
      const ms = performance.now() - start;
      const delivered = n * messages;
      return {
        value: (delivered / ms) * 1000,
        samples: { cpu_us_per_msg: (target.cpuUs() - cpu0) / delivered },
      };
    } finally {
      for (const s of subs) s.socket.destroy();
      // The next run starts once the server has let these subscribers go.
      while ((await query(target.port, ['PUBLISH', CHANNEL, 'probe'])) !== '0') {
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  },

  async metrics(results, ctx) {
    const { servers } = ctx.state;
    const out: Record<string, number> = { redis_server: servers.redis !== undefined ? 1 : 0 };
    if (servers.redis !== undefined) {
      for (const c of cases(ctx.params)) {
        const mine = median(results.samples(`strata-${c}`, 'cpu_us_per_msg'));
        const redis = median(results.samples(`redis-${c}`, 'cpu_us_per_msg'));
        if (Number.isFinite(mine / redis)) out[`cpu_ratio.${c}`] = mine / redis;
      }
    }
    Object.assign(out, peakRssMetrics(servers));
    return out;
  },

  async teardown(ctx) {
    await stopServers(Object.values(ctx.state?.servers ?? {}));
  },
});
