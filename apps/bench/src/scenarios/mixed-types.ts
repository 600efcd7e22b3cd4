import { HashValue, List, SetValue, SortedSet } from '@strata/collections';
import { RecordType, type Store } from '@strata/hlog';

/**
 * Records of every type for the scan scenarios: a collection record is what
 * strata-server writes for a small hash, set, sorted set or list (the
 * collection's own encoding, the record's type byte), so TYPE filters and
 * page summaries see the log a mixed keyspace leaves.
 */

/** The type names SCAN TYPE takes, in `RecordType` order. */
export const TYPE_NAMES = ['string', 'hash', 'set', 'zset', 'list'] as const;
export type TypeName = (typeof TYPE_NAMES)[number];

const CODES: Record<TypeName, RecordType> = {
  string: RecordType.STRING,
  hash: RecordType.HASH,
  set: RecordType.SET,
  zset: RecordType.ZSET,
  list: RecordType.LIST,
};

/** The encoded value of a small collection of `type` with `members` members (`string`: `string`'s bytes). */
export function encodedValue(type: TypeName, members: number, string: Uint8Array): Uint8Array {
  switch (type) {
    case 'string':
      return string;
    case 'hash': {
      const h = HashValue.empty();
      for (let i = 0; i < members; i++) h.set(`field:${i}`, 'value');
      return h.encode();
    }
    case 'set': {
      const s = SetValue.empty();
      for (let i = 0; i < members; i++) s.add(`member:${i}`);
      return s.encode();
    }
    case 'zset': {
      const z = new SortedSet();
      for (let i = 0; i < members; i++) z.add(`member:${i}`, i);
      return z.encode();
    }
    case 'list': {
      const l = new List();
      for (let i = 0; i < members; i++) l.pushBack(`element:${i}`);
      return l.encode();
    }
  }
}

/** One encoded value per type, made once: the scenarios write many records of each. */
export function valuesByType(members: number, string: Uint8Array): Uint8Array[] {
  return TYPE_NAMES.map((t) => encodedValue(t, members, string));
}

/** Writes `key` as a record of type `TYPE_NAMES[type]` holding `values[type]`. */
export function writeTyped(
  store: Store,
  key: Uint8Array,
  type: number,
  values: readonly Uint8Array[],
): Promise<unknown> | undefined {
  const v = store.upsert(key, values[type]!, 0, 0, CODES[TYPE_NAMES[type]!]);
  return v.status === 'pending' ? v.pending : undefined;
}
