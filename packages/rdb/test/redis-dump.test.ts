// Real data: keys of every type and encoding in a throwaway redis-server,
// DUMPed and decoded; our encodings RESTOREd into it and read back; small
// encodings compared byte for byte with Redis's own DUMP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeDumpPayload, parseDumpPayload, RDB_TYPE, type RdbValue } from '../src/index.js';
import { hasRedis, type RedisHandle, type Reply, startRedis } from './redis-helper.js';

if (!hasRedis) console.warn('redis-server not installed: skipping the live DUMP/RESTORE tests');

const b = (s: string): Buffer => Buffer.from(s);
const strs = (r: Reply): string[] => (r as Buffer[]).map(String);
const range = (n: number, f: (i: number) => string): string[] =>
  Array.from({ length: n }, (_, i) => f(i));

/** A value as sorted plain data, so decoded and read-back forms compare. */
function canon(v: RdbValue): unknown {
  switch (v.type) {
    case 'string':
      return v.value.toString();
    case 'list':
      return v.items.map(String);
    case 'set':
      return v.members.map(String).sort();
    case 'zset':
      return v.entries.map(([m, s]) => [String(m), s]).sort((x, y) => (x[0]! < y[0]! ? -1 : 1));
    case 'hash':
      return v.fields
        .map(([f, x]) => [String(f), String(x)])
        .sort((x, y) => (x[0]! < y[0]! ? -1 : 1));
    case 'stream':
      return v.entries.map((e) => [
        `${e.id.ms}-${e.id.seq}`,
        e.fields.map(([f, x]) => [String(f), String(x)]),
      ]);
  }
}

/** The key's value read with ordinary commands, in canon()'s form. */
async function readBack(r: RedisHandle, key: string): Promise<unknown> {
  const type = String(await r.call('TYPE', key));
  const pairs = (flat: string[]): string[][] => {
    const out: string[][] = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
    return out.sort((x, y) => (x[0]! < y[0]! ? -1 : 1));
  };
  switch (type) {
    case 'string':
      return String(await r.call('GET', key));
    case 'list':
      return strs(await r.call('LRANGE', key, 0, -1));
    case 'set':
      return strs(await r.call('SMEMBERS', key)).sort();
    case 'zset':
      return pairs(strs(await r.call('ZRANGE', key, 0, -1, 'WITHSCORES'))).map(([m, s]) => [
        m,
        s === 'inf'
          ? Number.POSITIVE_INFINITY
          : s === '-inf'
            ? Number.NEGATIVE_INFINITY
            : Number(s),
      ]);
    case 'hash':
      return pairs(strs(await r.call('HGETALL', key)));
    case 'stream': {
      const entries = (await r.call('XRANGE', key, '-', '+')) as Array<[Buffer, Buffer[]]>;
      return entries.map(([id, flat]) => [String(id), pairs(flat.map(String)).sort(() => 0)]);
    }
    default:
      throw new Error(`type ${type}`);
  }
}

interface Case {
  readonly key: string;
  readonly setup: Array<Array<string | number>>;
  readonly rdbType: number;
  /** Our encoding of the decoded value equals Redis's DUMP byte for byte. */
  readonly sameBytes?: boolean;
}

const big = 200;
// Thresholds forced low (and the same given to our encoder) so small and big encodings both appear.
const thresholds = {
  zsetMaxListpackEntries: 32,
  hashMaxListpackEntries: 64,
  setMaxIntsetEntries: 100,
} as const;
const cases: Case[] = [
  {
    key: 'str:raw',
    setup: [['SET', 'str:raw', 'hello world']],
    rdbType: RDB_TYPE.STRING,
    sameBytes: true,
  },
  {
    key: 'str:int',
    setup: [['SET', 'str:int', '-12345']],
    rdbType: RDB_TYPE.STRING,
    sameBytes: true,
  },
  {
    key: 'str:big',
    setup: [['SET', 'str:big', '9223372036854775807']],
    rdbType: RDB_TYPE.STRING,
    sameBytes: true,
  },
  {
    key: 'str:lzf',
    setup: [['SET', 'str:lzf', 'abcdefgh'.repeat(40)]],
    rdbType: RDB_TYPE.STRING,
    sameBytes: true,
  },
  {
    key: 'list:small',
    setup: [['RPUSH', 'list:small', 'a', '1', '-300', '70000', '5000000000', 'x'.repeat(70)]],
    rdbType: RDB_TYPE.LIST_QUICKLIST_2,
    sameBytes: true,
  },
  {
    key: 'list:big',
    setup: [['RPUSH', 'list:big', ...range(3000, (i) => `item-${i}-${'p'.repeat(i % 40)}`)]],
    rdbType: RDB_TYPE.LIST_QUICKLIST_2, // not the same bytes: our listpack nodes split elsewhere than quicklist.c
  },
  {
    key: 'list:plain',
    setup: [['RPUSH', 'list:plain', 'q'.repeat(20000), 'small']],
    rdbType: RDB_TYPE.LIST_QUICKLIST_2,
    sameBytes: true,
  },
  {
    key: 'set:intset',
    setup: [['SADD', 'set:intset', 5, -3, 70000, 2 ** 40]],
    rdbType: RDB_TYPE.SET_INTSET,
    sameBytes: true,
  },
  { key: 'set:hash', setup: [['SADD', 'set:hash', 'a', 'b', 'c']], rdbType: RDB_TYPE.SET },
  {
    key: 'set:bigint',
    setup: [['SADD', 'set:bigint', ...range(150, (i) => String(i))]],
    rdbType: RDB_TYPE.SET,
  },
  {
    key: 'zset:lp',
    setup: [['ZADD', 'zset:lp', 1, 'a', 2.5, 'b', -3, 'c', 0.1, 'd', 'inf', 'e', 1e20, 'f']],
    rdbType: RDB_TYPE.ZSET_LISTPACK,
    sameBytes: true,
  },
  {
    key: 'zset:skip',
    setup: [
      ['ZADD', 'zset:skip', ...range(big, (i) => `${i / 7} m${i}`).flatMap((s) => s.split(' '))],
    ],
    rdbType: RDB_TYPE.ZSET_2,
    sameBytes: true,
  },
  {
    key: 'hash:lp',
    setup: [['HSET', 'hash:lp', 'f1', 'v1', 'n', '42', 'neg', '-7', 'e', '']],
    rdbType: RDB_TYPE.HASH_LISTPACK,
    sameBytes: true,
  },
  {
    key: 'hash:ht',
    setup: [['HSET', 'hash:ht', ...range(big, (i) => `f${i} v${i}`).flatMap((s) => s.split(' '))]],
    rdbType: RDB_TYPE.HASH,
    // Decoded in stored order, so re-encoding gives Redis's bytes even for a hashtable.
    sameBytes: true,
  },
  {
    key: 'hash:long',
    setup: [['HSET', 'hash:long', 'f', 'v'.repeat(100)]],
    rdbType: RDB_TYPE.HASH,
  },
  {
    key: 'stream',
    setup: [
      ['XADD', 'stream', '1-1', 'a', '1', 'b', '2'],
      ['XADD', 'stream', '1-2', 'a', '3', 'b', '4'],
      ['XADD', 'stream', '2-0', 'other', 'x'],
      ['XADD', 'stream', '3-0', 'a', '5', 'b', '6'],
      ['XDEL', 'stream', '1-2'],
      ['XGROUP', 'CREATE', 'stream', 'g1', '0'],
      ['XREADGROUP', 'GROUP', 'g1', 'alice', 'COUNT', '2', 'STREAMS', 'stream', '>'],
      ['XGROUP', 'CREATECONSUMER', 'stream', 'g1', 'bob'],
    ],
    rdbType: RDB_TYPE.STREAM_LISTPACKS_2,
  },
];

describe.skipIf(!hasRedis)('DUMP/RESTORE against redis-server 7', () => {
  let r: RedisHandle;
  beforeAll(async () => {
    r = await startRedis();
    await r.call('CONFIG', 'SET', 'zset-max-listpack-entries', 32, 'hash-max-listpack-entries', 64);
    await r.call('CONFIG', 'SET', 'set-max-intset-entries', 100);
    for (const c of cases)
      for (const cmd of c.setup) {
        const reply = await r.call(...cmd);
        if (reply instanceof Error) throw reply;
      }
  });
  afterAll(() => r?.stop());

  for (const c of cases) {
    it(`decodes Redis's DUMP of ${c.key}`, async () => {
      const dump = (await r.call('DUMP', c.key)) as Buffer;
      const { value, rdbVersion } = parseDumpPayload(dump);
      expect(rdbVersion).toBe(10);
      expect(value.rdbType).toBe(c.rdbType);
      expect(canon(value)).toEqual(await readBack(r, c.key));
    });

    it(`RESTOREs our encoding of ${c.key} into Redis`, async () => {
      const dump = (await r.call('DUMP', c.key)) as Buffer;
      const { value } = parseDumpPayload(dump);
      const ours = encodeDumpPayload(value, thresholds);
      if (c.sameBytes) expect(ours.toString('hex')).toBe(dump.toString('hex'));
      const copy = `${c.key}:copy`;
      expect(await r.call('RESTORE', copy, 0, ours, 'REPLACE')).toBe('OK');
      expect(await readBack(r, copy)).toEqual(await readBack(r, c.key));
      expect(canon(parseDumpPayload((await r.call('DUMP', copy)) as Buffer).value)).toEqual(
        canon(value),
      );
    });
  }

  it('decodes stream groups, PEL and consumers', async () => {
    const { value } = parseDumpPayload((await r.call('DUMP', 'stream')) as Buffer);
    if (value.type !== 'stream') throw new Error('not a stream');
    expect(value.length).toBe(3);
    expect(value.lastId).toEqual({ ms: 3n, seq: 0n });
    expect(value.maxDeletedEntryId).toEqual({ ms: 1n, seq: 2n });
    expect(value.entriesAdded).toBe(4n);
    const [g] = value.groups;
    expect(String(g!.name)).toBe('g1');
    expect(
      g!.pending.map((p) => `${p.id.ms}-${p.id.seq}:${p.consumer}:${p.deliveryCount}`),
    ).toEqual(['1-1:alice:1', '2-0:alice:1']);
    expect(g!.consumers.map((c) => String(c.name)).sort()).toEqual(['alice', 'bob']);
    const restored = parseDumpPayload(encodeDumpPayload(value)).value;
    expect(restored).toMatchObject({
      groups: [{ pending: [{ deliveryCount: 1 }, { deliveryCount: 1 }] }],
    });
    expect(await r.call('RESTORE', 'stream:copy2', 0, encodeDumpPayload(value))).toBe('OK');
    const info = (await r.call('XINFO', 'GROUPS', 'stream:copy2')) as Reply[][];
    expect(strs(info[0]!.map((x) => (typeof x === 'number' ? b(String(x)) : x)) as Reply)).toEqual(
      strs(
        ((await r.call('XINFO', 'GROUPS', 'stream')) as Reply[][])[0]!.map((x) =>
          typeof x === 'number' ? b(String(x)) : x,
        ) as Reply,
      ),
    );
  });

  it("Redis refuses our payload with a bad checksum in its own words, and we refuse Redis's", async () => {
    const p = encodeDumpPayload({ type: 'string', value: b('v') });
    p[p.length - 1] = (p[p.length - 1] as number) ^ 0xff;
    const reply = await r.call('RESTORE', 'bad', 0, p);
    expect(String(reply)).toContain('DUMP payload version or checksum are wrong');
    const dump = Buffer.from((await r.call('DUMP', 'str:raw')) as Buffer);
    dump[3] = (dump[3] as number) ^ 1;
    expect(() => parseDumpPayload(dump)).toThrow(
      expect.objectContaining({ code: 'ERR_DUMP_PAYLOAD' }),
    );
  });
});
