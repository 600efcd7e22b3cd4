import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseScanOptions } from '../../src/commands/scan/scan.js';
import { parseCursor } from '../../src/commands/shared/scan-options.js';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * DBSIZE, KEYS, SCAN, RANDOMKEY, INFO keyspace and MGET through ioredis and
 * node-redis, against a server whose stores keep 64 KiB of log in memory:
 * nearly every key below lives on disk. Results are checked against a model
 * of what was written (overwrites, deletes, expiries).
 */
let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs: Iterable<string>) => [...xs].sort();
const globPrefix = (prefix: string, keys: Iterable<string>) =>
  sorted([...keys].filter((k) => k.startsWith(prefix)));

async function io(db: number): Promise<Redis> {
  const r = new Redis({ port: t.port, host: '127.0.0.1', db, lazyConnect: true });
  await r.connect();
  return r;
}

/** Every key of a full SCAN iteration (duplicates kept). */
async function scanAll(r: Redis, ...opts: (string | number)[]): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  let calls = 0;
  do {
    const [next, keys] = (await r.call('SCAN', cursor, ...opts)) as [string, string[]];
    out.push(...keys);
    cursor = next;
    calls++;
    expect(calls).toBeLessThan(100_000);
  } while (cursor !== '0');
  return out;
}

describe('key space with keys on disk (ioredis, db 1)', () => {
  const DB = 1;
  const N = 3000;
  let r: Redis;
  /** key -> value of every live key. */
  const model = new Map<string, string>();
  let withTtl = 0;

  beforeAll(async () => {
    r = await io(DB);
    const w = r.pipeline();
    for (let i = 0; i < N; i++) {
      w.set(`k:${i}`, `v${i}`);
      model.set(`k:${i}`, `v${i}`);
    }
    // Overwrites (newer versions at the tail, older ones dead in the log).
    for (let i = 0; i < N; i += 5) {
      w.set(`k:${i}`, `w${i}`);
      model.set(`k:${i}`, `w${i}`);
    }
    // Deletes.
    for (let i = 1; i < N; i += 7) {
      w.del(`k:${i}`);
      model.delete(`k:${i}`);
    }
    // Keys that expire now, keys that expire later.
    for (let i = 2; i < N; i += 11) {
      if (!model.has(`k:${i}`)) continue;
      w.pexpire(`k:${i}`, 1);
      model.delete(`k:${i}`);
    }
    for (let i = 3; i < N; i += 13) {
      if (!model.has(`k:${i}`)) continue;
      w.expire(`k:${i}`, 1000);
      withTtl++;
    }
    const res = await w.exec();
    expect(res?.every(([e]) => e === null)).toBe(true);
    await sleep(20);
    // Most of the log is on disk.
    const log = t.server.keyspace.get(DB)!.log;
    expect(log.head - log.begin).toBeGreaterThan((log.tail - log.begin) / 2);
  });
  afterAll(() => {
    r.disconnect();
  });

  test('DBSIZE is exact', async () => {
    expect(await r.dbsize()).toBe(model.size);
  });

  test('KEYS matches the model', async () => {
    expect(sorted(await r.keys('*'))).toEqual(sorted(model.keys()));
    expect(sorted(await r.keys('k:1*'))).toEqual(globPrefix('k:1', model.keys()));
    expect(sorted(await r.keys('k:2?'))).toEqual(
      sorted([...model.keys()].filter((k) => /^k:2.$/.test(k))),
    );
    expect(await r.keys('nomatch*')).toEqual([]);
    expect(await r.keys('k:0')).toEqual(['k:0']);
    expect(await r.keys('k:1')).toEqual([]); // deleted
  });

  test('a full SCAN returns every key at least once, and no other', async () => {
    const got = await scanAll(r, 'COUNT', 100);
    expect(sorted(new Set(got))).toEqual(sorted(model.keys()));
    const small = await scanAll(r);
    expect(sorted(new Set(small))).toEqual(sorted(model.keys()));
  });

  test('SCAN MATCH, TYPE, COUNT', async () => {
    const m = await scanAll(r, 'MATCH', 'k:2*', 'COUNT', 50);
    expect(sorted(new Set(m))).toEqual(globPrefix('k:2', model.keys()));
    const s = await scanAll(r, 'TYPE', 'STRING', 'COUNT', 1000);
    expect(sorted(new Set(s))).toEqual(sorted(model.keys()));
    // Later options win, as in Redis.
    const later = await scanAll(r, 'MATCH', 'nope*', 'MATCH', 'k:3*', 'COUNT', 7);
    expect(sorted(new Set(later))).toEqual(globPrefix('k:3', model.keys()));
    // Only strings were written: a whole iteration of another type finds nothing.
    expect(await scanAll(r, 'TYPE', 'list', 'COUNT', 1000)).toEqual([]);
    // An unknown type is no error in Redis 7.0: nothing matches it.
    expect(await r.call('SCAN', '0', 'TYPE', 'foo')).toEqual(['0', []]);
    // COUNT bounds a call's work: a selective MATCH comes back with a cursor
    // to go on from, not after the whole log.
    const [cursor, keys] = (await r.call('SCAN', '0', 'MATCH', 'k:0', 'COUNT', 1)) as [
      string,
      string[],
    ];
    expect(keys.length).toBeLessThanOrEqual(1);
    expect(cursor).not.toBe('0');
    // MATCH * is no filter.
    expect(sorted(new Set(await scanAll(r, 'MATCH', '*', 'COUNT', 500)))).toEqual(
      sorted(model.keys()),
    );
  });

  test('INFO keyspace', async () => {
    const info = await r.info('keyspace');
    const line = info.split('\r\n').find((l) => l.startsWith(`db${DB}:`));
    const m = /^db1:keys=(\d+),expires=(\d+),avg_ttl=(\d+)$/.exec(line ?? '');
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(model.size);
    expect(Number(m![2])).toBe(withTtl);
    expect(Number(m![3])).toBeGreaterThan(900_000);
    expect(Number(m![3])).toBeLessThanOrEqual(1_000_000);
    expect(info.startsWith('# Keyspace\r\n')).toBe(true);
    // The default sections include it too.
    expect(await r.info()).toContain(`db${DB}:keys=${model.size},expires=${withTtl},avg_ttl=`);
  });

  test('RANDOMKEY returns live keys', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const k = await r.randomkey();
      expect(k).not.toBeNull();
      expect(model.has(k!)).toBe(true);
      seen.add(k!);
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  test('MGET of keys on disk equals GET of each, and the model', async () => {
    const keys: string[] = [];
    for (let i = 0; i < N; i += 37) keys.push(`k:${i}`);
    keys.push('k:1', 'k:2', 'missing', 'k:0', 'k:0');
    const expected = keys.map((k) => model.get(k) ?? null);
    const before = t.server.keyspace.get(DB)!.coreStats().ops.pending ?? 0;
    expect(await r.mget(...keys)).toEqual(expected);
    expect((t.server.keyspace.get(DB)!.coreStats().ops.pending ?? 0) - before).toBeGreaterThan(0);
    const gets = r.pipeline();
    for (const k of keys) gets.get(k);
    expect((await gets.exec())?.map(([, v]) => v)).toEqual(expected);
    // A tail written just now (in memory) after keys on disk, and the reverse.
    await r.set('k:0', 'fresh');
    model.set('k:0', 'fresh');
    expect(await r.mget('k:5', 'k:0', 'k:10')).toEqual([
      model.get('k:5'),
      'fresh',
      model.get('k:10'),
    ]);
    expect(await r.mget('k:0', 'k:5')).toEqual(['fresh', model.get('k:5')]);
  });

  test('error replies as Redis 7.0 gives them', async () => {
    const err = (...argv: string[]) => r.call(argv[0]!, ...argv.slice(1));
    await expect(err('SCAN', 'abc')).rejects.toThrow(/^ERR invalid cursor$/);
    await expect(err('SCAN', '1.5')).rejects.toThrow(/^ERR invalid cursor$/);
    await expect(err('SCAN', ' 1')).rejects.toThrow(/^ERR invalid cursor$/);
    await expect(err('SCAN', '18446744073709551616')).rejects.toThrow(/^ERR invalid cursor$/);
    // The cursor is checked before the options.
    await expect(err('SCAN', 'x', 'COUNT', '0')).rejects.toThrow(/^ERR invalid cursor$/);
    await expect(err('SCAN', '0', 'COUNT', '0')).rejects.toThrow(/^ERR syntax error$/);
    await expect(err('SCAN', '0', 'COUNT', '-1')).rejects.toThrow(/^ERR syntax error$/);
    await expect(err('SCAN', '0', 'COUNT', 'abc')).rejects.toThrow(
      /^ERR value is not an integer or out of range$/,
    );
    await expect(err('SCAN', '0', 'MATCH')).rejects.toThrow(/^ERR syntax error$/);
    await expect(err('SCAN', '0', 'FOO', 'bar')).rejects.toThrow(/^ERR syntax error$/);
    await expect(err('SCAN')).rejects.toThrow(/^ERR wrong number of arguments for 'scan' command$/);
    await expect(err('KEYS')).rejects.toThrow(/^ERR wrong number of arguments for 'keys' command$/);
    await expect(err('DBSIZE', 'x')).rejects.toThrow(
      /^ERR wrong number of arguments for 'dbsize' command$/,
    );
    await expect(err('RANDOMKEY', 'x')).rejects.toThrow(
      /^ERR wrong number of arguments for 'randomkey' command$/,
    );
    // Cursors that are no address of ours (strtoul wraps -1) start over.
    const [c] = (await r.call('SCAN', '-1', 'COUNT', '1')) as [string, string[]];
    expect(c).toMatch(/^\d+$/);
    expect(await r.call('SCAN', '', 'COUNT', '1')).toEqual([expect.any(String), expect.any(Array)]);
  });
});

describe('an empty database (db 5)', () => {
  test('DBSIZE 0, RANDOMKEY nil, KEYS and SCAN empty, absent from INFO keyspace', async () => {
    const r = await io(5);
    try {
      expect(await r.dbsize()).toBe(0);
      expect(await r.randomkey()).toBeNull();
      expect(await r.keys('*')).toEqual([]);
      expect(await r.call('SCAN', '0')).toEqual(['0', []]);
      expect(await r.info('keyspace')).not.toContain('db5:');
      await r.set('only', 'one');
      expect(await r.dbsize()).toBe(1);
      expect(await r.randomkey()).toBe('only');
      expect(await r.info('keyspace')).toContain('db5:keys=1,expires=0,avg_ttl=0');
      await r.del('only');
      expect(await r.dbsize()).toBe(0);
      expect(await r.randomkey()).toBeNull();
      expect(await r.info('keyspace')).not.toContain('db5:');
    } finally {
      r.disconnect();
    }
  });
});

describe.each([2, 3] as const)('node-redis, RESP%i (db 3)', (RESP) => {
  const DB = 3;
  const prefix = `nr${RESP}:`;
  test('DBSIZE, KEYS, SCAN, RANDOMKEY, MGET, INFO keyspace', async () => {
    const c = createClient({ socket: { port: t.port, host: '127.0.0.1' }, RESP, database: DB });
    c.on('error', () => undefined);
    await c.connect();
    try {
      const model = new Map<string, string>();
      const w = c.multi();
      for (let i = 0; i < 1500; i++) {
        w.set(`${prefix}${i}`, `value-${i}`);
        model.set(`${prefix}${i}`, `value-${i}`);
      }
      await w.execAsPipeline();
      for (let i = 0; i < 1500; i += 3) {
        await c.del(`${prefix}${i}`);
        model.delete(`${prefix}${i}`);
      }
      const all = (await c.keys(`${prefix}*`)) as string[];
      expect(sorted(all)).toEqual(sorted(model.keys()));
      const total = await c.dbSize();
      expect(total).toBeGreaterThanOrEqual(model.size);
      const seen = new Set<string>();
      let cursor = '0';
      do {
        const [next, keys] = (await c.sendCommand([
          'SCAN',
          cursor,
          'MATCH',
          `${prefix}*`,
          'COUNT',
          '100',
        ])) as [string, string[]];
        for (const k of keys) seen.add(k);
        cursor = next;
      } while (cursor !== '0');
      expect(sorted(seen)).toEqual(sorted(model.keys()));
      const k = (await c.randomKey()) as unknown as string | null;
      expect(k).toMatch(/^nr[23]:\d+$/);
      const some = [...model.keys()].slice(0, 40);
      expect(await c.mGet([...some, `${prefix}0`])).toEqual([
        ...some.map((x) => model.get(x)),
        null,
      ]);
      const info = (await c.info('keyspace')) as string;
      expect(info).toMatch(new RegExp(`db${DB}:keys=${total},expires=0,avg_ttl=0`));
      await expect(c.sendCommand(['SCAN', 'nope'])).rejects.toThrow('ERR invalid cursor');
    } finally {
      c.destroy();
    }
  });
});

describe('whole-log passes hold only their own connection (db 2)', () => {
  const DB = 2;
  const N = 60_000;
  let writer: Redis;
  beforeAll(async () => {
    writer = await io(DB);
    for (let base = 0; base < N; base += 5000) {
      const args: string[] = [];
      for (let i = base; i < base + 5000; i++) args.push(`big:${i}`, `v${i}`);
      await writer.mset(...args);
    }
  }, 60_000);
  afterAll(() => {
    writer.disconnect();
  });

  /** Sends `cmd` on its own connection; resolves once its pass is running. */
  async function startPass(r: Redis, cmd: string, ...args: string[]) {
    const state = { done: false };
    const reply = r.call(cmd, ...args).then((v) => {
      state.done = true;
      return v;
    });
    while (t.server.keyspace.activePasses(DB) === 0 && !state.done) {
      await new Promise((res) => setImmediate(res));
    }
    return { state, reply };
  }

  test('PING, GET and RENAME on other connections are answered while KEYS runs', async () => {
    const a = await io(DB);
    const b = await io(DB);
    try {
      const { state, reply } = await startPass(a, 'KEYS', '*');
      expect(state.done).toBe(false);
      expect(await b.ping()).toBe('PONG');
      expect(state.done).toBe(false);
      expect(await b.get('big:7')).toBe('v7');
      // RENAME waits for other clients' disk operations: not for a KEYS.
      expect(await b.rename('big:8', 'big:8r')).toBe('OK');
      expect(await b.ping()).toBe('PONG');
      expect(state.done).toBe(false);
      const keys = (await reply) as string[];
      expect(keys.length).toBeGreaterThanOrEqual(N - 1);
      expect(await a.rename('big:8r', 'big:8')).toBe('OK');
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });

  test('INFO keyspace and DBSIZE answer from counters, with no whole-log pass', async () => {
    const a = await io(DB);
    try {
      expect(await a.dbsize()).toBe(N);
      expect(t.server.keyspace.activePasses(DB)).toBe(0);
      // Most of the keys are on the device: a whole-log pass would read it.
      const device = t.server.keyspace.get(DB)!.log.device;
      const readsBefore = device.stats().reads;
      expect(await a.info('keyspace')).toContain(`db${DB}:keys=${N},expires=0,avg_ttl=0`);
      expect(device.stats().reads).toBe(readsBefore);
      expect(t.server.keyspace.activePasses(DB)).toBe(0);
    } finally {
      a.disconnect();
    }
  });

  test('FLUSHDB waits for a running KEYS, which completes', async () => {
    const a = await io(DB);
    const b = await io(DB);
    try {
      const { reply } = await startPass(a, 'KEYS', 'big:1*');
      const flushed = b.flushdb();
      const keys = (await reply) as string[];
      expect(keys.length).toBeGreaterThan(1000);
      expect(await flushed).toBe('OK');
      expect(await b.dbsize()).toBe(0);
      expect(await a.keys('*')).toEqual([]);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});

describe('argument parsing', () => {
  const b = (s: string) => Buffer.from(s);
  test('cursors as strtoul reads them', () => {
    expect(parseCursor(b('0'))).toBe(0);
    expect(parseCursor(b(''))).toBe(0);
    expect(parseCursor(b('+12'))).toBe(12);
    expect(parseCursor(b('007'))).toBe(7);
    expect(parseCursor(b('9007199254740991'))).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseCursor(b('18446744073709551615'))).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseCursor(b('-18446744073709551615'))).toBe(1);
    expect(parseCursor(b('-1'))).toBe(Number.MAX_SAFE_INTEGER);
    for (const bad of ['-', '+', ' 1', '1 ', '1x', '0x10', '18446744073709551616', '1.0']) {
      expect(() => parseCursor(b(bad)), bad).toThrow('ERR invalid cursor');
    }
  });
  test('SCAN options', () => {
    const argv = (...xs: string[]) => xs.map(b);
    expect(parseScanOptions(argv('scan', '0', 'count', '5', 'type', 'hash'), 2)).toEqual({
      count: 5,
      type: 'hash',
    });
    expect(parseScanOptions(argv('scan', '0', 'MATCH', 'a*', 'MATCH', '*'), 2)).toEqual({});
    expect(() => parseScanOptions(argv('scan', '0', 'count'), 2)).toThrow('ERR syntax error');
  });
});
