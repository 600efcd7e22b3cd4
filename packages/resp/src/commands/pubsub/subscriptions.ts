import { compileGlob, type GlobMatcher } from '@strata/scan';
import type { Client } from '../../server/client.js';
import { type ClientSlot, clientSlot, type ServerSlot, serverSlot } from '../family.js';

/** The subscribers of one channel, shard channel or pattern, in the order they came. */
export interface Subscribers {
  /** The name's bytes as the first subscriber sent them. */
  readonly name: Buffer;
  readonly clients: Set<Client>;
  /** A pattern's compiled glob; null for a channel. */
  readonly glob: GlobMatcher | null;
}

/** Names are keyed by their bytes as latin1 (every byte one char). */
type ByName = Map<string, Subscribers>;

/** The server's side of pub/sub: who listens where. */
export interface PubSubServer {
  readonly channels: ByName;
  readonly shardChannels: ByName;
  readonly patterns: ByName;
}

/** One client's subscriptions, by kind, in the order it made them. */
export interface ClientSubscriptions {
  readonly channels: Map<string, Buffer>;
  readonly shardChannels: Map<string, Buffer>;
  readonly patterns: Map<string, Buffer>;
}

export const pubsubServer: ServerSlot<PubSubServer> = serverSlot('pubsub', () => ({
  channels: new Map(),
  shardChannels: new Map(),
  patterns: new Map(),
}));

const clientSubscriptions: ClientSlot<ClientSubscriptions> = clientSlot('pubsub', () => ({
  channels: new Map(),
  shardChannels: new Map(),
  patterns: new Map(),
}));

/**
 * A kind of subscription, as data (Redis's pubsubtype): its reply names,
 * where the server and the client keep it, and the count its replies carry.
 */
export interface SubscriptionKind {
  readonly subscribe: Buffer;
  readonly unsubscribe: Buffer;
  readonly isPattern: boolean;
  server(s: PubSubServer): ByName;
  client(s: ClientSubscriptions): Map<string, Buffer>;
  /** The count in a (un)subscribe reply: channels and patterns together, shard channels alone (Redis 7). */
  count(s: ClientSubscriptions): number;
}

const channelsAndPatterns = (s: ClientSubscriptions) => s.channels.size + s.patterns.size;

export const CHANNEL: SubscriptionKind = {
  subscribe: Buffer.from('subscribe'),
  unsubscribe: Buffer.from('unsubscribe'),
  isPattern: false,
  server: (s) => s.channels,
  client: (s) => s.channels,
  count: channelsAndPatterns,
};

export const PATTERN: SubscriptionKind = {
  subscribe: Buffer.from('psubscribe'),
  unsubscribe: Buffer.from('punsubscribe'),
  isPattern: true,
  server: (s) => s.patterns,
  client: (s) => s.patterns,
  count: channelsAndPatterns,
};

export const SHARD_CHANNEL: SubscriptionKind = {
  subscribe: Buffer.from('ssubscribe'),
  unsubscribe: Buffer.from('sunsubscribe'),
  isPattern: false,
  server: (s) => s.shardChannels,
  client: (s) => s.shardChannels,
  count: (s) => s.shardChannels.size,
};

const KINDS = [CHANNEL, PATTERN, SHARD_CHANNEL] as const;

/** Subscribes `c` to each name, one reply frame per name, as Redis does. */
export function subscribe(c: Client, kind: SubscriptionKind, names: readonly Buffer[]): void {
  const mine = c.state(clientSubscriptions);
  const own = kind.client(mine);
  const all = kind.server(c.server.state(pubsubServer));
  for (const name of names) {
    const key = name.toString('latin1');
    if (!own.has(key)) {
      const copy = Buffer.from(name);
      own.set(key, copy);
      let subs = all.get(key);
      if (subs === undefined) {
        subs = {
          name: copy,
          clients: new Set(),
          glob: kind.isPattern ? compileGlob(copy) : null,
        };
        all.set(key, subs);
      }
      subs.clients.add(c);
    }
    c.subscribed = true;
    c.reply.push(3).bulk(kind.subscribe).bulk(name).integer(kind.count(mine));
  }
}

/**
 * Unsubscribes `c` from each name, or from every one of the kind when none
 * is named; one reply frame per name, and one with a null name when there
 * was nothing to leave.
 */
export function unsubscribe(c: Client, kind: SubscriptionKind, names: readonly Buffer[]): void {
  const mine = c.state(clientSubscriptions);
  const own = kind.client(mine);
  const all = kind.server(c.server.state(pubsubServer));
  const leave = names.length > 0 ? names : [...own.values()];
  if (leave.length === 0) {
    c.reply.push(3).bulk(kind.unsubscribe).null().integer(kind.count(mine));
    return;
  }
  for (const name of leave) {
    const key = name.toString('latin1');
    if (own.delete(key)) drop(all, key, c);
    c.subscribed = total(mine) > 0;
    c.reply.push(3).bulk(kind.unsubscribe).bulk(name).integer(kind.count(mine));
  }
}

/** Drops every subscription of `c`, with no reply (RESET, a closed connection). */
export function unsubscribeAll(c: Client): void {
  const mine = c.peekState(clientSubscriptions);
  c.subscribed = false;
  if (mine === undefined) return;
  const server = c.server.state(pubsubServer);
  for (const kind of KINDS) {
    const own = kind.client(mine);
    const all = kind.server(server);
    for (const key of own.keys()) drop(all, key, c);
    own.clear();
  }
}

function drop(all: ByName, key: string, c: Client): void {
  const subs = all.get(key);
  if (subs === undefined) return;
  subs.clients.delete(c);
  if (subs.clients.size === 0) all.delete(key);
}

function total(s: ClientSubscriptions): number {
  return s.channels.size + s.patterns.size + s.shardChannels.size;
}

/** CLIENT LIST's sub=, psub= and ssub=. */
export function subscriptionCounts(c: Client): {
  channels: number;
  patterns: number;
  shardChannels: number;
} {
  const s = c.peekState(clientSubscriptions);
  if (s === undefined) return { channels: 0, patterns: 0, shardChannels: 0 };
  return {
    channels: s.channels.size,
    patterns: s.patterns.size,
    shardChannels: s.shardChannels.size,
  };
}

/** INFO's pubsub_channels, pubsub_patterns, pubsubshard_channels. */
export function pubsubCounts(server: Client['server']): {
  channels: number;
  patterns: number;
  shardChannels: number;
} {
  const s = server.peekState(pubsubServer);
  if (s === undefined) return { channels: 0, patterns: 0, shardChannels: 0 };
  return {
    channels: s.channels.size,
    patterns: s.patterns.size,
    shardChannels: s.shardChannels.size,
  };
}
