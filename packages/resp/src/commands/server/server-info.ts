import { Store } from '@strata/hlog';
import type { ServerState } from '../../server/server-state.js';
import { blockedClients } from '../blocking/blocking-registry.js';
import { pubsubCounts } from '../pubsub/subscriptions.js';
import { trackingCounts } from '../tracking/tracking-state.js';

/** What HELLO and INFO report: clients pick features by the Redis version. */
export const SERVER_NAME = 'redis';
export const SERVER_VERSION = '7.2.0';
export const STRATA_VERSION = '0.0.0';

type Section = (s: ServerState) => string[];

const SECTIONS: Record<string, Section> = {
  server: (s) => [
    `redis_version:${SERVER_VERSION}`,
    `strata_version:${STRATA_VERSION}`,
    'redis_mode:standalone',
    `os:${process.platform}`,
    `arch_bits:64`,
    `process_id:${process.pid}`,
    `tcp_port:${s.port}`,
    `uptime_in_seconds:${Math.floor((Date.now() - s.startedAt) / 1000)}`,
    `uptime_in_days:${Math.floor((Date.now() - s.startedAt) / 86_400_000)}`,
    `executable:${process.argv[1] ?? ''}`,
  ],
  clients: (s) => [
    `connected_clients:${s.clients.size}`,
    `maxclients:${s.config.maxclients}`,
    `blocked_clients:${blockedClients(s)}`,
    `tracking_clients:${trackingCounts(s).clients}`,
    `pending_commands:${s.inFlight}`,
    `watching_clients:${new Set([...s.watched.values()].flatMap((m) => [...m.values()].flatMap((x) => [...x]))).size}`,
  ],
  memory: (s) => {
    const m = process.memoryUsage();
    // Decoded collections cached over the stores (their budgets summed).
    let cached = 0;
    let budget = 0;
    for (let db = 0; db < s.keyspace.count; db++) {
      const c = s.keyspace.collections(db)?.stats();
      if (c !== undefined) {
        cached += c.bytes;
        budget += c.budgetBytes;
      }
    }
    return [
      `used_memory:${m.heapUsed + m.external}`,
      `used_memory_rss:${m.rss}`,
      `collections_cache_bytes:${cached}`,
      `collections_cache_budget:${budget}`,
    ];
  },
  persistence: () => ['loading:0', 'async_loading:0'],
  stats: (s) => [
    `total_connections_received:${s.stats.connections}`,
    `total_commands_processed:${s.stats.commands}`,
    `total_net_input_bytes:${s.stats.netInput}`,
    `total_net_output_bytes:${s.stats.netOutput}`,
    `rejected_connections:${s.stats.rejectedConnections}`,
    `pubsub_channels:${pubsubCounts(s).channels}`,
    `pubsub_patterns:${pubsubCounts(s).patterns}`,
    `pubsubshard_channels:${pubsubCounts(s).shardChannels}`,
    `tracking_total_keys:${trackingCounts(s).keys}`,
    `tracking_total_items:${trackingCounts(s).items}`,
    `tracking_total_prefixes:${trackingCounts(s).prefixes}`,
    `client_output_buffer_limit_disconnections:${s.stats.outputLimitDisconnections}`,
  ],
  replication: () => ['role:master', 'connected_slaves:0'],
  keyspace: () => [],
  commandstats: (s) => {
    const out: string[] = [];
    for (const spec of s.table) {
      const all = spec.subcommands === null ? [spec] : [...spec.subcommands];
      for (const x of all) {
        if (x.calls === 0 && x.failedCalls === 0) continue;
        out.push(
          `cmdstat_${x.fullName}:calls=${x.calls},usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=${x.failedCalls}`,
        );
      }
    }
    return out;
  },
  storage: (s) => {
    const out: string[] = [];
    for (let db = 0; db < s.keyspace.count; db++) {
      const store = s.keyspace.get(db);
      if (store === undefined) continue;
      const log = store.log;
      out.push(
        `db${db}:begin=${log.begin},head=${log.head},read_only=${log.readOnly},tail=${log.tail},memory=${store instanceof Store ? store.stats().memory.logBytes : 0}${collectionStats(s, db)}`,
      );
    }
    return out;
  },
};

/** The collection cache of a database, for INFO storage. */
function collectionStats(s: ServerState, db: number): string {
  const c = s.keyspace.collections(db)?.stats();
  if (c === undefined) return '';
  return `,collections=${c.entries},collections_bytes=${c.bytes},collections_budget=${c.budgetBytes},collections_dirty=${c.dirty},collections_evictions=${c.evictions},collections_writebacks=${c.writeBacks}`;
}

const DEFAULT = ['server', 'clients', 'memory', 'persistence', 'stats', 'replication', 'keyspace'];
const ALL = [...DEFAULT, 'commandstats', 'storage'];

/** The sections INFO shows for the names asked (`default`, `all`, `everything` or names). */
export function infoSections(asked: readonly string[], extra: readonly string[] = []): Set<string> {
  const names: string[] = [];
  if (asked.length === 0) names.push(...DEFAULT);
  for (const a of asked) {
    const n = a.toLowerCase();
    if (n === 'default') names.push(...DEFAULT);
    else if (n === 'all' || n === 'everything') names.push(...ALL, ...extra);
    else names.push(n);
  }
  return new Set(names);
}

/**
 * The INFO text for the sections asked. The keyspace section takes a pass
 * over each open database's log, so its lines come computed (`keyspace`);
 * without them the section is empty.
 */
export function infoText(
  s: ServerState,
  asked: readonly string[],
  keyspace: readonly string[] = [],
): string {
  const parts: string[] = [];
  const apps = s.infoSections;
  for (const name of infoSections(asked, Object.keys(apps))) {
    const section = name === 'keyspace' ? () => keyspace : SECTIONS[name];
    const app = Object.hasOwn(apps, name) ? apps[name] : undefined;
    if (section === undefined && app === undefined) continue;
    const lines = [...(section?.(s) ?? []), ...(app?.() ?? [])];
    const title = name === 'commandstats' ? 'Commandstats' : name[0]!.toUpperCase() + name.slice(1);
    parts.push(`# ${title}\r\n${lines.map((l) => `${l}\r\n`).join('')}`);
  }
  return parts.join('\r\n');
}
