import type { ServerState } from '../../server/server-state.js';
import { pubsubServer, type Subscribers } from './subscriptions.js';

const MESSAGE = Buffer.from('message');
const PMESSAGE = Buffer.from('pmessage');
const SMESSAGE = Buffer.from('smessage');

/**
 * PUBLISH: the message goes to the channel's subscribers, then to each
 * client of each pattern the channel matches (a client on both gets it
 * twice, as in Redis). Returns how many deliveries that made. A client
 * that is closing still counts, as in Redis, but gets nothing more.
 */
export function publish(server: ServerState, channel: Buffer, message: Buffer): number {
  const s = server.peekState(pubsubServer);
  if (s === undefined) return 0;
  let receivers = 0;
  const subs = s.channels.get(channel.toString('latin1'));
  if (subs !== undefined) receivers += deliver(subs, MESSAGE, channel, message);
  if (s.patterns.size === 0) return receivers;
  for (const p of s.patterns.values()) {
    if (!channelMatches(p, channel)) continue;
    for (const c of p.clients) {
      receivers++;
      if (c.closed) continue;
      c.pushWriter().push(4).bulk(PMESSAGE).bulk(p.name).bulk(channel).bulk(message);
      c.pushed();
    }
  }
  return receivers;
}

/** SPUBLISH: to the shard channel's subscribers (no patterns). */
export function publishShard(server: ServerState, channel: Buffer, message: Buffer): number {
  const subs = server.peekState(pubsubServer)?.shardChannels.get(channel.toString('latin1'));
  return subs === undefined ? 0 : deliver(subs, SMESSAGE, channel, message);
}

function deliver(subs: Subscribers, type: Buffer, channel: Buffer, message: Buffer): number {
  for (const c of subs.clients) {
    if (c.closed) continue;
    c.pushWriter().push(3).bulk(type).bulk(channel).bulk(message);
    c.pushed();
  }
  return subs.clients.size;
}

/**
 * Redis matches patterns with stringmatchlen, which never matches an empty
 * channel but with an empty pattern (not even `*`, which KEYS special-cases).
 */
export function channelMatches(p: Subscribers, channel: Buffer): boolean {
  if (channel.length === 0) return p.name.length === 0;
  return p.glob!.match(channel, 0, channel.length);
}

/** The subscribers' names matching `pattern` (all for null): PUBSUB CHANNELS, SHARDCHANNELS. */
export function activeNames(
  all: ReadonlyMap<string, Subscribers>,
  glob: Subscribers | null,
): Buffer[] {
  const out: Buffer[] = [];
  for (const subs of all.values()) {
    if (glob === null || channelMatches(glob, subs.name)) out.push(subs.name);
  }
  return out;
}
