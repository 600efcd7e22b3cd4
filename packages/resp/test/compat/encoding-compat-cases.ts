import type { CompatCase } from './compat-cases.js';

/**
 * OBJECT ENCODING across each encoding threshold CONFIG SET moves (Redis
 * 7.0's conversion rules), then the defaults again. Lists and sets of
 * non-integers are left out: strata reports Redis 7.2's encodings for them
 * (a small list is a `listpack`, a small set of strings too), where 7.0
 * has only `quicklist` and `hashtable`.
 */
const config = (name: string, value: string) => ['config', 'set', name, value];

export const ENCODING_COMPAT_CASES: readonly CompatCase[] = [
  {
    name: 'hash-max-listpack-entries and -value: listpack until a field too many or too long',
    commands: [
      ['del', 'enc:h', 'enc:h2'],
      config('hash-max-listpack-entries', '4'),
      ['config', 'get', 'hash-max-listpack-entries'],
      ['config', 'get', 'hash-max-ziplist-entries'],
      ['hset', 'enc:h', 'a', '1', 'b', '2', 'c', '3', 'd', '4'],
      ['object', 'encoding', 'enc:h'],
      ['hset', 'enc:h', 'e', '5'],
      ['object', 'encoding', 'enc:h'],
      ['hdel', 'enc:h', 'a', 'b', 'c'],
      ['object', 'encoding', 'enc:h'],
      config('hash-max-listpack-value', '8'),
      ['hset', 'enc:h2', 'f', '12345678'],
      ['object', 'encoding', 'enc:h2'],
      ['hset', 'enc:h2', 'f', '123456789'],
      ['object', 'encoding', 'enc:h2'],
      ['hset', 'enc:h3', 'a-field-of-9', 'v'],
      ['object', 'encoding', 'enc:h3'],
      config('hash-max-ziplist-entries', '512'),
      config('hash-max-ziplist-value', '64'),
      ['config', 'get', 'hash-max-listpack-entries'],
      ['config', 'get', 'hash-max-ziplist-value'],
      ['del', 'enc:h', 'enc:h2', 'enc:h3'],
    ],
  },
  {
    name: 'set-max-intset-entries: an intset until one integer too many',
    commands: [
      ['del', 'enc:s'],
      config('set-max-intset-entries', '3'),
      ['sadd', 'enc:s', '1', '2', '3'],
      ['object', 'encoding', 'enc:s'],
      ['sadd', 'enc:s', '4'],
      ['object', 'encoding', 'enc:s'],
      ['srem', 'enc:s', '1', '2', '3'],
      ['object', 'encoding', 'enc:s'],
      config('set-max-intset-entries', '512'),
      ['config', 'get', 'set-max-intset-entries'],
      ['del', 'enc:s'],
    ],
  },
  {
    name: 'zset-max-listpack-entries and -value: listpack until a member too many or too long',
    commands: [
      ['del', 'enc:z', 'enc:z2'],
      config('zset-max-listpack-entries', '2'),
      ['zadd', 'enc:z', '1', 'a', '2', 'b'],
      ['object', 'encoding', 'enc:z'],
      ['zadd', 'enc:z', '3', 'c'],
      ['object', 'encoding', 'enc:z'],
      config('zset-max-listpack-value', '5'),
      ['zadd', 'enc:z2', '1', 'abcde'],
      ['object', 'encoding', 'enc:z2'],
      ['zadd', 'enc:z2', '2', 'abcdef'],
      ['object', 'encoding', 'enc:z2'],
      config('zset-max-ziplist-entries', '128'),
      config('zset-max-listpack-value', '64'),
      ['config', 'get', 'zset-max-listpack-entries'],
      ['config', 'get', 'zset-max-ziplist-value'],
      ['del', 'enc:z', 'enc:z2'],
    ],
  },
  {
    name: 'refused thresholds change nothing',
    commands: [
      config('hash-max-listpack-entries', '-1'),
      config('set-max-intset-entries', 'x'),
      config('list-max-listpack-size', '2147483648'),
      ['config', 'get', 'hash-max-listpack-entries'],
      ['config', 'get', 'set-max-intset-entries'],
      ['config', 'get', 'list-max-listpack-size'],
    ],
  },
];
