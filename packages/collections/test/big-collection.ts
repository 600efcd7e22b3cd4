import { RecordType } from '@strata/hlog';
import type { CollectionValue } from '../src/collection-value.js';
import { HashValue } from '../src/hash-value.js';
import { List } from '../src/list.js';
import { SetValue } from '../src/set-value.js';
import { SortedSet } from '../src/zset.js';

/** For tests: a collection of `type` with `n` members (fields, elements) in the large shape. */
export function bigCollection(type: number, n: number): CollectionValue {
  switch (type) {
    case RecordType.HASH: {
      const h = HashValue.empty();
      for (let i = 0; i < n; i++) h.set(`field:${i}`, `value:${i}`);
      return h;
    }
    case RecordType.SET: {
      const s = SetValue.empty();
      for (let i = 0; i < n; i++) s.add(`member:${i}`);
      return s;
    }
    case RecordType.ZSET: {
      const z = new SortedSet();
      for (let i = 0; i < n; i++) z.add(`member:${i}`, (i * 7919) % n);
      return z;
    }
    default: {
      const l = new List();
      for (let i = 0; i < n; i++) l.pushBack(`element:${i}`);
      return l;
    }
  }
}
