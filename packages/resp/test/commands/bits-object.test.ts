import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CompatCase } from '../compat/compat-cases.js';
import { hasRedisServer, runCase, startRedis } from '../compat/compat-runner.js';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * SETBIT, GETBIT, BITCOUNT, LCS and OBJECT through ioredis and node-redis,
 * against a server whose stores keep 64 KiB of log in memory (most keys on
 * disk), checked against a model; and their replies, byte for byte, against
 * redis-server 7 when it is installed.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t.stop();
});

async function io(db = 0): Promise<Redis> {
  const r = new Redis({ port: t.port, host: '127.0.0.1', db, lazyConnect: true });
  await r.connect();
  return r;
}

/** A model bitmap: SETBIT on a Buffer, Redis's way (zero-filled growth). */
function modelSetBit(m: Map<string, Buffer>, key: string, offset: number, bit: number): number {
  const byte = offset >> 3;
  let v = m.get(key) ?? Buffer.alloc(0);
  if (v.length <= byte) v = Buffer.concat([v, Buffer.alloc(byte + 1 - v.length)]);
  const mask = 1 << (7 - (offset & 7));
  const old = (v[byte]! & mask) !== 0 ? 1 : 0;
  v[byte] = bit ? v[byte]! | mask : v[byte]! & ~mask;
  m.set(key, v);
  return old;
}

function popcount(b: Buffer): number {
  let n = 0;
  for (const x of b) for (let y = x; y !== 0; y >>= 1) n += y & 1;
  return n;
}

describe('bitmaps with keys on disk (ioredis)', () => {
  const N = 3000;
  let r: Redis;
  const model = new Map<string, Buffer>();

  beforeAll(async () => {
    r = await io(2);
    const p = r.pipeline();
    for (let i = 0; i < N; i++) {
      const v = Buffer.from(`value-${i}-${'x'.repeat(40)}`);
      p.set(`b:${i}`, v);
      model.set(`b:${i}`, Buffer.from(v));
    }
    await p.exec();
  });
  afterAll(() => r.disconnect());

  test('SETBIT returns the old bit and updates in place or grows, GETBIT reads it back', async () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const ops: [string, number, number][] = [];
    for (let i = 0; i < 3000; i++) {
      const key = `b:${rnd(N + 50)}`; // some keys missing: created
      const offset = rnd(8) === 0 ? rnd(4000) : rnd(400);
      ops.push([key, offset, rnd(2)]);
    }
    const p = r.pipeline();
    for (const [k, o, b] of ops) p.setbit(k, o, b);
    const got = (await p.exec())!.map(([e, v]) => {
      expect(e).toBeNull();
      return v;
    });
    const want = ops.map(([k, o, b]) => modelSetBit(model, k, o, b));
    expect(got).toEqual(want);

    const q = r.pipeline();
    const reads: [string, number][] = [];
    for (let i = 0; i < 2000; i++) reads.push([`b:${rnd(N + 60)}`, rnd(4100)]);
    for (const [k, o] of reads) q.getbit(k, o);
    const bits = (await q.exec())!.map(([, v]) => v);
    expect(bits).toEqual(
      reads.map(([k, o]) => {
        const v = model.get(k);
        if (v === undefined || o >> 3 >= v.length) return 0;
        return (v[o >> 3]! >> (7 - (o & 7))) & 1;
      }),
    );
    // Whole values as the model has them.
    const keys = [...model.keys()].slice(0, 300);
    const vals = await r.mgetBuffer(...keys);
    expect(vals).toEqual(keys.map((k) => model.get(k)));
  });

  test('BITCOUNT whole, byte and bit ranges', async () => {
    const keys = [...model.keys()].filter((_, i) => i % 37 === 0);
    const p = r.pipeline();
    for (const k of keys) {
      p.bitcount(k);
      p.call('BITCOUNT', k, 1, -2);
      p.call('BITCOUNT', k, 3, 77, 'BIT');
      p.call('BITCOUNT', k, -19, -3, 'bit');
    }
    const got = (await p.exec())!.map(([e, v]) => {
      expect(e).toBeNull();
      return v;
    });
    const bitRange = (v: Buffer, s: number, e: number) => {
      const total = v.length * 8;
      if (s < 0) s = Math.max(0, total + s);
      if (e < 0) e = Math.max(0, total + e);
      e = Math.min(e, total - 1);
      let n = 0;
      for (let i = s; i <= e; i++) n += (v[i >> 3]! >> (7 - (i & 7))) & 1;
      return n;
    };
    const want: number[] = [];
    for (const k of keys) {
      const v = model.get(k)!;
      want.push(popcount(v), popcount(v.subarray(1, v.length - 1)));
      want.push(bitRange(v, 3, 77), bitRange(v, -19, -3));
    }
    expect(got).toEqual(want);
  });

  test('errors', async () => {
    await expect(r.setbit('b:1', -1, 1)).rejects.toThrow(
      'ERR bit offset is not an integer or out of range',
    );
    await expect(r.call('SETBIT', 'b:1', 4294967296, 1)).rejects.toThrow(
      'ERR bit offset is not an integer or out of range',
    );
    await expect(r.call('SETBIT', 'b:1', 1, 2)).rejects.toThrow(
      'ERR bit is not an integer or out of range',
    );
    await expect(r.call('GETBIT', 'b:1', 'x')).rejects.toThrow(
      'ERR bit offset is not an integer or out of range',
    );
    await expect(r.call('BITCOUNT', 'b:1', 0)).rejects.toThrow('ERR syntax error');
    await expect(r.call('BITCOUNT', 'b:1', 0, 1, 'nibble')).rejects.toThrow('ERR syntax error');
    expect(await r.call('BITCOUNT', 'missing', 0)).toBe(0);
  });
});

describe('LCS and OBJECT (node-redis, RESP2 and RESP3)', () => {
  for (const RESP of [2, 3] as const) {
    test(`RESP${RESP}`, async () => {
      const c = createClient({ url: `redis://127.0.0.1:${t.port}/3`, RESP });
      await c.connect();
      try {
        await c.set('k1', 'ohmytext');
        await c.set('k2', 'mynewtext');
        expect(await c.sendCommand(['LCS', 'k1', 'k2'])).toBe('mytext');
        expect(await c.sendCommand(['LCS', 'k1', 'k2', 'LEN'])).toBe(6);
        const idx = await c.sendCommand([
          'LCS',
          'k1',
          'k2',
          'IDX',
          'MINMATCHLEN',
          '4',
          'WITHMATCHLEN',
        ]);
        const flat = Array.isArray(idx)
          ? idx
          : idx instanceof Map
            ? [...idx.entries()].flat()
            : Object.entries(idx as object).flat();
        expect(flat).toEqual(['matches', [[[4, 7], [5, 8], 4]], 'len', 6]);
        expect(await c.sendCommand(['LCS', 'k1', 'nokey'])).toBe('');
        await c.set('n', '123');
        await c.set('s', 'x'.repeat(44));
        await c.set('l', 'x'.repeat(45));
        expect(await c.sendCommand(['OBJECT', 'ENCODING', 'n'])).toBe('int');
        expect(await c.sendCommand(['OBJECT', 'ENCODING', 's'])).toBe('embstr');
        expect(await c.sendCommand(['OBJECT', 'ENCODING', 'l'])).toBe('raw');
        expect(await c.sendCommand(['OBJECT', 'ENCODING', 'nokey'])).toBeNull();
        expect(await c.sendCommand(['OBJECT', 'REFCOUNT', 'n'])).toBe(2147483647);
        expect(await c.sendCommand(['OBJECT', 'REFCOUNT', 's'])).toBe(1);
        // A figure now (its values over time: access-clock.test.ts).
        expect(await c.sendCommand(['OBJECT', 'IDLETIME', 's'])).toBeGreaterThanOrEqual(0);
        await expect(c.sendCommand(['OBJECT', 'FREQ', 's'])).rejects.toThrow(
          'ERR An LFU maxmemory policy is not selected',
        );
      } finally {
        await c.quit();
      }
    });
  }
});

const CASES: CompatCase[] = [
  {
    name: 'setbit getbit',
    commands: [
      ['setbit', 'sb', '7', '1'],
      ['setbit', 'sb', '7', '0'],
      ['setbit', 'sb', '100', '1'],
      ['get', 'sb'],
      ['getbit', 'sb', '100'],
      ['getbit', 'sb', '99999'],
      ['getbit', 'nosb', '3'],
      ['setbit', 'sb', '-1', '1'],
      ['setbit', 'sb', '4294967296', '1'],
      ['setbit', 'sb', '4294967295', '2'],
      ['setbit', 'sb', 'x', '1'],
      ['setbit', 'sb', '1', '01'],
      ['setbit', 'sb', '1', '-1'],
      ['getbit', 'sb', '-1'],
      ['setbit', 'sb', '1'],
      ['getbit', 'sb'],
    ],
  },
  {
    name: 'bitcount',
    commands: [
      ['set', 'bc', 'foobar'],
      ['bitcount', 'bc'],
      ['bitcount', 'bc', '0', '0'],
      ['bitcount', 'bc', '1', '1'],
      ['bitcount', 'bc', '1', '1', 'BYTE'],
      ['bitcount', 'bc', '5', '30', 'BIT'],
      ['bitcount', 'bc', '-5', '-1', 'bit'],
      ['bitcount', 'bc', '-1', '-2'],
      ['bitcount', 'bc', '2', '-100'],
      ['bitcount', 'bc', '-100', '100'],
      ['bitcount', 'bc', '0'],
      ['bitcount', 'bc', '0', '1', 'x'],
      ['bitcount', 'bc', 'a', '1'],
      ['bitcount', 'nobc', 'a'],
      ['bitcount'],
    ],
  },
  {
    name: 'lcs',
    commands: [
      ['set', 'l1', 'ohmytext'],
      ['set', 'l2', 'mynewtext'],
      ['lcs', 'l1', 'l2'],
      ['lcs', 'l1', 'l2', 'len'],
      ['lcs', 'l1', 'l2', 'idx'],
      ['lcs', 'l1', 'l2', 'idx', 'minmatchlen', '4'],
      ['lcs', 'l1', 'l2', 'idx', 'withmatchlen'],
      ['lcs', 'l1', 'l2', 'IDX', 'MINMATCHLEN', '-3', 'WITHMATCHLEN'],
      ['lcs', 'l1', 'l2', 'len', 'idx'],
      ['lcs', 'l1', 'l2', 'minmatchlen'],
      ['lcs', 'l1', 'l2', 'minmatchlen', 'x'],
      ['lcs', 'l1', 'l2', 'foo'],
      ['lcs', 'l1', 'nol'],
      ['lcs', 'nol', 'nol2', 'idx'],
      ['lcs', 'l1'],
    ],
  },
  {
    name: 'lcs resp3',
    resp3: true,
    commands: [
      ['set', 'm1', 'abcdefghij'],
      ['set', 'm2', 'xbcdyfghz'],
      ['lcs', 'm1', 'm2', 'idx', 'withmatchlen'],
      ['lcs', 'm1', 'm2', 'len'],
    ],
  },
  {
    name: 'object',
    commands: [
      ['set', 'o1', '12'],
      ['set', 'o2', '-9223372036854775808'],
      ['set', 'o3', '9223372036854775808'],
      ['set', 'o4', '012'],
      ['set', 'o5', 'x'.repeat(44)],
      ['set', 'o6', 'x'.repeat(45)],
      ['set', 'o7', '10000'],
      ['object', 'encoding', 'o1'],
      ['object', 'encoding', 'o2'],
      ['object', 'encoding', 'o3'],
      ['object', 'encoding', 'o4'],
      ['object', 'encoding', 'o5'],
      ['object', 'encoding', 'o6'],
      ['object', 'encoding', 'nokey'],
      ['object', 'refcount', 'o1'],
      ['object', 'refcount', 'o7'],
      ['object', 'refcount', 'o5'],
      ['object', 'refcount', 'nokey'],
      ['object', 'freq', 'o1'],
      ['object', 'freq', 'nokey'],
      ['object', 'idletime', 'nokey'],
      ['object', 'help'],
      ['object', 'foo'],
      ['object', 'encoding'],
      ['object'],
    ],
  },
];

const redis = hasRedisServer();
describe.skipIf(!redis)('replies byte for byte those of redis-server', () => {
  let rs: { port: number; stop(): void };
  beforeAll(async () => {
    rs = await startRedis();
  });
  afterAll(() => rs.stop());
  for (const c of CASES) {
    test(c.name, async () => {
      const want = await runCase(rs.port, c);
      expect(await runCase(t.port, c)).toBe(want);
    });
  }
});
