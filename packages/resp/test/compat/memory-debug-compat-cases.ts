import type { CompatCase } from './compat-cases.js';

/**
 * MEMORY STATS/DOCTOR/MALLOC-STATS/PURGE/HELP and DEBUG against Redis 7.0
 * (recorded in memory-debug-compat-expected.json with
 * `STRATA_RECORD_COMPAT=1 npx vitest run test/compat/memory-debug-compat.test.ts`
 * from packages/resp). What differs by nature between two servers (memory
 * figures, an object's address and LRU clock) is compared by shape: `mask`
 * rewrites both transcripts the same way, keeping field names, reply
 * types, counts and order. The cases of a list share one server.
 */
export interface MaskedCase extends CompatCase {
  readonly mask?: (text: string) => string;
}

/**
 * MEMORY STATS values hidden, each as its type (`:<n>` an integer, `,<f>`
 * a RESP3 double, `$<f>` a RESP2 one), but keys.count's, which must agree.
 */
export function maskMemoryStats(text: string): string {
  return text.replace(
    /(\$\d+\r\n([a-z][a-z0-9.-]*)\r\n)(:-?\d+|,[^\r]+|\$\d+\r\n[-0-9.e+]+)\r\n/g,
    (all, head: string, name: string, value: string) => {
      if (name === 'keys.count') return all;
      const kind = value[0] === ':' ? ':<n>' : value[0] === ',' ? ',<f>' : '$<f>';
      return `${head}${kind}\r\n`;
    },
  );
}

/** DEBUG OBJECT lines: the address and the LRU clock hidden. */
export function maskDebugObject(text: string): string {
  return text
    .replace(/Value at:0x[0-9a-f]+/g, 'Value at:<addr>')
    .replace(/ lru:\d+ lru_seconds_idle:\d+/g, ' lru:<n> lru_seconds_idle:<n>');
}

/** On servers as started by default (enable-debug-command no). */
export const MEMORY_COMPAT_CASES: readonly MaskedCase[] = [
  {
    name: 'MEMORY DOCTOR on an empty instance, arity errors',
    commands: [
      ['flushall'],
      ['memory', 'doctor'],
      ['memory', 'doctor', 'x'],
      ['memory', 'stats', 'x'],
      ['memory', 'purge', 'x'],
      ['memory', 'malloc-stats', 'x'],
      ['memory', 'nosuch'],
    ],
  },
  {
    name: 'MEMORY DOCTOR in RESP3: verbatim text',
    resp3: true,
    commands: [['flushall'], ['memory', 'doctor']],
  },
  {
    name: 'MEMORY HELP and PURGE',
    commands: [
      ['memory', 'help'],
      ['MEMORY', 'PURGE'],
    ],
  },
  {
    name: 'MEMORY STATS, empty: field names, order and reply types (RESP2)',
    commands: [['flushall'], ['memory', 'stats']],
    mask: maskMemoryStats,
  },
  {
    name: 'MEMORY STATS with keys in db 0 and 3: a db.N map each, keys.count (RESP2)',
    commands: [
      ['flushall'],
      ['set', 'a', '1'],
      ['set', 'b', 'x', 'ex', '100'],
      ['rpush', 'l', 'a', 'b'],
      ['select', '3'],
      ['hset', 'h', 'f', 'v'],
      ['memory', 'stats'],
      ['flushall'],
    ],
    mask: maskMemoryStats,
  },
  {
    name: 'MEMORY STATS with keys (RESP3): maps and doubles',
    resp3: true,
    commands: [
      ['flushall'],
      ['set', 'a', '1'],
      ['select', '2'],
      ['sadd', 's', 'm'],
      ['memory', 'stats'],
      ['flushall'],
    ],
    mask: maskMemoryStats,
  },
  {
    name: 'DEBUG refused while enable-debug-command is no, after the arity check',
    commands: [['debug'], ['debug', 'help'], ['debug', 'sleep', '0'], ['debug', 'nosuch', 'x']],
  },
  {
    name: 'DEBUG refused in RESP3',
    resp3: true,
    commands: [['debug', 'object', 'a']],
  },
];

/** On servers started with enable-debug-command yes. */
export const DEBUG_COMPAT_CASES: readonly MaskedCase[] = [
  {
    name: 'DEBUG HELP, wrong counts, unknown subcommands',
    commands: [
      ['debug', 'help'],
      ['debug', 'help', 'x'],
      ['debug', 'nosuch'],
      ['debug', 'stringmatch-len'],
      ['debug', 'sleep'],
      ['debug', 'object'],
      ['debug', 'object', 'a', 'b'],
      ['debug', 'set-active-expire'],
    ],
  },
  {
    name: 'DEBUG SLEEP: 0, negative, not a number, a fraction',
    commands: [
      ['debug', 'sleep', '0'],
      ['debug', 'sleep', '-1'],
      ['debug', 'sleep', 'x'],
      ['DEBUG', 'SLEEP', '0.05'],
      ['ping'],
    ],
  },
  {
    name: 'DEBUG OBJECT of strings: encodings, refcounts, serialized lengths (nothing LZF would shrink)',
    commands: [
      ['flushall'],
      ['set', 'small', '5'],
      ['set', 'neg', '-200'],
      ['set', 'i32', '100000'],
      ['set', 'big', '12345678901'],
      ['set', 'word', 'hello'],
      ['set', 'num-text', '007'],
      ['set', 'long', 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP'],
      ['debug', 'object', 'small'],
      ['debug', 'object', 'neg'],
      ['debug', 'object', 'i32'],
      ['debug', 'object', 'big'],
      ['debug', 'object', 'word'],
      ['debug', 'object', 'num-text'],
      ['debug', 'object', 'long'],
      ['debug', 'object', 'missing'],
      ['flushall'],
    ],
    mask: maskDebugObject,
  },
  {
    name: 'DEBUG OBJECT in RESP3',
    resp3: true,
    commands: [
      ['set', 'w', 'abc'],
      ['debug', 'object', 'w'],
      ['debug', 'object', 'nope'],
      ['del', 'w'],
    ],
    mask: maskDebugObject,
  },
  {
    name: 'DEBUG SET-ACTIVE-EXPIRE: any value, 1 back on',
    commands: [
      ['debug', 'set-active-expire', '0'],
      ['debug', 'set-active-expire', 'x'],
      ['debug', 'set-active-expire', '2'],
      ['debug', 'set-active-expire', '1'],
    ],
  },
  {
    name: 'DEBUG QUICKLIST-PACKED-THRESHOLD: memory values under 4gb',
    commands: [
      ['debug', 'quicklist-packed-threshold', '0'],
      ['debug', 'quicklist-packed-threshold', '1'],
      ['debug', 'quicklist-packed-threshold', '1gb'],
      ['debug', 'quicklist-packed-threshold', '100KB'],
      ['debug', 'quicklist-packed-threshold', '4095mb'],
      ['debug', 'quicklist-packed-threshold', '4gb'],
      ['debug', 'quicklist-packed-threshold', '5gb'],
      ['debug', 'quicklist-packed-threshold', '-1'],
      ['debug', 'quicklist-packed-threshold', '1x'],
      ['debug', 'quicklist-packed-threshold'],
      ['debug', 'quicklist-packed-threshold', '0'],
    ],
  },
];

/** `n` commands made by `f` from 0 .. n-1. */
const times = (n: number, f: (i: number) => string[]): string[][] =>
  Array.from({ length: n }, (_, i) => f(i));

/**
 * One key of every type, in two databases: strings (integer and text),
 * lists (a small one and one past 128 items), sets (integers and text),
 * sorted sets whose scores print differently with %.17g (0.1, 1e20, inf),
 * a hash, streams (one past 1000 entries: sealed blocks here), a TTL.
 */
const EVERY_TYPE: readonly string[][] = [
  ['flushall'],
  ['set', 'str', 'hello'],
  ['set', 'int', '12345'],
  ['set', 'ttl', 'v', 'ex', '1000'],
  ['rpush', 'list', 'a', 'b', '3', '007'],
  ['rpush', 'biglist', ...Array.from({ length: 200 }, (_, i) => `item-${i}`)],
  ['sadd', 'iset', '1', '2', '-30', '400000'],
  ['sadd', 'sset', 'x', 'y', 'zeta'],
  ['zadd', 'zs', '1', 'one', '1.5', 'half', '0.1', 'tenth', '-inf', 'low', '1e20', 'big'],
  ['zadd', 'zint', '3', 'a', '-2', 'b', '0', 'c'],
  ['hset', 'h', 'f1', 'v1', 'num', '42', 'empty', ''],
  ['xadd', 'st', '1-1', 'f', 'v', 'g', 'w'],
  ['xadd', 'st', '2-5', 'only', 'one'],
  ['pexpireat', 'h', '4102444800123'],
  ...times(1100, (i) => ['xadd', 'bigst', `${i + 1}-0`, 'n', String(i)]),
  ['select', '2'],
  ['set', 'str', 'hello'],
  ['rpush', 'list', 'b', 'a'],
  ['select', '0'],
];

const ALL_KEYS = [
  'str',
  'int',
  'ttl',
  'list',
  'biglist',
  'iset',
  'sset',
  'zs',
  'zint',
  'h',
  'st',
  'bigst',
  'missing',
];

/** DIGEST, DIGEST-VALUE, STRINGMATCH-TEST, LISTPACK, QUICKLIST, CHANGE-REPL-ID, RELOAD. */
export const DEBUG_DATA_CASES: readonly MaskedCase[] = [
  {
    name: 'DEBUG DIGEST of an empty dataset: 40 zeros; DIGEST-VALUE of nothing and of missing keys',
    commands: [
      ['flushall'],
      ['debug', 'digest'],
      ['debug', 'digest', 'x'],
      ['debug', 'digest-value'],
      ['debug', 'digest-value', 'nokey', 'other'],
    ],
  },
  {
    name: 'DEBUG DIGEST and DIGEST-VALUE of every type, TTLs and two databases',
    commands: [
      ...EVERY_TYPE,
      ['debug', 'digest'],
      ['debug', 'digest-value', ...ALL_KEYS],
      ['select', '2'],
      ['debug', 'digest-value', 'str', 'list'],
      ['select', '0'],
      // Order of a list counts, of a set not; a TTL counts, its length not.
      ['del', 'list'],
      ['rpush', 'list', 'b', 'a', '3', '007'],
      ['srem', 'sset', 'x'],
      ['sadd', 'sset', 'x'],
      ['expire', 'ttl', '5'],
      ['debug', 'digest-value', 'list', 'sset', 'ttl'],
      ['persist', 'ttl'],
      ['expireat', 'ttl', '4102444800'],
      ['debug', 'digest-value', 'ttl'],
      ['debug', 'digest'],
    ],
  },
  {
    // 400 values of 300 bytes outgrow the test stores' 64 KiB of log memory: most are read from disk.
    name: 'DEBUG DIGEST and DIGEST-VALUE with most keys on disk (db 5)',
    commands: [
      ['select', '5'],
      ...times(400, (i) => ['set', `disk:${i}`, `${i}:${'v'.repeat(300)}`]),
      ...times(40, (i) => ['hset', `dh:${i}`, 'f', `${i}:${'w'.repeat(300)}`]),
      ['debug', 'digest-value', 'disk:0', 'disk:1', 'dh:0', 'disk:399'],
      ['debug', 'digest'],
      ['flushdb'],
      ['select', '0'],
    ],
  },
  {
    name: 'DEBUG LISTPACK and QUICKLIST: encodings, strings, missing keys, counts',
    commands: [
      ['debug', 'listpack', 'h'],
      ['debug', 'listpack', 'zs'],
      ['debug', 'listpack', 'biglist'],
      ['debug', 'listpack', 'sset'],
      ['debug', 'listpack', 'iset'],
      ['debug', 'listpack', 'str'],
      ['debug', 'listpack', 'missing'],
      ['debug', 'quicklist', 'biglist'],
      ['debug', 'quicklist', 'biglist', '1'],
      ['debug', 'quicklist', 'biglist', 'x'],
      ['debug', 'quicklist', 'h'],
      ['debug', 'quicklist', 'int'],
      ['debug', 'quicklist', 'missing'],
      ['debug', 'quicklist', 'biglist', '1', '2'],
      ['debug', 'listpack'],
      ['debug', 'listpack', 'h', 'x'],
    ],
  },
  {
    name: 'DEBUG LISTPACK and QUICKLIST in RESP3',
    resp3: true,
    commands: [
      ['hset', 'h3', 'a', 'b'],
      ['debug', 'listpack', 'h3'],
      ['debug', 'quicklist', 'h3'],
      ['del', 'h3'],
    ],
  },
  {
    name: 'DEBUG STRINGMATCH-TEST and CHANGE-REPL-ID counts; CHANGE-REPL-ID answers OK',
    commands: [
      ['debug', 'stringmatch-test', 'x'],
      ['debug', 'change-repl-id'],
      ['DEBUG', 'CHANGE-REPL-ID'],
      ['debug', 'change-repl-id', 'x'],
    ],
  },
  {
    name: 'DEBUG RELOAD keeps every type and TTL: the digest is the same after it',
    commands: [
      ['debug', 'digest'],
      ['debug', 'reload'],
      ['debug', 'digest'],
      ['debug', 'digest-value', ...ALL_KEYS],
      ['get', 'str'],
      ['lrange', 'list', '0', '-1'],
      ['zrange', 'zs', '0', '-1', 'withscores'],
      ['xlen', 'bigst'],
      ['xrange', 'st', '-', '+'],
      ['type', 'h'],
      ['expiretime', 'ttl'],
      ['pexpiretime', 'h'],
      ['select', '2'],
      ['lrange', 'list', '0', '-1'],
      ['select', '0'],
      ['set', 'after', 'x'],
      ['debug', 'reload', 'MERGE', 'NOFLUSH'],
      ['get', 'after'],
      ['debug', 'reload', 'nosave'],
      ['get', 'after'],
      ['debug', 'digest'],
      ['flushall'],
    ],
  },
  // NOFLUSH alone over keys is not run: redis-server stops on the duplicated keys.
  {
    name: 'DEBUG RELOAD: options, an unknown one refused before anything is saved',
    commands: [
      ['flushall'],
      ['set', 'k', 'v'],
      ['debug', 'reload', 'nosuch'],
      ['debug', 'reload', 'merge', 'x'],
      ['debug', 'reload', 'merge'],
      ['get', 'k'],
      ['flushall'],
    ],
  },
  {
    name: 'DEBUG RELOAD in RESP3',
    resp3: true,
    commands: [
      ['set', 'r3', 'v'],
      ['debug', 'reload'],
      ['get', 'r3'],
      ['del', 'r3'],
    ],
  },
  {
    name: 'DEBUG DIGEST and DIGEST-VALUE in RESP3',
    resp3: true,
    commands: [
      ['flushall'],
      ['set', 'a', '1'],
      ['zadd', 'z', '2.5', 'm'],
      ['debug', 'digest'],
      ['debug', 'digest-value', 'a', 'z', 'nokey'],
      ['flushall'],
      ['debug', 'digest'],
    ],
  },
];
