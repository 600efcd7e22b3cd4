import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestParser } from '@strata/protocol';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CommandLog } from '../../src/server/command-log.js';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * MIGRATE between live servers on 127.0.0.1: strata to redis-server 7.0,
 * redis-server to strata (Redis's own MIGRATE, which exercises strata's
 * RESTORE), strata to strata; with COPY, REPLACE, AUTH, AUTH2, KEYS, a
 * SELECTed database, every type (streams with groups included) and TTLs,
 * the source's collections in memory and evicted to disk. Then what is
 * sent on the wire (a target that records it), the cached connection, its
 * retry, and a target that never answers while other clients go on.
 * The redis-server parts are skipped, and said so, without it.
 */
const live = hasRedisServer();
if (!live)
  console.warn('migrate-live: no redis-server installed; the redis-server parts are skipped');

type Reply = null | number | string | Buffer | Reply[];

/** One of each type, a stream with a group and a PEL, one key with a TTL. */
async function fill(c: Redis, p: string): Promise<string[]> {
  await c.set(`${p}:str`, 'x'.repeat(300));
  await c.hset(`${p}:hash`, ...Array.from({ length: 600 }, (_, i) => [`f${i}`, `v${i}`]).flat());
  await c.sadd(`${p}:set`, 'a', 'b', 'c');
  await c.zadd(`${p}:zset`, '1', 'a', '2.5', 'b');
  await c.rpush(`${p}:list`, ...Array.from({ length: 2000 }, (_, i) => `item-${i}`));
  for (let i = 1; i <= 1500; i++) await c.call('XADD', `${p}:stream`, `${i}-1`, 'n', String(i));
  await c.call('XDEL', `${p}:stream`, '7-1');
  await c.call('XGROUP', 'CREATE', `${p}:stream`, 'g', '0');
  await c.call('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '20', 'STREAMS', `${p}:stream`, '>');
  await c.pexpire(`${p}:list`, 1_000_000);
  return ['str', 'hash', 'set', 'zset', 'list', 'stream'].map((k) => `${p}:${k}`);
}

/** A key's contents, order-free where the type is. */
async function contents(c: Redis, key: string): Promise<unknown> {
  const type = await c.type(key);
  switch (type) {
    case 'string':
      return c.get(key);
    case 'hash':
      return Object.entries(await c.hgetall(key)).sort();
    case 'set':
      return (await c.smembers(key)).sort();
    case 'zset':
      return c.zrange(key, 0, -1, 'WITHSCORES');
    case 'list':
      return c.lrange(key, 0, -1);
    case 'stream': {
      const info = (await c.call('XINFO', 'STREAM', key, 'FULL')) as Reply[];
      // Without the radix tree's sizes: Redis's nodes, strata's blocks.
      return info.filter((_, i) => !String(info[i - (i % 2)]).startsWith('radix-tree-'));
    }
    default:
      return type;
  }
}

async function snapshot(c: Redis, keys: string[]): Promise<unknown[]> {
  return Promise.all(keys.map((k) => contents(c, k)));
}

/** A target that answers +OK to every command (or nothing, `silent`) and keeps what it got. */
class FakeTarget {
  readonly commands: string[][] = [];
  connections = 0;
  /** Connections that ended (by either side). */
  closedByPeer = 0;
  silent = false;
  /** Close each connection after this many commands (0: never). */
  closeAfter = 0;
  /** While set, replies wait here until `release`. */
  held: (() => void)[] | null = null;
  private server!: Server;
  private sockets: Socket[] = [];
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((s) => {
      this.connections++;
      this.sockets.push(s);
      s.on('close', () => {
        this.closedByPeer++;
      });
      const parser = new RequestParser();
      let seen = 0;
      s.on('data', (chunk: Buffer) => {
        parser.feed(chunk);
        for (;;) {
          const argv = parser.take();
          if (argv === null) break;
          this.commands.push(argv.map((a) => a.toString('latin1')));
          seen++;
          if (this.held !== null) this.held.push(() => s.write('+OK\r\n'));
          else if (!this.silent) s.write('+OK\r\n');
          if (this.closeAfter > 0 && seen >= this.closeAfter) s.destroy();
        }
      });
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const a = this.server.address();
    this.port = typeof a === 'object' && a !== null ? a.port : 0;
  }

  /** Sends the replies held so far, and replies at once from now on. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const send of held) send();
  }

  /** Closes the connections made so far (a target that restarted, or dropped idle clients). */
  dropAll(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets = [];
  }

  async stop(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The source's command log: what MIGRATE propagates. */
const logged: string[] = [];
const recording: CommandLog = {
  append(db, argv) {
    logged.push(`${db} ${argv.map((a) => a.toString('latin1')).join(' ')}`);
    return undefined;
  },
};

describe('MIGRATE on the wire (a target that records what it gets)', () => {
  let source: TestServer;
  let s: Redis;
  let target: FakeTarget;
  beforeAll(async () => {
    source = await startServer({ commandLog: recording });
    s = new Redis({ port: source.port, host: '127.0.0.1' });
    target = new FakeTarget();
    await target.start();
  });
  afterAll(async () => {
    s.disconnect();
    await target.stop();
    await source.stop();
  });

  test('AUTH2, SELECT, RESTORE with TTL and REPLACE in one pipeline; the connection is cached', async () => {
    await s.set('w1', 'v1');
    await s.set('w2', 'v2', 'PX', 500_000);
    const argv = ['MIGRATE', '127.0.0.1', String(target.port), '', '5', '1000'];
    const args = [...argv, 'COPY', 'REPLACE', 'AUTH2', 'u', 'p', 'KEYS', 'w1', 'w2', 'nokey'];
    expect(await s.call(...(args as [string, ...string[]]))).toBe('OK');
    const [auth, select, r1, r2] = target.commands;
    expect(auth).toEqual(['AUTH', 'u', 'p']);
    expect(select).toEqual(['SELECT', '5']);
    expect(r1![0]).toBe('RESTORE');
    expect(r1![1]).toBe('w1');
    expect(r1![2]).toBe('0');
    expect(r1![4]).toBe('REPLACE');
    expect(Buffer.from(r1![3]!, 'latin1')).toEqual(await s.dumpBuffer('w1'));
    expect(Number(r2![2])).toBeGreaterThan(400_000);
    expect(Number(r2![2])).toBeLessThanOrEqual(500_000);
    expect(target.commands).toHaveLength(4);
    // COPY: the keys stay.
    expect(await s.exists('w1', 'w2')).toBe(2);
    // The same database again: no SELECT, the same connection.
    target.commands.length = 0;
    expect(await s.call('MIGRATE', '127.0.0.1', String(target.port), 'w1', '5', '1000')).toBe('OK');
    expect(target.commands.map((c) => c[0])).toEqual(['RESTORE']);
    expect(target.connections).toBe(1);
    // Not COPY: the key is gone from the source.
    expect(await s.exists('w1')).toBe(0);
  });

  test('MIGRATEs from several clients to one new target share one connection, in turn', async () => {
    const fresh = new FakeTarget();
    await fresh.start();
    const clients = [0, 1, 2].map(() => new Redis({ port: source.port, host: '127.0.0.1' }));
    try {
      await s.mset('p0', 'a', 'p1', 'b', 'p2', 'c');
      const port = String(fresh.port);
      const replies = await Promise.all(
        clients.map((c, i) => c.call('MIGRATE', '127.0.0.1', port, `p${i}`, '4', '1000')),
      );
      expect(replies).toEqual(['OK', 'OK', 'OK']);
      expect(fresh.connections).toBe(1);
      // One SELECT, then each RESTORE whole, one after another.
      expect(fresh.commands.map((c) => `${c[0]} ${c[1]}`).sort()).toEqual([
        'RESTORE p0',
        'RESTORE p1',
        'RESTORE p2',
        'SELECT 4',
      ]);
      expect(await s.exists('p0', 'p1', 'p2')).toBe(0);
    } finally {
      for (const c of clients) c.disconnect();
      await fresh.stop();
    }
  });

  test('the cached connection closes with the server (not 10 s later)', async () => {
    const other = await startServer();
    const fresh = new FakeTarget();
    await fresh.start();
    const c = new Redis({ port: other.port, host: '127.0.0.1' });
    try {
      await c.set('k', 'v');
      expect(await c.call('MIGRATE', '127.0.0.1', String(fresh.port), 'k', '0', '1000')).toBe('OK');
      expect(fresh.connections).toBe(1);
      expect(fresh.closedByPeer).toBe(0);
      c.disconnect();
      await other.stop();
      // Waited on for at most 4 s, well inside the 10 s an unused connection is kept for.
      for (let i = 0; fresh.closedByPeer === 0 && i < 400; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(fresh.closedByPeer).toBe(1);
    } finally {
      c.disconnect();
      await fresh.stop();
    }
  });

  test('a cached connection the target closed is retried once on a new one', async () => {
    await s.set('w3', 'v3');
    const before = target.connections;
    target.dropAll();
    expect(await s.call('MIGRATE', '127.0.0.1', String(target.port), 'w3', '6', '1000')).toBe('OK');
    expect(target.connections).toBe(before + 1);
    expect(await s.exists('w3')).toBe(0);
    // Once only: a new connection that fails too is an IOERR, and the key stays.
    await s.set('w4', 'v4');
    target.closeAfter = 1;
    target.dropAll();
    const failed = s.call('MIGRATE', '127.0.0.1', String(target.port), 'w4', '6', '1000');
    await expect(failed).rejects.toThrow('IOERR error or timeout reading to target instance');
    expect(target.connections).toBe(before + 2);
    expect(await s.get('w4')).toBe('v4');
    target.closeAfter = 0;
  });

  test('a target that never answers: other clients go on, then IOERR after the timeout', async () => {
    await s.set('w5', 'v5');
    target.silent = true;
    const other = new Redis({ port: source.port, host: '127.0.0.1' });
    try {
      const pending = s
        .call('MIGRATE', '127.0.0.1', String(target.port), 'w5', '7', '300')
        .catch((e: Error) => e.message);
      // This client's next command waits for its MIGRATE's reply...
      const next = s.get('w5');
      // ...another client's commands do not.
      expect(await other.ping()).toBe('PONG');
      expect(await other.set('w6', 'x')).toBe('OK');
      expect(await pending).toBe('IOERR error or timeout reading to target instance');
      expect(await next).toBe('v5');
    } finally {
      other.disconnect();
      target.silent = false;
    }
  });

  test('the command log gets one DEL of the keys that went, nothing for COPY or NOKEY', async () => {
    await s.set('l1', '1');
    await s.set('l2', '2');
    const port = String(target.port);
    logged.length = 0;
    expect(
      await s.call('MIGRATE', '127.0.0.1', port, '', '0', '1000', 'COPY', 'KEYS', 'l1', 'l2'),
    ).toBe('OK');
    expect(await s.call('MIGRATE', '127.0.0.1', port, 'nokey', '0', '1000')).toBe('NOKEY');
    expect(logged).toEqual([]);
    expect(
      await s.call('MIGRATE', '127.0.0.1', port, '', '0', '1000', 'KEYS', 'l1', 'nokey', 'l2'),
    ).toBe('OK');
    expect(logged).toEqual(['0 DEL l1 l2']);
  });

  test('a key another client writes while the target has not answered keeps its new value', async () => {
    await s.set('c1', 'old');
    await s.set('c2', 'old');
    target.held = [];
    const other = new Redis({ port: source.port, host: '127.0.0.1' });
    try {
      logged.length = 0;
      const port = String(target.port);
      const pending = s.call('MIGRATE', '127.0.0.1', port, '', '0', '5000', 'KEYS', 'c1', 'c2');
      while (target.held.length < 2) await new Promise((r) => setTimeout(r, 5));
      expect(await other.set('c1', 'new')).toBe('OK');
      target.release();
      expect(await pending).toBe('OK');
      // c1 was written after it was read: it stays; c2 went.
      expect(await s.get('c1')).toBe('new');
      expect(await s.exists('c2')).toBe(0);
      expect(logged).toEqual(['0 SET c1 new', '0 DEL c2']);
    } finally {
      other.disconnect();
      target.release();
    }
  });

  test('inside MULTI and from a script, as Redis runs it there', async () => {
    const port = String(target.port);
    await s.set('t1', '1');
    await s.set('t2', '2');
    const tx = await s
      .multi()
      .call('MIGRATE', '127.0.0.1', port, 't1', '0', '1000')
      .exists('t1')
      .exec();
    expect(tx).toEqual([
      [null, 'OK'],
      [null, 0],
    ]);
    const script =
      "return {redis.call('migrate', ARGV[1], ARGV[2], KEYS[1], 0, 1000), redis.call('exists', KEYS[1])}";
    expect(await s.eval(script, 1, 't2', '127.0.0.1', port)).toEqual(['OK', 0]);
  });

  test('AUTH and AUTH2 credentials are redacted in SLOWLOG', async () => {
    const port = String(target.port);
    await s.config('SET', 'slowlog-log-slower-than', '0');
    await s.slowlog('RESET');
    await s.call('MIGRATE', '127.0.0.1', port, 'nokey', '0', '100', 'AUTH', 'secret1');
    await s.call('MIGRATE', '127.0.0.1', port, 'nokey', '0', '100', 'AUTH2', 'user2', 'secret2');
    const log = JSON.stringify(await s.slowlog('GET'));
    await s.config('SET', 'slowlog-log-slower-than', '10000');
    expect(log).toContain('(redacted)');
    expect(log).not.toMatch(/secret|user2/);
  });

  test('argument errors in Redis order, NOKEY, and a target that cannot be reached', async () => {
    const port = String(target.port);
    const err = (p: Promise<unknown>) => p.catch((e: Error) => e.message);
    expect(await err(s.call('MIGRATE', '127.0.0.1', port, 'k', '0', 'x', 'AUTH'))).toBe(
      'ERR syntax error',
    );
    expect(await err(s.call('MIGRATE', '127.0.0.1', port, 'k', 'x', '1', 'KEYS', 'a'))).toBe(
      'ERR When using MIGRATE KEYS option, the key argument must be set to the empty string',
    );
    expect(await err(s.call('MIGRATE', '127.0.0.1', port, 'k', 'x', 'y'))).toBe(
      'ERR value is not an integer or out of range',
    );
    expect(await s.call('MIGRATE', '127.0.0.1', port, 'nokey', '0', '100')).toBe('NOKEY');
    await s.set('w7', 'v');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const addr = closed.address();
    const dead = String(typeof addr === 'object' && addr !== null ? addr.port : 0);
    await new Promise<void>((r) => closed.close(() => r()));
    // Redis's connect does not wait for the handshake: its first write fails.
    expect(await err(s.call('MIGRATE', '127.0.0.1', dead, 'w7', '0', '100'))).toBe(
      'IOERR error or timeout writing to target instance',
    );
    expect(await s.get('w7')).toBe('v');
  });
});

describe.skipIf(!live)('MIGRATE between strata-server and redis-server', () => {
  let redis: { port: number; stop(): void };
  let redisAuth: { port: number; stop(): void };
  let r: Redis;
  let ra: Redis;
  let strataTarget: TestServer;
  let t: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    redisAuth = await startRedis([
      '--requirepass',
      'pw',
      '--user',
      'mig',
      'on',
      '>secret',
      '~*',
      '+@all',
    ]);
    r = new Redis({ port: redis.port, host: '127.0.0.1' });
    ra = new Redis({ port: redisAuth.port, host: '127.0.0.1', password: 'pw' });
    strataTarget = await startServer({ requirepass: 'spw' });
    t = new Redis({ port: strataTarget.port, host: '127.0.0.1', password: 'spw' });
    await t.call('ACL', 'SETUSER', 'smig', 'on', '>ssecret', '~*', '+@all');
  }, 30_000);
  afterAll(async () => {
    r.disconnect();
    ra.disconnect();
    t.disconnect();
    redis.stop();
    redisAuth.stop();
    await strataTarget.stop();
  });

  for (const evicted of [false, true]) {
    describe(evicted ? 'the source evicted to disk' : 'the source in memory', () => {
      let source: TestServer;
      let s: Redis;
      const p = evicted ? 'e' : 'm';
      beforeAll(async () => {
        source = await startServer(evicted ? { collectionMemory: 1 } : {});
        s = new Redis({ port: source.port, host: '127.0.0.1' });
      });
      afterAll(async () => {
        s.disconnect();
        await source.stop();
      });

      test('strata to redis-server: KEYS, every type, TTLs; the keys leave the source', async () => {
        const keys = await fill(s, `${p}1`);
        const before = await snapshot(s, keys);
        const port = String(redis.port);
        expect(await s.call('MIGRATE', '127.0.0.1', port, '', '0', '5000', 'KEYS', ...keys)).toBe(
          'OK',
        );
        expect(await snapshot(r, keys)).toEqual(before);
        expect(await r.pttl(`${p}1:list`)).toBeGreaterThan(900_000);
        expect(await s.exists(...keys)).toBe(0);
      });

      test('strata to redis-server: COPY, REPLACE, the target error, a database', async () => {
        const keys = await fill(s, `${p}2`);
        const port = String(redis.port);
        const key = `${p}2:hash`;
        expect(await s.call('MIGRATE', '127.0.0.1', port, key, '3', '5000', 'COPY')).toBe('OK');
        expect(await s.exists(key)).toBe(1);
        await r.select(3);
        expect(await contents(r, key)).toEqual(await contents(s, key));
        await r.select(0);
        await expect(s.call('MIGRATE', '127.0.0.1', port, key, '3', '5000')).rejects.toThrow(
          'ERR Target instance replied with error: BUSYKEY Target key name already exists.',
        );
        expect(await s.exists(key)).toBe(1);
        await s.hset(key, 'new', 'field');
        expect(await s.call('MIGRATE', '127.0.0.1', port, key, '3', '5000', 'REPLACE')).toBe('OK');
        expect(await s.exists(key)).toBe(0);
        await r.select(3);
        expect(await r.hget(key, 'new')).toBe('field');
        await r.select(0);
        // Two keys, one of them refused: the other still moves.
        await r.set(`${p}2:str`, 'there already');
        await expect(
          s.call('MIGRATE', '127.0.0.1', port, '', '0', '5000', 'KEYS', `${p}2:str`, `${p}2:set`),
        ).rejects.toThrow('BUSYKEY');
        expect(await s.exists(`${p}2:str`, `${p}2:set`)).toBe(1);
        expect(await r.smembers(`${p}2:set`)).toHaveLength(3);
        expect(keys).toHaveLength(6);
      });

      test('strata to redis-server: AUTH and AUTH2, and a wrong password', async () => {
        await fill(s, `${p}3`);
        const port = String(redisAuth.port);
        expect(
          await s.call('MIGRATE', '127.0.0.1', port, `${p}3:str`, '0', '5000', 'AUTH', 'pw'),
        ).toBe('OK');
        expect(await ra.get(`${p}3:str`)).toBe('x'.repeat(300));
        const auth2 = ['AUTH2', 'mig', 'secret'];
        expect(
          await s.call('MIGRATE', '127.0.0.1', port, `${p}3:stream`, '0', '5000', ...auth2),
        ).toBe('OK');
        expect(await ra.call('XLEN', `${p}3:stream`)).toBe(1499);
        await expect(
          s.call('MIGRATE', '127.0.0.1', port, `${p}3:set`, '0', '5000', 'AUTH', 'nope'),
        ).rejects.toThrow(
          'ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled.',
        );
        expect(await s.exists(`${p}3:set`)).toBe(1);
      });

      test('redis-server to strata: Redis MIGRATE into a strata target, with AUTH2 and REPLACE', async () => {
        const keys = await fill(r, `${p}4`);
        const before = await snapshot(r, keys);
        // A strata source copy to compare the target's with.
        const port = String(source.port);
        expect(await r.call('MIGRATE', '127.0.0.1', port, '', '0', '5000', 'KEYS', ...keys)).toBe(
          'OK',
        );
        expect(await snapshot(s, keys)).toEqual(before);
        expect(await s.pttl(`${p}4:list`)).toBeGreaterThan(900_000);
        expect(await r.exists(...keys)).toBe(0);
        // Back to redis-server, then into the strata target with AUTH2 and REPLACE.
        expect(
          await s.call(
            'MIGRATE',
            '127.0.0.1',
            String(redis.port),
            '',
            '0',
            '5000',
            'KEYS',
            ...keys,
          ),
        ).toBe('OK');
        await t.set(`${p}4:str`, 'old');
        const tport = String(strataTarget.port);
        const auth2 = ['AUTH2', 'smig', 'ssecret'];
        expect(
          await r.call(
            'MIGRATE',
            '127.0.0.1',
            tport,
            '',
            '0',
            '5000',
            'REPLACE',
            ...auth2,
            'KEYS',
            ...keys,
          ),
        ).toBe('OK');
        expect(await snapshot(t, keys)).toEqual(before);
      });

      test('strata to strata, into another database, with AUTH', async () => {
        const keys = await fill(s, `${p}5`);
        const before = await snapshot(s, keys);
        const tport = String(strataTarget.port);
        expect(
          await s.call(
            'MIGRATE',
            '127.0.0.1',
            tport,
            '',
            '2',
            '5000',
            'AUTH',
            'spw',
            'KEYS',
            ...keys,
          ),
        ).toBe('OK');
        await t.select(2);
        expect(await snapshot(t, keys)).toEqual(before);
        expect(await t.pttl(`${p}5:list`)).toBeGreaterThan(900_000);
        await t.select(0);
        expect(await s.exists(...keys)).toBe(0);
      });
    });
  }

  test('a cluster-mode redis-server MIGRATEs into strata with RESTORE-ASKING', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-migrate-cluster-'));
    const cluster = await startRedis([
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
    ]);
    const c = new Redis({ port: cluster.port, host: '127.0.0.1' });
    try {
      await c.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
      while (!String(await c.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const keys = await fill(c, '{c}');
      const before = await snapshot(c, keys);
      const tport = String(strataTarget.port);
      expect(
        await c.call(
          'MIGRATE',
          '127.0.0.1',
          tport,
          '',
          '0',
          '5000',
          'AUTH',
          'spw',
          'KEYS',
          ...keys,
        ),
      ).toBe('OK');
      expect(await snapshot(t, keys)).toEqual(before);
      expect(await t.pttl('{c}:list')).toBeGreaterThan(900_000);
      expect(await t.info('commandstats')).toMatch(/cmdstat_restore-asking:calls=6,/);
    } finally {
      c.disconnect();
      cluster.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('keyspace events: del for each key moved, none for COPY', async () => {
    const source = await startServer();
    const s = new Redis({ port: source.port, host: '127.0.0.1' });
    const sub = new Redis({ port: source.port, host: '127.0.0.1' });
    try {
      await s.config('SET', 'notify-keyspace-events', 'Eg');
      const got: string[] = [];
      await sub.subscribe('__keyevent@0__:del');
      sub.on('message', (_ch: string, key: string) => got.push(key));
      await s.set('ev1', '1');
      await s.set('ev2', '2');
      const port = String(redis.port);
      expect(
        await s.call('MIGRATE', '127.0.0.1', port, 'ev1', '0', '5000', 'COPY', 'REPLACE'),
      ).toBe('OK');
      expect(
        await s.call(
          'MIGRATE',
          '127.0.0.1',
          port,
          '',
          '0',
          '5000',
          'REPLACE',
          'KEYS',
          'ev1',
          'ev2',
        ),
      ).toBe('OK');
      await s.ping();
      await sub.ping().catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      expect(got).toEqual(['ev1', 'ev2']);
    } finally {
      s.disconnect();
      sub.disconnect();
      await source.stop();
    }
  });
});
