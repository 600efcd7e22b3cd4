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
  if (v instanceof HashValue) {
    // Redis 7.4 serializes them as RDB_TYPE_HASH_LISTPACK_EX / _METADATA, which
    // the RDB 7.0 codec (@strata/rdb, version 10) has no encoding for.
    if (v.encoding() === 'listpackex' || v.hasFieldTtls)
      throw new CommandError(
        'ERR_UNSUPPORTED',
        'ERR DUMP of a hash with field expiry times is not supported (RDB 7.0 has no encoding for them)',
      );
    const fields: [Buffer, Buffer][] = [];
    v.forEach((f, x) => {
      fields.push([bytes(f), bytes(x)]);
    });
    return { type: 'hash', fields };
  }
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

/** A RESTOREd value but a stream (streamFromRdb) as the record to write: its type and bytes. */
export function fromRdbValue(v: Exclude<RdbValue, { type: 'stream' }>): {
  type: RecordType;
  record: Buffer;
} {
  // Redis's rdbLoadObject refuses an empty collection.
  if (rdbValueSize(v) === 0) throw new CommandError('ERR_DUMP_PAYLOAD', 'ERR Bad data format');
  switch (v.type) {
    case 'string':
      return { type: RecordType.STRING, record: v.value };
    case 'hash': {
      const h = HashValue.empty();
      for (const [f, x] of v.fields) h.set(text(f), text(x));
      return { type: RecordType.HASH, record: h.encode() };
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
