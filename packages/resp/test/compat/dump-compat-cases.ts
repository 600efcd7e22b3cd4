import type { CompatCase } from './compat-cases.js';

/**
 * DUMP and RESTORE against Redis 7.0 (recorded from redis-server 7.0.15 in
 * dump-compat-expected.json with `STRATA_RECORD_COMPAT=1 npx vitest run
 * test/compat/dump-compat.test.ts` from packages/resp): DUMP's payload
 * bytes for small values, RESTORE of payloads redis-server 7.0.15 DUMPed
 * (below, in hex: a compressed string, an integer one, hashtable-encoded
 * hashes, sets and zsets, a quicklist, an intset, listpacks), its options
 * and errors in Redis's order. Each case runs again in RESP3.
 */

/** DUMP replies of redis-server 7.0.15, hex. */
const REDIS_PAYLOADS: Record<string, string> = {
  's:lzf': '00c3094064016161e057000161610a00e8a3b507b06df271',
  's:int': '00c139300a009d94ea2793fc08b9',
  'h:big': '0402026632c3094046014c4ce03900014c4c0266310276310a001dd3408da8fd571d',
  'st:big': '0202026d31c3094046014c4ce03900014c4c0a0004eab40d50e7447e',
  'z:big':
    '0502c3094046014c4ce03900014c4c0000000000000040026d31000000000000f83f0a0048064edde7bba04a',
  'l:q': '120102c319405911590000000400816102816202816302e0464ce03c000148ff0a001d40d8979ff479aa',
  'st:int': '0b0e02000000030000000100020003000a00a5025ce26d6e4d1b',
  'z:lp': '1114140000000400816102010181620283322e3504ff0a00d44c6ea4f644d9d7',
  'h:lp': '100d0d0000000200816602817602ff0a0020f13d442354089d',
};

const payload = (k: string): string => Buffer.from(REDIS_PAYLOADS[k]!, 'hex').toString('latin1');

const CASES: readonly CompatCase[] = [
  {
    name: 'dump: small values byte for byte, missing keys',
    commands: [
      ['set', 'd1:s', 'hello'],
      ['dump', 'd1:s'],
      ['set', 'd1:i', '12345'],
      ['dump', 'd1:i'],
      ['set', 'd1:lzf', 'a'.repeat(100)],
      ['dump', 'd1:lzf'],
      ['rpush', 'd1:l', 'a', 'b', 'c'],
      ['dump', 'd1:l'],
      ['sadd', 'd1:st', '1', '2', '3'],
      ['dump', 'd1:st'],
      ['zadd', 'd1:z', '1', 'a', '2.5', 'b'],
      ['dump', 'd1:z'],
      ['hset', 'd1:h', 'f', 'v'],
      ['dump', 'd1:h'],
      ['dump', 'd1:nokey'],
      ['dump'],
    ],
  },
  {
    name: 'dump: rdbcompression no writes strings whole, yes compresses them again',
    commands: [
      ['set', 'd5:s', 'a'.repeat(100)],
      ['hset', 'd5:h', 'f', 'b'.repeat(80)],
      ['config', 'set', 'rdbcompression', 'no'],
      ['dump', 'd5:s'],
      ['dump', 'd5:h'],
      ['config', 'set', 'rdbcompression', 'yes'],
      ['dump', 'd5:s'],
      ['config', 'get', 'rdbcompression'],
    ],
  },
  {
    name: 'restore: payloads redis-server DUMPed, every type read back',
    commands: [
      ['restore', 'd2:lzf', '0', payload('s:lzf')],
      ['get', 'd2:lzf'],
      ['restore', 'd2:int', '0', payload('s:int')],
      ['get', 'd2:int'],
      ['restore', 'd2:hbig', '0', payload('h:big')],
      ['hget', 'd2:hbig', 'f2'],
      ['hlen', 'd2:hbig'],
      ['restore', 'd2:stbig', '0', payload('st:big')],
      ['scard', 'd2:stbig'],
      ['sismember', 'd2:stbig', 'L'.repeat(70)],
      ['restore', 'd2:zbig', '0', payload('z:big')],
      ['zrange', 'd2:zbig', '0', '-1', 'withscores'],
      ['restore', 'd2:l', '0', payload('l:q')],
      ['lrange', 'd2:l', '0', '-1'],
      ['restore', 'd2:stint', '0', payload('st:int')],
      ['smembers', 'd2:stint'],
      ['restore', 'd2:zlp', '0', payload('z:lp')],
      ['zrange', 'd2:zlp', '0', '-1', 'withscores'],
      ['restore', 'd2:hlp', '0', payload('h:lp')],
      ['hgetall', 'd2:hlp'],
      ['type', 'd2:hlp'],
      ['ttl', 'd2:hlp'],
    ],
  },
  {
    name: 'restore: REPLACE, ABSTTL, TTLs, IDLETIME and FREQ',
    commands: [
      ['set', 'd3:k', 'old'],
      ['restore', 'd3:k', '0', payload('s:int')],
      ['get', 'd3:k'],
      ['restore', 'd3:k', '0', payload('s:int'), 'replace'],
      ['get', 'd3:k'],
      ['restore', 'd3:t', '4102444800000', payload('s:int'), 'absttl'],
      ['pexpiretime', 'd3:t'],
      ['restore', 'd3:r', '100000', payload('s:int')],
      [
        'eval',
        "local t = redis.call('pttl', KEYS[1]) return t > 99000 and t <= 100000",
        '1',
        'd3:r',
      ],
      ['set', 'd3:gone', 'x'],
      ['restore', 'd3:gone', '1000', payload('s:int'), 'absttl', 'replace'],
      ['exists', 'd3:gone'],
      ['restore', 'd3:i', '0', payload('s:int'), 'idletime', '100'],
      ['restore', 'd3:f', '0', payload('s:int'), 'freq', '10'],
      ['get', 'd3:f'],
    ],
  },
  {
    name: 'restore: errors in Redis order',
    commands: [
      ['restore', 'd4:k'],
      ['restore', 'd4:k', '0', payload('s:int'), 'bogus'],
      ['restore', 'd4:k', '0', payload('s:int'), 'idletime'],
      ['restore', 'd4:k', '0', payload('s:int'), 'idletime', 'x'],
      ['restore', 'd4:k', '0', payload('s:int'), 'idletime', '-1'],
      ['restore', 'd4:k', '0', payload('s:int'), 'freq', '256'],
      ['restore', 'd4:k', '0', payload('s:int'), 'freq', '-1'],
      ['restore', 'd4:k', '0', payload('s:int'), 'idletime', '1', 'freq', '1'],
      ['restore', 'd4:k', 'x', payload('s:int')],
      ['restore', 'd4:k', '-1', payload('s:int')],
      ['restore', 'd4:k', '0', 'garbage'],
      ['restore', 'd4:k', '0', ''],
      ['restore', 'd4:k', '0', `${payload('s:int').slice(0, -1)}x`],
      ['set', 'd4:busy', '1'],
      ['restore', 'd4:busy', '0', 'garbage'],
      ['restore', 'd4:busy', '-1', 'garbage'],
      ['exists', 'd4:k'],
    ],
  },
];

export const DUMP_COMPAT_CASES: readonly CompatCase[] = [
  ...CASES,
  ...CASES.map((c) => ({
    ...c,
    name: `${c.name} (RESP3)`,
    resp3: true,
    commands: c.commands.map((argv) => argv.map((a) => a.replace(/^d(\d+):/, 'rd$1:'))),
  })),
];
