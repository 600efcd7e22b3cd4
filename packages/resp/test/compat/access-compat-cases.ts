import type { CompatCase } from './compat-cases.js';

/**
 * OBJECT IDLETIME and OBJECT FREQ against Redis 7.0 (recorded from
 * redis-server 7.0.15 in access-compat-expected.json with
 * `STRATA_RECORD_COMPAT=1 npx vitest run test/compat/access-compat.test.ts`
 * from packages/resp). Only figures that do not depend on the time are
 * compared: IDLETIME right after writes and lookups (0), and FREQ under
 * allkeys-lfu with lfu-log-factor 0 (every touching lookup counts one) and
 * lfu-decay-time 0 (no decay across a minute's turn): which commands touch
 * a key (GET, STRLEN, TOUCH, writes, a collection's reads and writes) and
 * which do not (TYPE, EXISTS, TTL, OBJECT), a deleted and re-created key
 * starting over at 5, RENAME keeping the word, COPY's copy new, RESTORE's
 * FREQ and IDLETIME. `fill` pushes the first keys out of the test server's
 * small log (64 KiB), so their reads come from the disk. Each case runs
 * again in RESP3.
 */

/** DUMP of the string `v` by redis-server 7.0.15 (latin1). */
const V = Buffer.from('0001760a009108ceb219388ace', 'hex').toString('latin1');

const config = (name: string, value: string) => ['config', 'set', name, value];

/** One MSET of 40 keys of 2 KiB: more than the test server's log memory. */
function fill(prefix: string): string[] {
  const argv = ['mset'];
  for (let i = 0; i < 40; i++) argv.push(`${prefix}:fill:${i}`, 'x'.repeat(2048));
  return argv;
}

const lfu = [
  config('maxmemory-policy', 'allkeys-lfu'),
  config('lfu-log-factor', '0'),
  config('lfu-decay-time', '0'),
];

const CASES: readonly CompatCase[] = [
  {
    name: 'IDLETIME: 0 after a write and after lookups, on disk too; FREQ refused',
    commands: [
      config('maxmemory-policy', 'noeviction'),
      ['set', 'a1:s', 'v'],
      ['object', 'idletime', 'a1:s'],
      ['get', 'a1:s'],
      ['type', 'a1:s'],
      ['object', 'idletime', 'a1:s'],
      ['rpush', 'a1:l', 'a', 'b'],
      ['lrange', 'a1:l', '0', '-1'],
      ['object', 'idletime', 'a1:l'],
      ['hset', 'a1:h', 'f', 'v'],
      ['object', 'idletime', 'a1:h'],
      fill('a1'),
      ['object', 'idletime', 'a1:s'],
      ['get', 'a1:s'],
      ['object', 'idletime', 'a1:s'],
      ['object', 'freq', 'a1:s'],
      ['restore', 'a1:r', '0', V, 'idletime', '1000'],
      ['object', 'idletime', 'a1:r'],
      ['restore', 'a1:r2', '0', V, 'freq', '100'],
      ['object', 'idletime', 'a1:r2'],
      ['get', 'a1:r'],
      ['object', 'idletime', 'a1:r'],
      ['object', 'idletime', 'a1:none'],
    ],
  },
  {
    name: 'FREQ of a string: touching lookups count, OBJECT/TYPE/EXISTS/TTL do not',
    commands: [
      ...lfu,
      ['set', 'a2:s', 'v'],
      ['object', 'freq', 'a2:s'],
      ['get', 'a2:s'],
      ['object', 'freq', 'a2:s'],
      ['type', 'a2:s'],
      ['exists', 'a2:s'],
      ['ttl', 'a2:s'],
      ['pttl', 'a2:s'],
      ['expiretime', 'a2:s'],
      ['object', 'encoding', 'a2:s'],
      ['object', 'refcount', 'a2:s'],
      ['object', 'freq', 'a2:s'],
      ['strlen', 'a2:s'],
      ['getrange', 'a2:s', '0', '0'],
      ['touch', 'a2:s', 'a2:none'],
      ['object', 'freq', 'a2:s'],
      ['append', 'a2:s', 'w'],
      ['set', 'a2:s', 'x'],
      ['expire', 'a2:s', '1000'],
      ['persist', 'a2:s'],
      ['object', 'freq', 'a2:s'],
      ['mget', 'a2:s', 'a2:none'],
      ['object', 'freq', 'a2:s'],
      // Past Redis's shared integers (0..9999), whose FREQ is every user's.
      ['set', 'a2:n', '20000'],
      ['object', 'freq', 'a2:n'],
      ['incr', 'a2:n'],
      ['incrby', 'a2:n', '5'],
      ['object', 'freq', 'a2:n'],
      ['del', 'a2:n'],
      ['set', 'a2:n', 'one'],
      ['object', 'freq', 'a2:n'],
      ['object', 'idletime', 'a2:n'],
      ['object', 'freq', 'a2:none'],
    ],
  },
  {
    name: 'FREQ of strings read from the disk (GET, MGET), RENAME keeps it, COPY starts over',
    commands: [
      ...lfu,
      ['set', 'a3:s', 'v'],
      ['get', 'a3:s'],
      ['get', 'a3:s'],
      ['object', 'freq', 'a3:s'],
      ['set', 'a3:m1', 'v'],
      ['set', 'a3:m2', 'v'],
      fill('a3'),
      ['object', 'freq', 'a3:s'],
      // Both from the disk: the first read on its own, the rest as a batch.
      ['mget', 'a3:m1', 'a3:m2', 'a3:none'],
      ['object', 'freq', 'a3:m1'],
      ['object', 'freq', 'a3:m2'],
      ['get', 'a3:s'],
      ['object', 'freq', 'a3:s'],
      ['rename', 'a3:s', 'a3:t'],
      ['object', 'freq', 'a3:t'],
      ['copy', 'a3:t', 'a3:u'],
      ['object', 'freq', 'a3:t'],
      ['object', 'freq', 'a3:u'],
      ['restore', 'a3:r', '0', V, 'freq', '100'],
      ['object', 'freq', 'a3:r'],
      ['restore', 'a3:r', '0', V, 'replace'],
      ['object', 'freq', 'a3:r'],
      ['restore', 'a3:r2', '0', V, 'idletime', '5'],
      ['object', 'freq', 'a3:r2'],
    ],
  },
  {
    name: 'FREQ of collections: reads and writes count, creation starts at 5',
    commands: [
      ...lfu,
      ['hset', 'a4:h', 'f', 'v'],
      ['object', 'freq', 'a4:h'],
      ['hget', 'a4:h', 'f'],
      ['hlen', 'a4:h'],
      ['hset', 'a4:h', 'g', 'w'],
      ['object', 'freq', 'a4:h'],
      ['type', 'a4:h'],
      ['exists', 'a4:h'],
      ['object', 'encoding', 'a4:h'],
      ['object', 'freq', 'a4:h'],
      ['get', 'a4:h'],
      ['object', 'freq', 'a4:h'],
      ['sadd', 'a4:set', 'a', 'b'],
      ['scard', 'a4:set'],
      ['sismember', 'a4:set', 'a'],
      ['object', 'freq', 'a4:set'],
      ['zadd', 'a4:z', '1', 'a'],
      ['zscore', 'a4:z', 'a'],
      ['object', 'freq', 'a4:z'],
      ['rpush', 'a4:l', 'a'],
      ['lpush', 'a4:l', 'b'],
      ['llen', 'a4:l'],
      ['object', 'freq', 'a4:l'],
      fill('a4'),
      ['hget', 'a4:h', 'f'],
      ['object', 'freq', 'a4:h'],
    ],
  },
];

export const ACCESS_COMPAT_CASES: readonly CompatCase[] = [
  ...CASES,
  ...CASES.map((c) => ({
    ...c,
    name: `${c.name} (RESP3)`,
    resp3: true,
    commands: c.commands.map((argv) => argv.map((a) => a.replace(/^a(\d+):/, 'ra$1:'))),
  })),
];
