import type { Client } from '../../server/client.js';
import type { ServerState } from '../../server/server-state.js';
import { keyModified, trackingActive } from '../tracking/invalidation.js';
import { publish } from './publish.js';

/**
 * Keyspace notifications (notify-keyspace-events): the event classes as
 * Redis's NOTIFY_* bits, the config string both ways, and the publish of one
 * event to `__keyspace@<db>__:<key>` and `__keyevent@<db>__:<event>`.
 */
export const NotifyClass = {
  /** K: publish to `__keyspace@<db>__:<key>`. */
  keyspace: 1 << 0,
  /** E: publish to `__keyevent@<db>__:<event>`. */
  keyevent: 1 << 1,
  /** g: DEL, EXPIRE, RENAME... */
  generic: 1 << 2,
  /** $ */
  string: 1 << 3,
  /** l */
  list: 1 << 4,
  /** s */
  set: 1 << 5,
  /** h */
  hash: 1 << 6,
  /** z */
  zset: 1 << 7,
  /** x: a key expired. */
  expired: 1 << 8,
  /** e: a key was evicted for maxmemory. */
  evicted: 1 << 9,
  /** t */
  stream: 1 << 10,
  /** m: a read found no key (not in A). */
  keyMiss: 1 << 11,
  /** d: module events. */
  module: 1 << 12,
  /** n: a key was created (not in A). */
  new: 1 << 13,
} as const;

export type NotifyClassBit = (typeof NotifyClass)[keyof typeof NotifyClass];

/** A: every class but key misses and new keys (Redis's NOTIFY_ALL). */
const ALL =
  NotifyClass.generic |
  NotifyClass.string |
  NotifyClass.list |
  NotifyClass.set |
  NotifyClass.hash |
  NotifyClass.zset |
  NotifyClass.expired |
  NotifyClass.evicted |
  NotifyClass.stream |
  NotifyClass.module;

/** The classes A stands for, in the order CONFIG GET writes them when not all are on. */
const CLASS_CHARS: readonly [string, number][] = [
  ['g', NotifyClass.generic],
  ['$', NotifyClass.string],
  ['l', NotifyClass.list],
  ['s', NotifyClass.set],
  ['h', NotifyClass.hash],
  ['z', NotifyClass.zset],
  ['x', NotifyClass.expired],
  ['e', NotifyClass.evicted],
  ['t', NotifyClass.stream],
  ['d', NotifyClass.module],
  ['n', NotifyClass.new],
];

const PARSE: Readonly<Record<string, number>> = {
  A: ALL,
  K: NotifyClass.keyspace,
  E: NotifyClass.keyevent,
  m: NotifyClass.keyMiss,
  ...Object.fromEntries(CLASS_CHARS),
};

/** The flags of a notify-keyspace-events string, or null when a character is no class (Redis refuses it). */
export function parseNotifyFlags(text: string): number | null {
  let flags = 0;
  for (const ch of text) {
    const bit = PARSE[ch];
    if (bit === undefined) return null;
    flags |= bit;
  }
  return flags;
}

/** CONFIG GET's form, as Redis's keyspaceEventsFlagsToString writes it (`AKE`, `gnK`...). */
export function formatNotifyFlags(flags: number): string {
  let out = '';
  if ((flags & ALL) === ALL) out += 'A';
  else for (const [ch, bit] of CLASS_CHARS) if ((flags & bit) !== 0) out += ch;
  if ((flags & NotifyClass.keyspace) !== 0) out += 'K';
  if ((flags & NotifyClass.keyevent) !== 0) out += 'E';
  if ((flags & NotifyClass.keyMiss) !== 0) out += 'm';
  return out;
}

/**
 * Publishes one keyspace event of class `type` (`event` such as `set`,
 * `del`, `expired`) on `key` of database `db`, if the config asks for that
 * class: Redis's notifyKeyspaceEvent. Cheap when notifications are off.
 */
export function notifyKeyspaceEvent(
  server: ServerState,
  type: NotifyClassBit,
  event: string,
  key: Buffer,
  db: number,
  by: Client | null = null,
): void {
  // Every event but a miss says the key changed: tracking clients' cached
  // copies go, whether or not events are published (Redis's signalModifiedKey).
  if (type !== NotifyClass.keyMiss) keyModified(server, key, by);
  const flags = server.config.notifyKeyspaceEvents;
  if ((flags & type) === 0) return;
  if ((flags & NotifyClass.keyspace) !== 0) {
    const channel = Buffer.concat([Buffer.from(`__keyspace@${db}__:`), key]);
    publish(server, channel, Buffer.from(event));
  }
  if ((flags & NotifyClass.keyevent) !== 0) {
    publish(server, Buffer.from(`__keyevent@${db}__:${event}`), key);
  }
}

/** `notifyKeyspaceEvent` in the client's selected database: what a handler calls once it changed `key`. */
export function notify(c: Client, type: NotifyClassBit, event: string, key: Buffer): void {
  notifyKeyspaceEvent(c.server, type, event, key, c.db, c);
}

/** A read lookup found no key (Redis's lookupKeyRead): `keymiss`, class m. */
export function keyMiss(c: Client, key: Buffer): void {
  notifyKeyspaceEvent(c.server, NotifyClass.keyMiss, 'keymiss', key, c.db, c);
}

/** Whether events of a class in `mask` are published (work done only for an event is skipped otherwise). */
export function publishes(c: Client, mask: number): boolean {
  return (c.server.config.notifyKeyspaceEvents & mask) !== 0;
}

/**
 * Whether a change of a class in `mask` is signalled at all: its events are
 * published, or a client tracks keys (then every change invalidates). Work
 * done only to send a change's `notify` (a loop over MSET's keys, waiting
 * for a write on the disk) is skipped when this is false.
 */
export function changeSignalled(c: Client, mask: number): boolean {
  return publishes(c, mask) || trackingActive(c.server);
}
