import { type Reply, ReplyMap } from './reply-value.js';
import { StoreError } from './store-error.js';
import {
  bytesArg,
  decodeValue,
  encodeValue,
  type KeyInput,
  type ValueEncoding,
  type WriteOf,
} from './value-encoding.js';

/** How keys, fields and members come back: as strings (UTF-8) or Buffers. */
export type KeyEncoding = 'utf8' | 'buffer';

/** What a key, field or member is in JavaScript under a key encoding. */
export type KeyOf<K extends KeyEncoding> = K extends 'buffer' ? Buffer : string;

/** A reply turned into the method's result. */
export type Decoder<T> = (reply: Reply) => T;

/** `SET`'s options. */
export interface SetOptions {
  /** Expires after this many milliseconds (PX). */
  readonly ttlMs?: number;
  /** Only if the key does not exist (NX). */
  readonly nx?: boolean;
  /** Only if the key exists (XX). */
  readonly xx?: boolean;
}

/** A member of a sorted set with its score. */
export interface ScoredMember<M> {
  readonly member: M;
  readonly score: number;
}

const word = (w: string): Buffer => Buffer.from(w, 'latin1');
const num = (n: number, name: string): Buffer => {
  if (typeof n !== 'number' || Number.isNaN(n)) throw new TypeError(`${name} must be a number`);
  return Buffer.from(String(n), 'latin1');
};

function asNumber(r: Reply): number {
  if (typeof r === 'number') return r;
  if (Buffer.isBuffer(r)) return Number(r.toString('latin1'));
  throw new StoreError('ERR_COMMAND', `expected a number reply, got ${typeof r}`);
}

function asList(r: Reply): readonly Reply[] {
  if (Array.isArray(r)) return r;
  if (r === null) return [];
  throw new StoreError('ERR_COMMAND', 'expected an array reply');
}

/**
 * The commands of a database as methods, each one Redis command run by the
 * server's own handler: the argv it sends and how its reply is read. A
 * Database runs them at once; a Transaction queues them for EXEC.
 */
export abstract class Commands<V, K extends KeyEncoding> {
  protected constructor(
    protected readonly valueEncoding: ValueEncoding,
    protected readonly keyEncoding: K,
  ) {}

  /** Runs (or queues) one command; its reply read by `decode`. */
  protected abstract run<T>(argv: Buffer[], decode: Decoder<T>): Promise<T>;

  protected value(v: WriteOf<V>, name = 'value'): Buffer {
    return encodeValue(this.valueEncoding, v, name);
  }

  protected valueOf = (r: Reply): V | undefined => {
    if (r === null) return undefined;
    if (!Buffer.isBuffer(r)) throw new StoreError('ERR_COMMAND', 'expected a bulk string reply');
    return decodeValue(this.valueEncoding, r) as V;
  };

  protected keyOf = (r: Reply): KeyOf<K> => {
    const b = Buffer.isBuffer(r) ? r : Buffer.from(String(r), 'utf8');
    return (this.keyEncoding === 'buffer' ? b : b.toString('utf8')) as KeyOf<K>;
  };

  protected valueList = (r: Reply): V[] => asList(r).map((x) => this.valueOf(x) as V);
  protected keyList = (r: Reply): KeyOf<K>[] => asList(r).map(this.keyOf);

  private static args(name: string, list: readonly KeyInput[]): Buffer[] {
    return list.map((k, i) => bytesArg(k, `${name}[${i}]`));
  }

  // ---- strings ---------------------------------------------------------------

  /** SET: true when written (false when `nx`/`xx` kept it from writing). */
  set(key: KeyInput, value: WriteOf<V>, options: SetOptions = {}): Promise<boolean> {
    const argv = [word('SET'), bytesArg(key, 'key'), this.value(value)];
    if (options.ttlMs !== undefined) {
      if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs <= 0) {
        throw new TypeError('ttlMs must be a positive whole number of milliseconds');
      }
      argv.push(word('PX'), num(options.ttlMs, 'ttlMs'));
    }
    if (options.nx) argv.push(word('NX'));
    if (options.xx) argv.push(word('XX'));
    return this.run(argv, (r) => r === 'OK');
  }

  /** DEL: how many of the keys existed. */
  del(...keys: KeyInput[]): Promise<number> {
    return this.run([word('DEL'), ...Commands.args('keys', keys)], asNumber);
  }

  /** EXISTS: how many of the keys exist. */
  exists(...keys: KeyInput[]): Promise<number> {
    return this.run([word('EXISTS'), ...Commands.args('keys', keys)], asNumber);
  }

  /** INCRBY: the new value. */
  incr(key: KeyInput, by = 1): Promise<number> {
    return this.run([word('INCRBY'), bytesArg(key, 'key'), num(by, 'by')], asNumber);
  }

  /** PEXPIRE: true when the key exists and got the expiry. */
  expire(key: KeyInput, ms: number): Promise<boolean> {
    return this.run([word('PEXPIRE'), bytesArg(key, 'key'), num(ms, 'ms')], (r) => r === 1);
  }

  /** PTTL: milliseconds left, -1 without an expiry, -2 for a missing key. */
  ttl(key: KeyInput): Promise<number> {
    return this.run([word('PTTL'), bytesArg(key, 'key')], asNumber);
  }

  /** PERSIST: true when an expiry was removed. */
  persist(key: KeyInput): Promise<boolean> {
    return this.run([word('PERSIST'), bytesArg(key, 'key')], (r) => r === 1);
  }

  /** TYPE: 'string', 'hash', 'set', 'zset', 'list', 'stream' or 'none'. */
  type(key: KeyInput): Promise<string> {
    return this.run([word('TYPE'), bytesArg(key, 'key')], (r) => String(r));
  }

  // ---- hashes ----------------------------------------------------------------

  /** HSET: the number of fields added. */
  hset(
    key: KeyInput,
    fields: Readonly<Record<string, WriteOf<V>>> | ReadonlyMap<KeyInput, WriteOf<V>>,
  ): Promise<number> {
    const argv = [word('HSET'), bytesArg(key, 'key')];
    const entries = fields instanceof Map ? [...fields] : Object.entries(fields);
    for (const [f, v] of entries)
      argv.push(bytesArg(f as KeyInput, 'field'), this.value(v as WriteOf<V>));
    return this.run(argv, asNumber);
  }

  /** HGET: the field's value, or undefined. */
  hget(key: KeyInput, field: KeyInput): Promise<V | undefined> {
    return this.run([word('HGET'), bytesArg(key, 'key'), bytesArg(field, 'field')], this.valueOf);
  }

  /** HGETALL: the fields and values (an empty map for a missing key). */
  hgetall(key: KeyInput): Promise<Map<KeyOf<K>, V>> {
    return this.run([word('HGETALL'), bytesArg(key, 'key')], (r) => {
      const out = new Map<KeyOf<K>, V>();
      if (r instanceof ReplyMap)
        for (const [f, v] of r.entries) out.set(this.keyOf(f), this.valueOf(v) as V);
      return out;
    });
  }

  /** HDEL: the number of fields removed. */
  hdel(key: KeyInput, ...fields: KeyInput[]): Promise<number> {
    return this.run(
      [word('HDEL'), bytesArg(key, 'key'), ...Commands.args('fields', fields)],
      asNumber,
    );
  }

  /** HLEN. */
  hlen(key: KeyInput): Promise<number> {
    return this.run([word('HLEN'), bytesArg(key, 'key')], asNumber);
  }

  // ---- sets ------------------------------------------------------------------

  /** SADD: the number of members added. */
  sadd(key: KeyInput, ...members: KeyInput[]): Promise<number> {
    return this.run(
      [word('SADD'), bytesArg(key, 'key'), ...Commands.args('members', members)],
      asNumber,
    );
  }

  /** SREM: the number of members removed. */
  srem(key: KeyInput, ...members: KeyInput[]): Promise<number> {
    return this.run(
      [word('SREM'), bytesArg(key, 'key'), ...Commands.args('members', members)],
      asNumber,
    );
  }

  /** SISMEMBER. */
  sismember(key: KeyInput, member: KeyInput): Promise<boolean> {
    return this.run(
      [word('SISMEMBER'), bytesArg(key, 'key'), bytesArg(member, 'member')],
      (r) => r === 1,
    );
  }

  /** SMEMBERS (in no particular order). */
  smembers(key: KeyInput): Promise<KeyOf<K>[]> {
    return this.run([word('SMEMBERS'), bytesArg(key, 'key')], this.keyList);
  }

  /** SCARD. */
  scard(key: KeyInput): Promise<number> {
    return this.run([word('SCARD'), bytesArg(key, 'key')], asNumber);
  }

  // ---- sorted sets -----------------------------------------------------------

  /** ZADD: the number of members added. */
  zadd(key: KeyInput, ...members: ScoredMember<KeyInput>[]): Promise<number> {
    const argv = [word('ZADD'), bytesArg(key, 'key')];
    for (const [i, m] of members.entries()) {
      argv.push(num(m.score, `members[${i}].score`), bytesArg(m.member, `members[${i}].member`));
    }
    return this.run(argv, asNumber);
  }

  /** ZSCORE: the member's score, or undefined. */
  zscore(key: KeyInput, member: KeyInput): Promise<number | undefined> {
    return this.run([word('ZSCORE'), bytesArg(key, 'key'), bytesArg(member, 'member')], (r) =>
      r === null ? undefined : asNumber(r),
    );
  }

  /** ZRANGE start stop: members by rank (negative ranks count from the end). */
  zrange(key: KeyInput, start: number, stop: number): Promise<KeyOf<K>[]> {
    return this.run(
      [word('ZRANGE'), bytesArg(key, 'key'), num(start, 'start'), num(stop, 'stop')],
      this.keyList,
    );
  }

  /** ZRANGE start stop WITHSCORES. */
  zrangeWithScores(key: KeyInput, start: number, stop: number): Promise<ScoredMember<KeyOf<K>>[]> {
    const argv = [word('ZRANGE'), bytesArg(key, 'key'), num(start, 'start'), num(stop, 'stop')];
    argv.push(word('WITHSCORES'));
    return this.run(argv, (r) =>
      asList(r).map((pair) => {
        const [m, s] = asList(pair);
        return { member: this.keyOf(m ?? null), score: asNumber(s ?? null) };
      }),
    );
  }

  /** ZREM: the number of members removed. */
  zrem(key: KeyInput, ...members: KeyInput[]): Promise<number> {
    return this.run(
      [word('ZREM'), bytesArg(key, 'key'), ...Commands.args('members', members)],
      asNumber,
    );
  }

  /** ZCARD. */
  zcard(key: KeyInput): Promise<number> {
    return this.run([word('ZCARD'), bytesArg(key, 'key')], asNumber);
  }

  // ---- lists -----------------------------------------------------------------

  /** LPUSH: the list's new length. */
  lpush(key: KeyInput, ...values: WriteOf<V>[]): Promise<number> {
    return this.run(
      [word('LPUSH'), bytesArg(key, 'key'), ...values.map((v) => this.value(v))],
      asNumber,
    );
  }

  /** RPUSH: the list's new length. */
  rpush(key: KeyInput, ...values: WriteOf<V>[]): Promise<number> {
    return this.run(
      [word('RPUSH'), bytesArg(key, 'key'), ...values.map((v) => this.value(v))],
      asNumber,
    );
  }

  /** LPOP: the first value, or undefined. */
  lpop(key: KeyInput): Promise<V | undefined> {
    return this.run([word('LPOP'), bytesArg(key, 'key')], this.valueOf);
  }

  /** RPOP: the last value, or undefined. */
  rpop(key: KeyInput): Promise<V | undefined> {
    return this.run([word('RPOP'), bytesArg(key, 'key')], this.valueOf);
  }

  /** LRANGE start stop. */
  lrange(key: KeyInput, start: number, stop: number): Promise<V[]> {
    return this.run(
      [word('LRANGE'), bytesArg(key, 'key'), num(start, 'start'), num(stop, 'stop')],
      this.valueList,
    );
  }

  /** LLEN. */
  llen(key: KeyInput): Promise<number> {
    return this.run([word('LLEN'), bytesArg(key, 'key')], asNumber);
  }
}
