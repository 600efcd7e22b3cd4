import { totalmem } from 'node:os';
import { blocksToReclaim } from '@strata/collections';
import { untouchedLogBytes, usedMemory } from '../../server/instantaneous-metrics.js';
import { HISTOGRAM_BUCKETS_US } from '../../server/latency-histogram.js';
import type { ServerState } from '../../server/server-state.js';
import { blockedClients } from '../blocking/blocking-registry.js';
import { pubsubCounts } from '../pubsub/subscriptions.js';
import { blockGcStats } from '../streams/stream-block-gc.js';
import { trackingCounts } from '../tracking/tracking-state.js';
import { readConfig } from './config.js';

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
    `multiplexing_api:${process.platform === 'linux' ? 'epoll' : process.platform === 'win32' ? 'iocp' : 'kqueue'}`,
    `process_id:${process.pid}`,
    `run_id:${s.runId}`,
    `tcp_port:${s.port}`,
    `server_time_usec:${Date.now() * 1000}`,
    `uptime_in_seconds:${Math.floor((Date.now() - s.startedAt) / 1000)}`,
    `uptime_in_days:${Math.floor((Date.now() - s.startedAt) / 86_400_000)}`,
    `hz:${s.expiryPace.hz}`,
    `configured_hz:${s.expiryPace.configuredHz}`,
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
    const { used, rss, peak, cached, budget } = memoryFacts(s);
    const system = totalmem();
    return [
      `used_memory:${used}`,
      `used_memory_human:${bytesToHuman(used)}`,
      `used_memory_rss:${rss}`,
      `used_memory_rss_human:${bytesToHuman(rss)}`,
      `used_memory_peak:${peak}`,
      `used_memory_peak_human:${bytesToHuman(peak)}`,
      `used_memory_peak_perc:${((used * 100) / peak).toFixed(2)}%`,
      `total_system_memory:${system}`,
      `total_system_memory_human:${bytesToHuman(system)}`,
      // strata-server's log memory per database (CONFIG GET's value); keys
      // are never evicted whatever the policy: past its memory the log goes to disk.
      `maxmemory:${readConfig(s, 'maxmemory')}`,
      `maxmemory_human:${bytesToHuman(Number(readConfig(s, 'maxmemory')))}`,
      'maxmemory_policy:noeviction',
      `mem_fragmentation_ratio:${(rss / used).toFixed(2)}`,
      `mem_fragmentation_bytes:${rss - used}`,
      // Stream blocks still to delete in the background, and those deleted
      // after their command's reply (lazyfree: streams/stream-removal.ts).
      `lazyfree_pending_objects:${s.keyspace.lazyfree.pending + pendingBlocks(s)}`,
      `lazyfreed_objects:${s.keyspace.lazyfree.freed}`,
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
    `instantaneous_ops_per_sec:${Math.round(s.metrics.ops.perSecond)}`,
    `instantaneous_input_kbps:${(s.metrics.input.perSecond / 1024).toFixed(2)}`,
    `instantaneous_output_kbps:${(s.metrics.output.perSecond / 1024).toFixed(2)}`,
    `rejected_connections:${s.stats.rejectedConnections}`,
    `expired_keys:${s.stats.expiredKeys}`,
    // Keys are never evicted (the log goes to disk).
    'evicted_keys:0',
    `pubsub_channels:${pubsubCounts(s).channels}`,
    `pubsub_patterns:${pubsubCounts(s).patterns}`,
    `pubsubshard_channels:${pubsubCounts(s).shardChannels}`,
    `tracking_total_keys:${trackingCounts(s).keys}`,
    `tracking_total_items:${trackingCounts(s).items}`,
    `tracking_total_prefixes:${trackingCounts(s).prefixes}`,
    `client_query_buffer_limit_disconnections:${s.stats.queryLimitDisconnections}`,
    `client_output_buffer_limit_disconnections:${s.stats.outputLimitDisconnections}`,
    `total_error_replies:${s.stats.errorReplies}`,
    ...damageLines(s),
  ],
  replication: () => ['role:master', 'connected_slaves:0'],
  cpu: () => {
    // process.cpuUsage covers the whole process (libuv's IO threads too); there are no children.
    const u = process.cpuUsage();
    return [
      `used_cpu_sys:${(u.system / 1e6).toFixed(6)}`,
      `used_cpu_user:${(u.user / 1e6).toFixed(6)}`,
      'used_cpu_sys_children:0.000000',
      'used_cpu_user_children:0.000000',
    ];
  },
  // No modules: the section is there, empty, as in a Redis without any.
  modules: () => [],
  errorstats: (s) => [...s.errorsByPrefix].map(([prefix, n]) => `errorstat_${prefix}:count=${n}`),
  cluster: () => ['cluster_enabled:0'],
  keyspace: () => [],
  commandstats: (s) => {
    const out: string[] = [];
    for (const spec of s.table) {
      // A container too: a call refused before its subcommand was known counts there.
      const all = spec.subcommands === null ? [spec] : [spec, ...spec.subcommands];
      for (const x of all) {
        if (x.calls === 0 && x.failedCalls === 0 && x.rejectedCalls === 0) continue;
        const usec = Math.floor(x.usec);
        const perCall = x.calls === 0 ? 0 : usec / x.calls;
        out.push(
          `cmdstat_${x.fullName}:calls=${x.calls},usec=${usec},usec_per_call=${perCall.toFixed(2)},rejected_calls=${x.rejectedCalls},failed_calls=${x.failedCalls}`,
        );
      }
    }
    return out;
  },
  latencystats: (s) => (s.latencyTracking ? latencyPercentileLines(s) : []),
  storage: (s) => {
    const out: string[] = [];
    for (let db = 0; db < s.keyspace.count; db++) {
      const store = s.keyspace.get(db);
      if (store === undefined) continue;
      const log = store.log;
      out.push(
        `db${db}:begin=${log.begin},head=${log.head},read_only=${log.readOnly},tail=${log.tail},memory=${log.memoryBytes},memory_resident=${log.residentBytes}${collectionStats(s, db)}`,
      );
    }
    return out;
  },
};

/**
 * Strata's own stats lines: damage met on the open databases' devices
 * (hlog's `DamageLog`). `corrupt_record_reads`: reads of a record that
 * failed verification (each answered with an error, never the value);
 * `corrupt_records`: distinct damaged record addresses; `damaged_pages`:
 * pages scans or compaction skipped; `last_corrupt_address`: `db:address`
 * of the last one seen, `-` for none.
 */
function damageLines(s: ServerState): string[] {
  let reads = 0;
  let records = 0;
  let pages = 0;
  let last = '-';
  for (let db = 0; db < s.keyspace.count; db++) {
    const d = s.keyspace.get(db)?.damage;
    if (d === undefined) continue;
    reads += d.recordReads;
    records += d.records;
    pages += d.pages;
    if (d.lastAddress >= 0) last = `${db}:${d.lastAddress}`;
  }
  return [
    `corrupt_record_reads:${reads}`,
    `corrupt_records:${records}`,
    `damaged_pages:${pages}`,
    `last_corrupt_address:${last}`,
  ];
}

/**
 * INFO latencystats: per command, the latency-tracking-info-percentiles of
 * its LATENCY HISTOGRAM calls, in µs with Redis's `%.3f`. The histogram
 * keeps power-of-two buckets (latency-histogram.ts), not Redis's HDR one
 * (2 significant digits), so a percentile is the upper bound of the bucket
 * it falls in: at most that, coarser than Redis's figure.
 */
function latencyPercentileLines(s: ServerState): string[] {
  const text = readConfig(s, 'latency-tracking-info-percentiles');
  // The stored text is already as Redis prints each one (`%f`, zeros trimmed).
  const labels = text === '' ? [] : text.split(' ');
  const wanted = labels.map(Number);
  const out: string[] = [];
  for (const spec of s.table) {
    const all = spec.subcommands === null ? [spec] : [spec, ...spec.subcommands];
    for (const x of all) {
      const h = x.histogram;
      if (h === null) continue;
      const parts = labels.map((l, i) => `p${l}=${percentileOf(h, wanted[i]!).toFixed(3)}`);
      out.push(`latency_percentiles_usec_${x.fullName}:${parts.join(',')}`);
    }
  }
  return out;
}

/** hdr_value_at_percentile over the buckets: the bound of the bucket the p-th call is in. */
function percentileOf(h: Float64Array, p: number): number {
  let total = 0;
  for (const n of h) total += n;
  const rank = Math.max(1, Math.floor((Math.min(p, 100) / 100) * total + 0.5));
  let seen = 0;
  for (let k = 0; k < h.length; k++) {
    seen += h[k]!;
    if (seen >= rank) return HISTOGRAM_BUCKETS_US[k]!;
  }
  return 0;
}

/** The process's memory as INFO memory and MEMORY STATS report it. */
export interface MemoryFacts {
  /** used_memory: the V8 heap in use and the Buffers outside it. */
  readonly used: number;
  readonly rss: number;
  /** used_memory_peak (noted now too). */
  readonly peak: number;
  /** Decoded collections cached over the stores, and their budgets, summed. */
  readonly cached: number;
  readonly budget: number;
}

/** The memory facts, one owner for INFO memory and MEMORY STATS/DOCTOR. */
export function memoryFacts(s: ServerState): MemoryFacts {
  let cached = 0;
  let budget = 0;
  for (let db = 0; db < s.keyspace.count; db++) {
    const c = s.keyspace.collections(db)?.stats();
    if (c !== undefined) {
      cached += c.bytes;
      budget += c.budgetBytes;
    }
  }
  // The log rings are external memory at their whole budget, but only the
  // frames the tail reached were ever touched (the OS maps the rest lazily).
  const used = usedMemory(untouchedLogBytes(s.keyspace));
  s.metrics.notePeak(used);
  return { used, rss: process.memoryUsage.rss(), peak: s.metrics.peakMemory, cached, budget };
}

/** Redis's bytesToHuman: `1023B`, `1.50K`, `2.00M`... */
export function bytesToHuman(n: number): string {
  const units = ['B', 'K', 'M', 'G', 'T', 'P'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n}B` : `${v.toFixed(2)}${units[u]}`;
}

/** The collection cache of a database, for INFO storage. */
function collectionStats(s: ServerState, db: number): string {
  const cache = s.keyspace.collections(db);
  if (cache === undefined) return '';
  const c = cache.stats();
  const gc = blockGcStats(cache);
  return `,collections=${c.entries},collections_bytes=${c.bytes},collections_budget=${c.budgetBytes},collections_dirty=${c.dirty},collections_evictions=${c.evictions},collections_writebacks=${c.writeBacks},stream_gc_passes=${gc.passes},stream_gc_skipped=${gc.skipped},stream_gc_orphans=${gc.orphans}`;
}

/** Redis 7's default sections, in its order. */
const DEFAULT = [
  'server',
  'clients',
  'memory',
  'persistence',
  'stats',
  'replication',
  'cpu',
  'modules',
  'errorstats',
  'cluster',
  'keyspace',
];
/** `all` and `everything`: Redis's order (the stats sections before cluster), then strata's own. */
const ALL = [
  ...DEFAULT.slice(0, DEFAULT.indexOf('errorstats')),
  'commandstats',
  'errorstats',
  'latencystats',
  'cluster',
  'keyspace',
  'storage',
];

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
    const title = name === 'cpu' ? 'CPU' : name[0]!.toUpperCase() + name.slice(1);
    parts.push(`# ${title}\r\n${lines.map((l) => `${l}\r\n`).join('')}`);
  }
  return parts.join('\r\n');
}

/** Stream blocks queued for deletion in every open database. */
function pendingBlocks(s: ServerState): number {
  let n = 0;
  for (let i = 0; i < s.keyspace.count; i++) {
    const cache = s.keyspace.collections(i);
    if (cache !== undefined) n += blocksToReclaim(cache);
  }
  return n;
}
