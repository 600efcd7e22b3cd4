import { type HashValue, latin1 } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { eqi } from '../../args.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { keyMiss, NotifyClass, notify } from '../pubsub/keyspace-events.js';
import {
  afterChange,
  bothWritten,
  whenWritten,
  withCollection,
} from '../shared/collection-access.js';
import { msBuffer } from '../shared/replay-rules.js';
import {
  NUMFIELDS_EXPIRE,
  NUMFIELDS_POSITIVE,
  parseExpireTime,
  parseFieldsBlock,
  type TimeUnit,
} from './field-expiry-args.js';
import { registerHash } from './field-registry.js';

/**
 * HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT; HTTL, HPTTL, HEXPIRETIME,
 * HPEXPIRETIME; HPERSIST: Redis 8's t_hash.c, reply codes included (-2 no
 * such field, -1 no expiry, 0 condition not met, 1 set, 2 deleted because
 * the time has passed). A missing key is a hash without fields: an array of
 * -2. Checks run in Redis's order: the key's type, then the time, the
 * condition, the FIELDS block.
 */

const HASH = RecordType.HASH;
export const HDEL = Buffer.from('HDEL');
export const HPEXPIREAT = Buffer.from('HPEXPIREAT');
const FIELDS = Buffer.from('FIELDS');

/** HEXPIRE's condition (Redis's ExpireSetCond). */
export type ExpireCondition = 'nx' | 'xx' | 'gt' | 'lt' | null;

/** Result codes of setting a field's expiry (Redis's SetExRes). */
export const NO_FIELD = -2;
export const NOT_MET = 0;
export const SET = 1;
export const DELETED = 2;

/**
 * Sets `field`'s expiry to `at` under `cond` (Redis's hashTypeSetEx on an
 * existing hash): a time at or before `now` deletes the field. A field
 * that has expired but is still there is found, as Redis finds it.
 */
export function setFieldExpiry(
  h: HashValue,
  field: string,
  at: number,
  cond: ExpireCondition,
  now: number,
): number {
  if (!h.has(field)) return NO_FIELD;
  const prev = h.ttlOf(field);
  if (prev === 0) {
    // A field without expiry passes LT (it is later than any time), not XX or GT.
    if (cond === 'xx' || cond === 'gt') return NOT_MET;
  } else if ((cond === 'gt' && prev >= at) || (cond === 'lt' && prev <= at) || cond === 'nx') {
    return NOT_MET;
  }
  if (at <= now) {
    h.delete(field);
    return DELETED;
  }
  h.setTtl(field, at);
  return SET;
}

function hexpire(c: Client, argv: Buffer[], unit: TimeUnit, relative: boolean, name: string) {
  const key = argv[1]!;
  return withCollection<HashValue>(c, key, HASH, (h) => {
    const now = c.now();
    const at = parseExpireTime(argv[2]!, unit, relative ? now : 0, name);
    let cond: ExpireCondition = null;
    for (const w of ['nx', 'xx', 'gt', 'lt'] as const) if (eqi(argv[3]!, w)) cond = w;
    const first = parseFieldsBlock(argv, cond === null ? 3 : 4, NUMFIELDS_EXPIRE);
    const n = argv.length - first;
    const w = c.reply;
    if (h === null) {
      w.array(n);
      for (let i = 0; i < n; i++) w.integer(NO_FIELD);
      return undefined;
    }
    const converted = h.encoding() === 'listpack';
    h.withTtls();
    const codes: number[] = [];
    const updated: Buffer[] = [];
    const deleted: Buffer[] = [];
    for (let i = first; i < argv.length; i++) {
      const r = setFieldExpiry(h, latin1(argv[i]!), at, cond, now);
      codes.push(r);
      if (r === SET) updated.push(argv[i]!);
      else if (r === DELETED) deleted.push(argv[i]!);
    }
    const reply = () => {
      w.array(n);
      for (const r of codes) w.integer(r);
    };
    if (updated.length === 0 && deleted.length === 0) {
      c.propagate();
      // The encoding became listpackex: the record says so too.
      return whenWritten(converted ? afterChange(c, key, h) : undefined, reply);
    }
    // Logged as Redis propagates it: HDEL of the fields the past time
    // deleted, HPEXPIREAT (absolute ms) of those it set.
    if (deleted.length > 0) c.propagate(HDEL, key, ...deleted);
    if (updated.length > 0) {
      const form = [HPEXPIREAT, key, msBuffer(at)];
      if (cond !== null) form.push(argv[3]!);
      c.propagate(...form, FIELDS, Buffer.from(String(updated.length)), ...updated);
    }
    const written = afterChange(c, key, h);
    notify(c, NotifyClass.hash, deleted.length > 0 ? 'hdel' : 'hexpire', key);
    if (h.size === 0) notify(c, NotifyClass.generic, 'del', key);
    const registered = h.size === 0 ? undefined : registerHash(c, key, h);
    return whenWritten(bothWritten(written, registered), reply);
  });
}

/** HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME. */
function httl(c: Client, argv: Buffer[], unit: TimeUnit, relative: boolean): CommandResult {
  const key = argv[1]!;
  return withCollection<HashValue>(c, key, HASH, (h) => {
    const first = parseFieldsBlock(argv, 2, NUMFIELDS_POSITIVE);
    if (h === null) keyMiss(c, key);
    const now = c.now();
    const base = relative ? now : 0;
    const w = c.reply;
    w.array(argv.length - first);
    // Redis's listpackex counts a field expiring this very ms as gone, its hashtable does not.
    const flat = h?.encoding() !== 'hashtable';
    for (let i = first; i < argv.length; i++) {
      const f = latin1(argv[i]!);
      if (h === null || !h.has(f)) {
        w.integer(NO_FIELD);
        continue;
      }
      const at = h.ttlOf(f);
      if (at === 0) w.integer(-1);
      else if (flat ? at <= now : at < now) w.integer(NO_FIELD);
      else w.integer(unit === 'seconds' ? Math.trunc((at + 999 - base) / 1000) : at - base);
    }
    return undefined;
  });
}

function hpersist(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return withCollection<HashValue>(c, key, HASH, (h) => {
    const first = parseFieldsBlock(argv, 2, NUMFIELDS_POSITIVE);
    const now = c.now();
    const codes: number[] = [];
    let changed = false;
    for (let i = first; i < argv.length; i++) {
      const f = latin1(argv[i]!);
      const at = h === null || !h.has(f) ? -1 : h.ttlOf(f);
      if (at < 0 || (at > 0 && at < now)) codes.push(NO_FIELD);
      else if (at === 0) codes.push(-1);
      else {
        h!.setTtl(f, 0);
        changed = true;
        codes.push(1);
      }
    }
    const reply = () => {
      c.reply.array(codes.length);
      for (const r of codes) c.reply.integer(r);
    };
    if (!changed || h === null) {
      c.propagate();
      reply();
      return undefined;
    }
    const written = afterChange(c, key, h);
    notify(c, NotifyClass.hash, 'hpersist', key);
    return whenWritten(written, reply);
  });
}

export const fieldExpiryHandlers = {
  hexpire: (c: Client, a: Buffer[]) => hexpire(c, a, 'seconds', true, 'hexpire'),
  hpexpire: (c: Client, a: Buffer[]) => hexpire(c, a, 'ms', true, 'hpexpire'),
  hexpireat: (c: Client, a: Buffer[]) => hexpire(c, a, 'seconds', false, 'hexpireat'),
  hpexpireat: (c: Client, a: Buffer[]) => hexpire(c, a, 'ms', false, 'hpexpireat'),
  httl: (c: Client, a: Buffer[]) => httl(c, a, 'seconds', true),
  hpttl: (c: Client, a: Buffer[]) => httl(c, a, 'ms', true),
  hexpiretime: (c: Client, a: Buffer[]) => httl(c, a, 'seconds', false),
  hpexpiretime: (c: Client, a: Buffer[]) => httl(c, a, 'ms', false),
  hpersist,
};
