import {
  type CollectionStore,
  decoderFor,
  HashValue,
  List,
  SetValue,
  SortedSet,
} from '@strata/collections';
import { RecordType } from '@strata/hlog';
import type { EncodableValue, RdbValue } from '@strata/rdb';
import { CommandError } from '../../errors.js';
import { streamToRdb } from './stream-bridge.js';

/**
 * Between a record of the log and Redis's value types (`@strata/rdb`):
 * what DUMP serializes and what RESTORE writes. Members are latin1
 * strings in the collections, the bytes themselves in RDB.
 */

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');
const text = (b: Buffer): string => b.toString('latin1');

/** The RDB value of a record of `type` (a stream's blocks read from `collections`). */
export async function rdbValueOf(
  collections: CollectionStore,
  type: RecordType,
  record: Buffer,
): Promise<EncodableValue> {
  if (type === RecordType.STREAM) return streamToRdb(collections, record);
  const v = toRdbValue(type, record);
  if (v === null) throw new CommandError('ERR_UNSUPPORTED', `ERR DUMP of record type ${type}`);
  return v;
}

/** The RDB value of a record of `type` but a stream (null for a stream or an unknown type). */
function toRdbValue(type: RecordType, record: Buffer): EncodableValue | null {
  if (type === RecordType.STRING) return { type: 'string', value: record };
  const decode = decoderFor(type);
  if (decode === undefined) return null;
  const v = decode(record);
  if (v instanceof HashValue) return hashToRdb(v, Date.now());
  if (v instanceof SetValue) {
    const members: Buffer[] = [];
    v.forEach((m) => {
      members.push(bytes(m));
    });
    return { type: 'set', members };
  }
  if (v instanceof SortedSet) {
    const entries: [Buffer, number][] = [];
    v.forEach((score, m) => {
      entries.push([bytes(m), score]);
    });
    return { type: 'zset', entries };
  }
  if (v instanceof List) {
    const items: Buffer[] = [];
    v.forRange(0, v.size - 1, (x) => {
      items.push(bytes(x));
    });
    return { type: 'list', items };
  }
  return null;
}

/**
 * A hash as RDB holds it; with field expiry times, as Redis 7.4 does
 * (`expiries`: RDB types 24/25, RDB 12). Fields already expired but not yet
 * deleted are left out: no reader would see them. A hash whose fields have
 * no expiry time left encodes as Redis 7.0's, whichever shape it had.
 */
function hashToRdb(v: HashValue, now: number): EncodableValue {
  const fields: [Buffer, Buffer][] = [];
  if (!v.hasFieldTtls) {
    v.forEach((f, x) => {
      fields.push([bytes(f), bytes(x)]);
    });
    return { type: 'hash', fields };
  }
  const expiries: number[] = [];
  v.forEach((f, x) => {
    if (v.isExpired(f, now)) return;
    fields.push([bytes(f), bytes(x)]);
    expiries.push(v.ttlOf(f));
  });
  return { type: 'hash', fields, expiries };
}

/**
 * Members, fields or items of a collection, for Redis's empty-collection
 * check; 1 for a string and a stream (a stream without entries is a value:
 * Redis saves and loads it).
 */
export function rdbValueSize(v: RdbValue): number {
  switch (v.type) {
    case 'hash':
      return v.fields.length;
    case 'set':
      return v.members.length;
    case 'zset':
      return v.entries.length;
    case 'list':
      return v.items.length;
    default:
      return 1;
  }
}

/** A RESTOREd value's record: its type and bytes, and a hash with field expiry times to register. */
export interface RestoredRecord {
  type: RecordType;
  record: Buffer;
  /** Set for a hash with field expiry times: the active cycle must learn of it. */
  fieldExpiry?: HashValue;
}

/** A RESTOREd value but a stream (streamFromRdb) as the record to write. */
export function fromRdbValue(v: Exclude<RdbValue, { type: 'stream' }>): RestoredRecord {
  // Redis's rdbLoadObject refuses an empty collection.
  if (rdbValueSize(v) === 0) throw new CommandError('ERR_DUMP_PAYLOAD', 'ERR Bad data format');
  switch (v.type) {
    case 'string':
      return { type: RecordType.STRING, record: v.value };
    case 'hash': {
      const h = HashValue.empty();
      for (const [f, x] of v.fields) h.set(text(f), text(x));
      const expiries = v.expiries;
      if (expiries === undefined) return { type: RecordType.HASH, record: h.encode() };
      h.withTtls();
      v.fields.forEach(([f], i) => {
        const at = expiries[i] ?? 0;
        if (at !== 0) h.setTtl(text(f), at);
      });
      const fieldExpiry = h.hasFieldTtls ? h : undefined;
      return { type: RecordType.HASH, record: h.encode(), fieldExpiry };
    }
    case 'set': {
      const s = SetValue.empty();
      for (const m of v.members) s.add(text(m));
      return { type: RecordType.SET, record: s.encode() };
    }
    case 'zset': {
      const z = new SortedSet();
      for (const [m, score] of v.entries) z.add(text(m), score);
      return { type: RecordType.ZSET, record: z.encode() };
    }
    case 'list': {
      const l = new List();
      for (const x of v.items) l.pushBack(text(x));
      return { type: RecordType.LIST, record: l.encode() };
    }
  }
}
