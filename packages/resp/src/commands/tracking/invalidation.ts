import type { Client } from '../../server/client.js';
import { CommandFlag, type CommandSpec } from '../../server/command-table.js';
import type { ServerState } from '../../server/server-state.js';
import {
  type ClientTracking,
  type TrackingServer,
  trackingOf,
  trackingServer,
} from './tracking-state.js';

const INVALIDATE = Buffer.from('invalidate');
const MESSAGE = Buffer.from('message');
const CHANNEL = Buffer.from('__redis__:invalidate');
const REDIR_BROKEN = Buffer.from('tracking-redir-broken');
/** Redis's shared.null by protocol: what a flush invalidates with. */
const NULL_BY_PROTOCOL = { 2: Buffer.from('$-1\r\n'), 3: Buffer.from('_\r\n') } as const;

/**
 * Writes one invalidation for the tracking client `c` (Redis's
 * sendTrackingMessage): to `c` in RESP3, or to its redirect client (RESP3,
 * or RESP2 in the pub/sub context as a `__redis__:invalidate` message). The
 * value is `keys` as an array, or the raw bytes of `value` (a flush's null,
 * a broadcast's prebuilt array). A client that caused it gets it after its
 * reply.
 */
function send(c: Client, t: ClientTracking, keys: readonly Buffer[] | null, value?: Buffer): void {
  let target = c;
  if (t.redirect !== 0) {
    const r = c.server.clients.get(t.redirect);
    if (r === undefined || r.closed) {
      t.brokenRedirect = true;
      if (c.protocol === 3) {
        c.pushWriter().push(2).bulk(REDIR_BROKEN).integer(t.redirect);
        c.pushed();
      }
      return;
    }
    target = r;
  }
  const w = target.pushWriter();
  if (target.protocol === 3) w.push(2).bulk(INVALIDATE);
  else if (target !== c && target.subscribed) w.push(3).bulk(MESSAGE).bulk(CHANNEL);
  else return;
  if (value !== undefined) w.raw(value);
  else {
    w.array(keys!.length);
    for (const k of keys!) w.bulk(k);
  }
  target.pushed();
}

/**
 * After a read-only command of a tracking client (not BCAST): the keys it
 * named may now be cached, so their next change invalidates them for it
 * (Redis's trackingRememberKeys, OPTIN/OPTOUT and CLIENT CACHING obeyed).
 */
export function rememberKeys(
  c: Client,
  t: ClientTracking,
  spec: CommandSpec,
  argv: readonly Buffer[],
) {
  if (t.bcast || (spec.flags & CommandFlag.readonly) === 0) return;
  if ((spec.flags & CommandFlag.pubsub) !== 0) return;
  if ((t.optin && t.caching !== 'yes') || (t.optout && t.caching === 'no')) return;
  const indexes = spec.keyIndexes(argv);
  if (indexes.length === 0) return;
  const s = c.server.state(trackingServer);
  for (const i of indexes) {
    const name = argv[i]!.toString('latin1');
    let ids = s.keys.get(name);
    if (ids === undefined) {
      ids = new Set();
      s.keys.set(name, ids);
    }
    if (!ids.has(c.id)) {
      ids.add(c.id);
      s.items++;
    }
  }
  if (s.maxKeys > 0 && s.keys.size > s.maxKeys) queueFlush(c.server, s);
}

/** Some client has tracking on: every key change must be signalled (`keyModified`). */
export function trackingActive(server: ServerState): boolean {
  const s = server.peekState(trackingServer);
  return s !== undefined && s.clients > 0;
}

/**
 * `key` changed (by `by`, or by no client: an expiry): clients that read it
 * get one invalidation and forget it; BCAST clients of the prefixes it
 * falls under get it in the broadcast at the end of this tick (Redis's
 * trackingInvalidateKey).
 */
export function keyModified(server: ServerState, key: Buffer, by: Client | null): void {
  const s = server.peekState(trackingServer);
  if (s === undefined || s.clients === 0) return;
  if (s.prefixes.size > 0) rememberForBroadcast(server, s, key, by);
  invalidateTracked(server, s, key.toString('latin1'), key, by);
}

function invalidateTracked(
  server: ServerState,
  s: TrackingServer,
  name: string,
  key: Buffer,
  by: Client | null,
): void {
  const ids = s.keys.get(name);
  if (ids === undefined) return;
  for (const id of ids) {
    const target = server.clients.get(id);
    if (target === undefined) continue;
    const t = trackingOf(target);
    if (t === null || t.bcast) continue;
    if (t.noloop && target === by) continue;
    send(target, t, [key]);
  }
  s.items -= ids.size;
  s.keys.delete(name);
}

function rememberForBroadcast(
  server: ServerState,
  s: TrackingServer,
  key: Buffer,
  by: Client | null,
) {
  for (const p of s.prefixes.values()) {
    if (!startsWith(key, p.bytes)) continue;
    const name = key.toString('latin1');
    // Redis keeps the first client that changed the key since the last broadcast.
    if (!p.pending.has(name)) p.pending.set(name, { key: Buffer.from(key), by });
    queueFlush(server, s);
  }
}

function startsWith(key: Buffer, prefix: Buffer): boolean {
  return (
    key.length >= prefix.length && key.compare(prefix, 0, prefix.length, 0, prefix.length) === 0
  );
}

/** The broadcasts and the table trim run once this tick's commands ran (Redis: beforeSleep). */
function queueFlush(server: ServerState, s: TrackingServer): void {
  if (s.flushQueued) return;
  s.flushQueued = true;
  process.nextTick(() => {
    s.flushQueued = false;
    broadcast(s);
    trimTable(server, s);
  });
}

/** Each prefix's changed keys, in byte order, to its clients (a NOLOOP client without its own changes). */
function broadcast(s: TrackingServer): void {
  for (const p of s.prefixes.values()) {
    if (p.pending.size === 0) continue;
    const entries = [...p.pending.values()].sort((a, b) => a.key.compare(b.key));
    p.pending = new Map();
    const all = arrayReply(entries.map((e) => e.key));
    for (const c of p.clients) {
      const t = trackingOf(c);
      if (t === null) continue;
      if (!t.noloop) send(c, t, null, all);
      else {
        const others = entries.filter((e) => e.by !== c).map((e) => e.key);
        if (others.length > 0) send(c, t, null, arrayReply(others));
      }
    }
  }
}

function arrayReply(keys: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${keys.length}\r\n`)];
  for (const k of keys) parts.push(Buffer.from(`$${k.length}\r\n`), k, Buffer.from('\r\n'));
  return Buffer.concat(parts);
}

/**
 * tracking-table-max-keys: over it, keys are invalidated (oldest first;
 * Redis walks at random) until the table fits again.
 */
function trimTable(server: ServerState, s: TrackingServer): void {
  if (s.maxKeys <= 0) return;
  while (s.keys.size > s.maxKeys) {
    const name = s.keys.keys().next().value as string;
    invalidateTracked(server, s, name, Buffer.from(name, 'latin1'), null);
  }
}

/**
 * FLUSHDB / FLUSHALL: every tracking client gets a null invalidation (in
 * its own protocol, as Redis writes it) and the table is dropped.
 */
export function invalidateAll(server: ServerState): void {
  const s = server.peekState(trackingServer);
  if (s === undefined || s.clients === 0) return;
  for (const c of server.clients.values()) {
    const t = trackingOf(c);
    if (t !== null) send(c, t, null, NULL_BY_PROTOCOL[c.protocol]);
  }
  s.keys.clear();
  s.items = 0;
}
