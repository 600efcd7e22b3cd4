import { HashValue, latin1 } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import type { ReplyWriter } from '@strata/protocol';
import { eqi, integerOrNaN } from '../../args.js';
import { CommandError, syntaxError, wrongArityError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify } from '../pubsub/keyspace-events.js';
import {
  afterChange,
  afterWriteNew,
  bothWritten,
  whenWritten,
  withCollection,
} from '../shared/collection-access.js';
import { msBuffer } from '../shared/replay-rules.js';
import { DELETED, HDEL, HPEXPIREAT, SET, setFieldExpiry } from './field-expiry.js';
import {
  NUMFIELDS_POSITIVE,
  parseExpireTime,
  parseFieldsBlock,
  type TimeUnit,
} from './field-expiry-args.js';
import { registerHash } from './field-registry.js';

/**
 * HGETEX, HSETEX, HGETDEL (Redis 8.0). A field found expired on the way is
 * deleted silently and counted: one `hexpired` event for the command, and
 * its HDEL logged, as Redis's hashTypeGetValue with HFE_LAZY_NO_NOTIFICATION.
 */

const HASH = RecordType.HASH;
const HPERSIST = Buffer.from('HPERSIST');
const PXAT = Buffer.from('PXAT');

/**
 * The value of `field`, or undefined when missing; a field whose expiry is
 * before `now` is deleted on the way and pushed on `gone`.
 */
export function getLive(
  h: HashValue,
  field: string,
  now: number,
  gone: string[],
): string | undefined {
  const v = h.get(field);
  if (v === undefined || !h.isExpired(field, now)) return v;
  h.delete(field);
  gone.push(field);
  return undefined;
}

function bulkOrNull(w: ReplyWriter, s: string | undefined): void {
  if (s === undefined) w.null();
  else w.bulkLatin1(s);
}

function nulls(c: Client, n: number): void {
  c.reply.array(n);
  for (let i = 0; i < n; i++) c.reply.null();
}

const bytes = (fields: readonly string[]) => fields.map((f) => Buffer.from(f, 'latin1'));

type GetExOption = 'ex' | 'px' | 'exat' | 'pxat' | 'persist' | null;

function hgetex(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return withCollection<HashValue>(c, key, HASH, (h) => {
    const now = c.now();
    let opt: GetExOption = null;
    for (const w of ['ex', 'px', 'exat', 'pxat', 'persist'] as const) if (eqi(argv[2]!, w)) opt = w;
    let at = 0;
    let fieldsAt = 2;
    if (opt === 'persist') fieldsAt = 3;
    else if (opt !== null) {
      fieldsAt = 4;
      const unit: TimeUnit = opt === 'ex' || opt === 'exat' ? 'seconds' : 'ms';
      at = parseExpireTime(argv[3]!, unit, opt === 'ex' || opt === 'px' ? now : 0, 'hgetex');
    }
    const first = parseFieldsBlock(argv, fieldsAt, NUMFIELDS_POSITIVE);
    if (h === null) {
      nulls(c, argv.length - first);
      return undefined;
    }
    const converted = opt !== null && h.encoding() === 'listpack';
    if (opt !== null) h.withTtls();
    const values: (string | undefined)[] = [];
    const gone: string[] = [];
    const deleted: string[] = [];
    let updated = 0;
    for (let i = first; i < argv.length; i++) {
      const f = latin1(argv[i]!);
      const v = getLive(h, f, now, gone);
      values.push(v);
      if (v === undefined || opt === null) continue;
      if (opt === 'persist') {
        if (h.ttlOf(f) === 0) continue;
        h.setTtl(f, 0);
        updated++;
      } else {
        const r = setFieldExpiry(h, f, at, null, now);
        if (r === SET) updated++;
        else if (r === DELETED) deleted.push(f);
      }
    }
    const reply = () => {
      c.reply.array(values.length);
      for (const v of values) bulkOrNull(c.reply, v);
    };
    if (gone.length === 0 && deleted.length === 0 && updated === 0) {
      c.propagate();
      return whenWritten(converted ? afterChange(c, key, h) : undefined, reply);
    }
    if (gone.length + deleted.length > 0) c.propagate(HDEL, key, ...bytes([...gone, ...deleted]));
    const fields = argv.slice(first - 2);
    if (updated > 0 && opt === 'persist') c.propagate(HPERSIST, key, ...fields);
    else if (updated > 0) c.propagate(HPEXPIREAT, key, msBuffer(at), ...fields);
    else if (gone.length + deleted.length === 0) c.propagate();
    const written = afterChange(c, key, h);
    if (gone.length > 0) notify(c, NotifyClass.hash, 'hexpired', key);
    if (updated > 0) notify(c, NotifyClass.hash, opt === 'persist' ? 'hpersist' : 'hexpire', key);
    else if (deleted.length > 0) notify(c, NotifyClass.hash, 'hdel', key);
    if (h.size === 0) notify(c, NotifyClass.generic, 'del', key);
    const registered =
      updated > 0 && opt !== 'persist' && h.size > 0 ? registerHash(c, key, h) : undefined;
    return whenWritten(bothWritten(written, registered), reply);
  });
}

/** HSETEX's options (Redis's hsetexParseArgs). */
interface SetExArgs {
  readonly condition: 'fnx' | 'fxx' | null;
  readonly expiry: 'ex' | 'px' | 'exat' | 'pxat' | 'keepttl' | null;
  readonly at: number;
  /** The index of the expiry time argument, -1 when none. */
  readonly atIndex: number;
  readonly first: number;
}

const onlyOneExpiryError = () =>
  new CommandError(
    'ERR_SYNTAX',
    'ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified',
  );

function parseSetEx(argv: Buffer[], now: number): SetExArgs {
  let condition: SetExArgs['condition'] = null;
  let expiry: SetExArgs['expiry'] = null;
  let at = 0;
  let atIndex = -1;
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i]!;
    if (eqi(a, 'fields')) {
      if (i >= argv.length - 3) throw wrongArityError('hsetex');
      const n = integerOrNaN(argv[i + 1]!);
      if (!(n >= 1 && n <= 2147483647))
        throw new CommandError('ERR_FIELDS', 'ERR invalid number of fields');
      const remaining = argv.length - i - 2;
      if (remaining % 2 !== 0 || n !== remaining / 2) throw wrongArityError('hsetex');
      return { condition, expiry, at, atIndex, first: i + 2 };
    }
    const kind = (['ex', 'px', 'exat', 'pxat', 'keepttl'] as const).find((w) => eqi(a, w));
    if (kind !== undefined) {
      if (expiry !== null) throw onlyOneExpiryError();
      expiry = kind;
      if (kind === 'keepttl') continue;
      if (i >= argv.length - 1)
        throw new CommandError('ERR_INVALID_EXPIRE', 'ERR missing expire time');
      i++;
      const unit: TimeUnit = kind === 'ex' || kind === 'exat' ? 'seconds' : 'ms';
      at = parseExpireTime(argv[i]!, unit, kind === 'ex' || kind === 'px' ? now : 0, 'hsetex');
      atIndex = i;
      continue;
    }
    if (eqi(a, 'fnx') || eqi(a, 'fxx')) {
      if (condition !== null)
        throw new CommandError(
          'ERR_SYNTAX',
          'ERR Only one of FXX or FNX arguments can be specified',
        );
      condition = eqi(a, 'fnx') ? 'fnx' : 'fxx';
      continue;
    }
    throw new CommandError('ERR_SYNTAX', `ERR unknown argument: ${cString(a)}`, true);
  }
  // Redis asserts here (every argument an option, no FIELDS).
  throw syntaxError();
}

/** `%s` of a C string: the bytes up to a NUL. */
function cString(a: Buffer): string {
  const z = a.indexOf(0);
  return (z === -1 ? a : a.subarray(0, z)).toString('latin1');
}

function hsetex(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  // The arguments are checked before the key's type (Redis's order).
  const now = c.now();
  const o = parseSetEx(argv, now);
  return withCollection<HashValue>(c, key, HASH, (found) => {
    if (found === null && o.condition === 'fxx') {
      c.reply.integer(0);
      return undefined;
    }
    const h = found ?? HashValue.empty();
    const fresh = found === null;
    const gone: string[] = [];
    if (o.condition !== null) {
      let exists = 0;
      for (let i = o.first; i < argv.length; i += 2) {
        const there = getLive(h, latin1(argv[i]!), now, gone) !== undefined;
        if (there) exists++;
        if ((o.condition === 'fxx' && !there) || (o.condition === 'fnx' && there)) break;
      }
      const count = (argv.length - o.first) / 2;
      if ((o.condition === 'fnx' && exists > 0) || (o.condition === 'fxx' && exists !== count)) {
        const reply = () => c.reply.integer(0);
        if (gone.length === 0) {
          c.propagate();
          reply();
          return undefined;
        }
        c.propagate(HDEL, key, ...bytes(gone));
        const written = afterChange(c, key, h);
        notify(c, NotifyClass.hash, 'hexpired', key);
        if (h.size === 0) notify(c, NotifyClass.generic, 'del', key);
        return whenWritten(written, reply);
      }
    }
    const setsExpiry = o.expiry !== null && o.expiry !== 'keepttl';
    if (setsExpiry) h.withTtls();
    let updated = 0;
    let deleted = 0;
    for (let i = o.first; i < argv.length; i += 2) {
      const f = latin1(argv[i]!);
      h.set(f, latin1(argv[i + 1]!), o.expiry !== null);
      if (!setsExpiry) continue;
      const r = setFieldExpiry(h, f, o.at, null, now);
      if (r === SET) updated++;
      else if (r === DELETED) deleted++;
    }
    if (gone.length > 0) c.propagate(HDEL, key, ...bytes(gone));
    if (deleted > 0) {
      // The past time deleted what it set: the fields' HDEL is the effect.
      const fields: Buffer[] = [];
      for (let i = o.first; i < argv.length; i += 2) fields.push(argv[i]!);
      c.propagate(HDEL, key, ...fields);
    } else if (setsExpiry && o.expiry !== 'pxat') {
      const form = argv.slice();
      form[o.atIndex - 1] = PXAT;
      form[o.atIndex] = msBuffer(o.at);
      c.propagate(...form);
    } else c.propagate(...argv);
    const written = afterWriteNew(c, key, h, fresh);
    if (gone.length > 0) notify(c, NotifyClass.hash, 'hexpired', key);
    notify(c, NotifyClass.hash, 'hset', key);
    if (deleted > 0 || updated > 0)
      notify(c, NotifyClass.hash, deleted > 0 ? 'hdel' : 'hexpire', key);
    if (h.size === 0 && !fresh) notify(c, NotifyClass.generic, 'del', key);
    const registered = updated > 0 && h.size > 0 ? registerHash(c, key, h) : undefined;
    return whenWritten(bothWritten(written, registered), () => c.reply.integer(1));
  });
}

function hgetdel(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return withCollection<HashValue>(c, key, HASH, (h) => {
    const first = parseFieldsBlock(argv, 2, NUMFIELDS_POSITIVE);
    if (h === null) {
      nulls(c, argv.length - first);
      return undefined;
    }
    const now = c.now();
    const values: (string | undefined)[] = [];
    const gone: string[] = [];
    const deleted: string[] = [];
    for (let i = first; i < argv.length; i++) {
      const f = latin1(argv[i]!);
      const v = getLive(h, f, now, gone);
      values.push(v);
      if (v !== undefined) {
        h.delete(f);
        deleted.push(f);
      }
    }
    const reply = () => {
      c.reply.array(values.length);
      for (const v of values) bulkOrNull(c.reply, v);
    };
    if (gone.length === 0 && deleted.length === 0) {
      c.propagate();
      reply();
      return undefined;
    }
    c.propagate(HDEL, key, ...bytes([...gone, ...deleted]));
    const written = afterChange(c, key, h);
    if (gone.length > 0) notify(c, NotifyClass.hash, 'hexpired', key);
    if (deleted.length > 0) notify(c, NotifyClass.hash, 'hdel', key);
    if (h.size === 0) notify(c, NotifyClass.generic, 'del', key);
    return whenWritten(written, reply);
  });
}

export const fieldGetSetHandlers = { hgetex, hsetex, hgetdel };
