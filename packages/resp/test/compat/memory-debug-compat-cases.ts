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
