import type { Client } from '../../server/client.js';
import { type ClientSlot, clientSlot, type ServerSlot, serverSlot } from '../family.js';

/**
 * Client-side caching's state (Redis's tracking.c): which clients may cache
 * which keys, by key name (every database alike, as in Redis), and the
 * broadcast prefixes with the keys changed under them since the last
 * broadcast.
 */

/** A BCAST prefix: its clients, and the keys changed under it not yet sent (with who changed each). */
export interface Prefix {
  readonly bytes: Buffer;
  readonly clients: Set<Client>;
  /** latin1 key -> the key and the client that changed it last (null: none, an expiry). */
  pending: Map<string, { key: Buffer; by: Client | null }>;
}

export interface TrackingServer {
  /** latin1 key -> ids of the clients that read it since its last invalidation. */
  readonly keys: Map<string, Set<number>>;
  /** Entries in `keys` summed (INFO tracking_total_items). */
  items: number;
  readonly prefixes: Map<string, Prefix>;
  /** Clients with tracking on (INFO tracking_clients). */
  clients: number;
  /** A broadcast or a table trim is queued for the end of this tick. */
  flushQueued: boolean;
  /** tracking-table-max-keys (0: no limit). */
  maxKeys: number;
}

export const trackingServer: ServerSlot<TrackingServer> = serverSlot('tracking', () => ({
  keys: new Map(),
  items: 0,
  prefixes: new Map(),
  clients: 0,
  flushQueued: false,
  maxKeys: 1_000_000,
}));

/** CLIENT CACHING's answer for the next command: none given, YES (OPTIN) or NO (OPTOUT). */
export type Caching = 'none' | 'yes' | 'no';

export interface ClientTracking {
  on: boolean;
  bcast: boolean;
  optin: boolean;
  optout: boolean;
  noloop: boolean;
  caching: Caching;
  /** The client its invalidations go to (0: itself). */
  redirect: number;
  /** The redirect client went away: its id is reported once, then nothing is sent. */
  brokenRedirect: boolean;
  /** BCAST prefixes, in the order given. */
  readonly prefixes: Buffer[];
}

export const clientTracking: ClientSlot<ClientTracking> = clientSlot('tracking', () => ({
  on: false,
  bcast: false,
  optin: false,
  optout: false,
  noloop: false,
  caching: 'none',
  redirect: 0,
  brokenRedirect: false,
  prefixes: [],
}));

/** The client's tracking state when it has tracking on, else null. */
export function trackingOf(c: Client): ClientTracking | null {
  const t = c.peekState(clientTracking);
  return t?.on === true ? t : null;
}

/** INFO's tracking_clients, tracking_total_keys, tracking_total_items, tracking_total_prefixes. */
export function trackingCounts(server: Client['server']): {
  clients: number;
  keys: number;
  items: number;
  prefixes: number;
} {
  const s = server.peekState(trackingServer);
  if (s === undefined) return { clients: 0, keys: 0, items: 0, prefixes: 0 };
  return { clients: s.clients, keys: s.keys.size, items: s.items, prefixes: s.prefixes.size };
}
