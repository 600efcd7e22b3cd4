import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hasRedisServer, startRedis as startRedisProcess } from '@strata/redis-harness';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort, runCli, StrataProcess, tempDir } from './strata-process.js';

// strata-server --import-rdb: RDB files written by the installed
// redis-server (every type in every encoding Redis 7.0 writes, streams with
// groups, expiries, several databases) imported, then served and compared
// key by key with the redis-server that wrote them; bad files (truncated, a
// byte flipped, a module type) refused with the offset and nothing imported.
// The checks on bad input and on the directory rules run on small files
// built here, so they run without redis-server too; the live half is
// skipped then, and says so.

const hasRedis = hasRedisServer();
/** Small stores: most of what is imported lives on disk. */
const SMALL = ['--memory', '64kb', '--page-size', '16kb'];

let tmp: Awaited<ReturnType<typeof tempDir>>;
let dirs = 0;
const newDir = () => join(tmp.path, `d${++dirs}`);

beforeAll(async () => {
  tmp = await tempDir('strata-rdb-import-');
});
afterAll(async () => {
  StrataProcess.killAll();
  await tmp.remove();
});

/** An RDB file with the checksum turned off (a stored 0): `REDIS0010`, keys, EOF. */
function handBuiltRdb(...records: Buffer[]): Buffer {
  return Buffer.concat([
    Buffer.from('REDIS0010'),
    ...records,
    Buffer.from([0xff]),
    Buffer.alloc(8),
  ]);
}

const str = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)]);
/** SELECTDB n, then the string keys of `pairs`. */
function dbRecords(db: number, pairs: Array<[string, string]>): Buffer {
  return Buffer.concat([
    Buffer.from([0xfe, db]),
    ...pairs.map(([k, v]) => Buffer.concat([Buffer.from([0]), str(k), str(v)])),
  ]);
}

async function writeTemp(name: string, bytes: Buffer): Promise<string> {
  const file = join(tmp.path, name);
  await writeFile(file, bytes);
  return file;
}

async function client(port: number, db = 0): Promise<Redis> {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    db,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  await r.connect();
  return r;
}

/** strata-server importing `file` into a new directory, then serving it (--import-serve yes). */
function importServing(file: string): ReturnType<typeof StrataProcess.start> {
  return StrataProcess.start([
    '--import-rdb',
    file,
    '--import-serve',
    'yes',
    '--port',
    '0',
    '--dir',
    newDir(),
    ...SMALL,
  ]);
}

/** What is in a directory after an import that must not have happened. */
const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : null);

describe('--import-rdb on files built here', () => {
  const good = handBuiltRdb(
    dbRecords(0, [
      ['a', '1'],
      ['b', 'two'],
    ]),
    dbRecords(2, [['c', 'three']]),
  );

  test('loads every database of the file, prints the summary and exits 0', async () => {
    const file = await writeTemp('good.rdb', good);
    const dir = newDir();
    const r = await runCli(['--import-rdb', file, '--dir', dir, ...SMALL]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'Done loading RDB, keys loaded: 3, keys expired: 0, empty keys skipped: 0.',
    );
    expect(r.stdout).toMatch(
      /Imported 3 keys \(string 3; db0 2, db2 1\) from 43b in [\d.]+ seconds/,
    );
    // stderr is no terminal here: plain progress lines, the last at 100%.
    expect(r.stderr).toMatch(/Importing: 100% {2}43b\/43b {2}3 keys/);
    expect(entries(dir)).toEqual(['0', '2']);
    const s = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    const c0 = await client(s.port);
    const c2 = await client(s.port, 2);
    expect(await c0.mget('a', 'b')).toEqual(['1', 'two']);
    expect(await c2.get('c')).toBe('three');
    expect(await c0.dbsize()).toBe(2);
    c0.disconnect();
    c2.disconnect();
    await s.process.stop();
  });

  test('--import-serve yes goes on serving the imported keys', async () => {
    const file = await writeTemp('serve.rdb', good);
    const s = await importServing(file);
    const c = await client(s.port);
    expect(await c.get('b')).toBe('two');
    c.disconnect();
    await s.process.stop();
  });

  test('a truncated file: the offset named, no directory made', async () => {
    for (const cut of [5, 12, good.length - 20, good.length - 3]) {
      const file = await writeTemp(`cut${cut}.rdb`, good.subarray(0, cut));
      const dir = newDir();
      const r = await runCli(['--import-rdb', file, '--dir', dir, ...SMALL]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/# Import failed: .*at byte offset \d+\)/);
      expect(r.stdout).toContain(`Nothing was imported: ${dir} is as it was.`);
      expect(entries(dir)).toBeNull();
    }
  });

  test('a module type is refused, naming it and the offset; an empty dir stays empty', async () => {
    // SELECTDB 0, a string, then type 7 (RDB_TYPE_MODULE_2) at offset 16, key "m", the 64-bit module id at 19.
    const id = Buffer.alloc(8);
    id.writeBigUInt64BE(0x0123456789abcdefn);
    const file = await writeTemp(
      'module.rdb',
      handBuiltRdb(
        dbRecords(0, [['a', '1']]),
        Buffer.from([7]),
        str('m'),
        Buffer.from([0x81]),
        id,
        Buffer.from([0]),
      ),
    );
    const dir = newDir();
    const made = await runCli([
      '--import-rdb',
      await writeTemp('empty.rdb', handBuiltRdb()),
      '--dir',
      dir,
    ]);
    expect(made.code).toBe(0);
    expect(entries(dir)).toEqual([]);
    const r = await runCli(['--import-rdb', file, '--dir', dir, ...SMALL]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/# Import failed: .*module.*at byte offset 19\)/);
    expect(entries(dir)).toEqual([]);
  });

  test('a key in a database the server does not have is refused', async () => {
    const file = await writeTemp('db9.rdb', handBuiltRdb(dbRecords(9, [['k', 'v']])));
    const r = await runCli(['--import-rdb', file, '--dir', newDir(), '--databases', '4']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'the RDB file has a key in database 9, and there are 4 databases (--databases) (at byte offset 11)',
    );
  });

  test('a hash with field expiry times (Redis 7.4, RDB type 24): kept, and expired by the active cycle', async () => {
    const soon = Date.now() + 5000;
    const far = soon + 3_600_000;
    const min = Buffer.alloc(8);
    min.writeBigInt64LE(BigInt(soon));
    const rel = Buffer.alloc(5);
    rel[0] = 0x80;
    rel.writeUInt32BE(far - soon + 1, 1);
    // SELECTDB 0, type 24, key "h", the soonest expiry, 3 fields: [ttl, field, value] each
    // (ttl relative to the soonest + 1; 0 for none).
    const file = await writeTemp(
      'hfe.rdb',
      handBuiltRdb(
        Buffer.from([0xfe, 0, 24]),
        str('h'),
        min,
        Buffer.from([3, 1]),
        str('soon'),
        str('1'),
        rel,
        str('far'),
        str('2'),
        Buffer.from([0]),
        str('none'),
        str('3'),
      ),
    );
    const s = await importServing(file);
    const c = await client(s.port);
    const sub = await client(s.port);
    await c.config('SET', 'notify-keyspace-events', 'Eh');
    const expired = new Promise<string>((resolve) => {
      sub.on('message', (_channel: string, key: string) => resolve(key));
    });
    await sub.subscribe('__keyevent@0__:hexpired');
    // Nothing reads "h" before its field is due: only the registry can tell the cycle of it.
    expect(await expired).toBe('h');
    expect((await c.hkeys('h')).sort()).toEqual(['far', 'none']);
    expect(await c.call('hpexpiretime', 'h', 'FIELDS', '2', 'far', 'none')).toEqual([far, -1]);
    c.disconnect();
    sub.disconnect();
    await s.process.stop();
  });

  test('a key the file holds twice in one database is refused, as Redis refuses it; nothing imported', async () => {
    const file = await writeTemp(
      'dup.rdb',
      handBuiltRdb(
        dbRecords(0, [
          ['a', '1'],
          ['b', '2'],
        ]),
        dbRecords(1, [['a', 'other db']]),
        dbRecords(0, [['a', 'again']]),
      ),
    );
    const dir = newDir();
    const r = await runCli(['--import-rdb', file, '--dir', dir, ...SMALL]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/RDB has duplicated key "a" in DB 0 \(at byte offset \d+\)/);
    expect(r.stdout).toContain(`Nothing was imported: ${dir} is as it was.`);
    expect(entries(dir)).toBeNull();
    if (hasRedis) {
      // redis-server 7.0 stops loading the same file: "Duplicated key found in RDB file".
      const rdir = newDir();
      await mkdir(rdir, { recursive: true });
      await copyFile(file, join(rdir, 'dump.rdb'));
      const redis = spawnSync(
        'redis-server',
        ['--port', String(await freePort()), '--dir', rdir, '--save', ''],
        {
          encoding: 'utf8',
          timeout: 10_000,
        },
      );
      expect(redis.status).not.toBe(0);
      expect(redis.stdout).toContain("RDB has duplicated key 'a' in DB 0");
    }
  });

  test('a directory with data: refused without --import-merge; merged with it, after the whole file is checked', async () => {
    const dir = newDir();
    const s = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    const c = await client(s.port);
    await c.mset('a', 'old', 'kept', 'yes');
    c.disconnect();
    await s.process.stop();
    const before = entries(dir);

    const file = await writeTemp('merge.rdb', good);
    const refused = await runCli(['--import-rdb', file, '--dir', dir, ...SMALL]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `${dir} already holds data (0): import into a new or empty directory`,
    );

    // A bad file with merging on: nothing of it reaches the databases.
    const cut = await writeTemp('merge-bad.rdb', good.subarray(0, good.length - 12));
    const failed = await runCli([
      '--import-rdb',
      cut,
      '--import-merge',
      'yes',
      '--dir',
      dir,
      ...SMALL,
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Nothing was imported');
    expect(entries(dir)).toEqual(before);

    const merged = await runCli([
      '--import-rdb',
      file,
      '--import-merge',
      'yes',
      '--dir',
      dir,
      ...SMALL,
    ]);
    expect(merged.code, merged.stdout).toBe(0);
    const t = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    const d = await client(t.port);
    expect(await d.mget('a', 'b', 'kept')).toEqual(['1', 'two', 'yes']);
    d.disconnect();
    await t.process.stop();
  });
});

describe('--import-rdb and the append-only file', () => {
  test('no merge into a directory with an AOF (its checkpoints name the data); a new one imports, then serves with the AOF on', async () => {
    const file = await writeTemp('aof.rdb', handBuiltRdb(dbRecords(0, [['k', 'v']])));
    const dir = newDir();
    const a = await StrataProcess.start([
      '--port',
      '0',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      ...SMALL,
    ]);
    await a.process.stop();
    const before = entries(dir);
    const r = await runCli(['--import-rdb', file, '--import-merge', 'yes', '--dir', dir, ...SMALL]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `${dir} has an append-only file (appendonlydir): an import cannot be merged into it`,
    );
    expect(entries(dir)).toEqual(before);

    const fresh = newDir();
    const s = await StrataProcess.start([
      '--import-rdb',
      file,
      '--import-serve',
      'yes',
      '--appendonly',
      'yes',
      '--port',
      '0',
      '--dir',
      fresh,
      ...SMALL,
    ]);
    const c = await client(s.port);
    expect(await c.get('k')).toBe('v');
    await c.set('k2', 'after');
    c.disconnect();
    await s.process.stop();
    const t = await StrataProcess.start([
      '--port',
      '0',
      '--appendonly',
      'yes',
      '--dir',
      fresh,
      ...SMALL,
    ]);
    const d = await client(t.port);
    expect(await d.mget('k', 'k2')).toEqual(['v', 'after']);
    d.disconnect();
    await t.process.stop();
  });
});

// ---- the live half: files written by redis-server ----------------------------------

interface RedisServer {
  child: ChildProcess;
  port: number;
  dir: string;
}

async function startRedis(): Promise<RedisServer> {
  const dir = newDir();
  await mkdir(dir, { recursive: true });
  const redis = await startRedisProcess([], { dir });
  return { child: redis.process, port: redis.port, dir };
}

const range = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** Keys of every type in every encoding Redis 7.0 saves, some with expiries, in databases 0 and 3. */
async function fill(r: Redis): Promise<void> {
  await r.set('str:int', '12345');
  await r.set('str:neg', '-9000000000');
  await r.set('str:short', 'hello');
  await r.set('str:lzf', 'ab'.repeat(2000)); // compressible: saved LZF
  await r.set('str:binary', Buffer.from([0, 255, 13, 10, 128]));
  await r.set('str:ttl', 'v', 'PX', 3_600_000);
  await r.rpush('list:listpack', 'a', '1', 'b');
  await r.rpush('list:quicklist', ...range(3000, (i) => `item-${i}`)); // several nodes
  await r.rpush('list:big-items', ...range(5, (i) => 'x'.repeat(9000 + i))); // one item per node
  await r.sadd('set:intset', 1, 2, 3, -4, 2 ** 40);
  await r.sadd('set:hashtable', 'a', 'b', 'c');
  await r.sadd('set:big-ints', ...range(600, (i) => String(i * 7))); // past set-max-intset-entries
  await r.zadd('zset:listpack', 1, 'a', 2.5, 'b', -3, 'c');
  await r.zadd('zset:skiplist', ...range(300, (i) => [String(i / 3), `m${i}`]).flat());
  await r.zadd('zset:inf', '+inf', 'top', '-inf', 'bottom');
  await r.hset('hash:listpack', 'f1', 'v1', 'f2', '2');
  await r.hset('hash:hashtable', ...range(600, (i) => [`f${i}`, `v${i}`]).flat());
  await r.hset('hash:long-value', 'f', 'y'.repeat(100)); // past hash-max-listpack-value
  await r.hset('hash:ttl', 'a', 'b');
  await r.pexpire('hash:ttl', 7_200_000);
  for (let i = 0; i < 2500; i++)
    await r.xadd('stream:big', `${1000 + i}-${i % 3}`, 'n', String(i), 'pad', 'p'.repeat(i % 50));
  await r.xdel('stream:big', '1005-2', '1006-0');
  await r.xgroup('CREATE', 'stream:big', 'g1', '0');
  await r.xgroup('CREATE', 'stream:big', 'g2', '$');
  await r.xreadgroup('GROUP', 'g1', 'alice', 'COUNT', 10, 'STREAMS', 'stream:big', '>');
  await r.xreadgroup('GROUP', 'g1', 'bob', 'COUNT', 5, 'STREAMS', 'stream:big', '>');
  await r.xack('stream:big', 'g1', '1001-1');
  await r.xadd('stream:small', '5-1', 'a', '1');
  await r.xadd('stream:empty', '7-7', 'x', 'y');
  await r.xdel('stream:empty', '7-7');
  await r.call('XSETID', 'stream:small', '9-9', 'ENTRIESADDED', '12', 'MAXDELETEDID', '4-0');
  await r.select(3);
  await r.set('db3:str', 'three');
  await r.rpush('db3:list', 'x');
  await r.select(0);
}

type Snapshot = Record<string, unknown>;

/** Everything a key holds, as replies both servers give the same way. */
async function snapshot(r: Redis, key: string): Promise<Snapshot> {
  const type = await r.type(key);
  const out: Snapshot = { type };
  const pttl = await r.pttl(key);
  out.hasTtl = pttl > 0;
  switch (type) {
    case 'string':
      out.value = await r.getBuffer(key);
      break;
    case 'list':
      out.value = await r.lrange(key, 0, -1);
      break;
    case 'set':
      // No encoding: strata's small sets of strings are listpacks (Redis 7.2's), whoever wrote them.
      out.value = (await r.smembers(key)).sort();
      break;
    case 'zset':
      out.value = await r.zrange(key, 0, -1, 'WITHSCORES');
      out.encoding = await r.object('ENCODING', key);
      break;
    case 'hash':
      out.value = Object.entries(await r.hgetall(key)).sort();
      out.encoding = await r.object('ENCODING', key);
      break;
    case 'stream': {
      out.value = await r.xrange(key, '-', '+');
      const info = (await r.xinfo('STREAM', key)) as unknown[];
      const fields: Record<string, unknown> = {};
      for (let i = 0; i < info.length; i += 2) fields[String(info[i])] = info[i + 1];
      out.info = [
        fields.length,
        fields['last-generated-id'],
        fields['max-deleted-entry-id'],
        fields['entries-added'],
        fields['first-entry'],
        fields['last-entry'],
        fields['recorded-first-entry-id'],
      ];
      out.groups = await r.xinfo('GROUPS', key);
      const groups = out.groups as unknown[][];
      const pel: unknown[] = [];
      for (const g of groups) {
        const name = String(g[1]);
        const consumers = (await r.xinfo('CONSUMERS', key, name)) as unknown[][];
        pel.push(consumers.map((c) => [c[1], c[3]])); // name, pending (idle moves on)
        // ID, owner, delivery count (the idle time moves on).
        const ext = (await r.xpending(key, name, '-', '+', 100)) as unknown[][];
        pel.push(ext.map((e) => [e[0], e[1], e[3]]));
      }
      out.pel = pel;
      break;
    }
  }
  return out;
}

describe.skipIf(!hasRedis)('--import-rdb on files written by redis-server (live)', () => {
  let redis: RedisServer;
  let rc: Redis;
  let rdb: string;

  beforeAll(async () => {
    redis = await startRedis();
    rc = await client(redis.port);
    await fill(rc);
    // Expires between SAVE and the import: skipped, as Redis's loader skips it.
    await rc.set('str:expiring', 'soon', 'PX', 1500);
    expect(await rc.save()).toBe('OK');
    rdb = join(tmp.path, 'redis.rdb');
    await copyFile(join(redis.dir, 'dump.rdb'), rdb);
    await new Promise((r) => setTimeout(r, 1600));
  }, 60_000);

  afterAll(() => {
    rc?.disconnect();
    redis?.child.kill('SIGKILL');
  });

  test('every key of every type and encoding: type, value, encoding, TTL, groups and PELs as redis-server has them', async () => {
    const dir = newDir();
    const r = await runCli(['--import-rdb', rdb, '--dir', dir, ...SMALL]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('RDB version 10, written by Redis 7.0.');
    expect(r.stdout).toContain(
      'Done loading RDB, keys loaded: 24, keys expired: 1, empty keys skipped: 0.',
    );
    expect(r.stdout).toMatch(
      /Imported 24 keys \(string 7, list 4, set 3, zset 3, hash 4, stream 3; db0 22, db3 2\)/,
    );
    const s = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    for (const db of [0, 3]) {
      const sc = await client(s.port, db);
      await rc.select(db);
      const keys = (await rc.keys('*')).sort();
      expect((await sc.keys('*')).sort()).toEqual(keys);
      expect(await sc.dbsize()).toBe(keys.length);
      for (const key of keys) {
        const mine = await snapshot(sc, key).catch((e: Error) => {
          throw new Error(`${key}: ${e.message}`);
        });
        expect(mine, key).toEqual(await snapshot(rc, key));
        const [a, b] = [await sc.pttl(key), await rc.pttl(key)];
        expect(Math.abs(a - b), `${key}: PTTL ${a} vs ${b}`).toBeLessThan(5000);
      }
      sc.disconnect();
    }
    await rc.select(0);
    await s.process.stop();
  }, 40_000);

  test('a byte flipped or the file cut short: refused with the offset, nothing imported', async () => {
    const bytes = await readFile(rdb);
    const cases: Array<[string, Buffer]> = [
      ['cut', bytes.subarray(0, Math.floor(bytes.length * 0.6))],
      ['flipped', Buffer.from(bytes)],
      ['type', Buffer.from(bytes)],
    ];
    // A byte in the middle of a value: it still decodes, so the trailer's CRC-64 catches it.
    cases[1]![1][Math.floor(bytes.length / 2)]! ^= 0x01;
    // The first key's type byte made a module type (RDB_TYPE_MODULE_2).
    const first = bytes.indexOf(Buffer.from('str:'));
    cases[2]![1][first - 2] = 7;
    for (const [name, content] of cases) {
      const file = await writeTemp(`live-${name}.rdb`, content);
      const dir = newDir();
      const r = await runCli(['--import-rdb', file, '--dir', dir, ...SMALL]);
      expect(r.code, name).toBe(1);
      expect(r.stdout, name).toMatch(/# Import failed: .*at byte offset \d+\)/);
      expect(entries(dir), name).toBeNull();
    }
  });
});

// ---- function libraries (RDB opcode FUNCTION2) -----------------------------------

/** A FUNCTION2 record: the opcode, then the library's code as an RDB string. */
function functionRecord(code: string): Buffer {
  const bytes = Buffer.from(code);
  const len = Buffer.alloc(5);
  len[0] = 0x80;
  len.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([Buffer.from([245]), len, bytes]);
}

describe('--import-rdb of function libraries on files built here', () => {
  test('a library without a name line: refused with the offset, nothing imported', async () => {
    const file = await writeTemp(
      'fn-unnamed.rdb',
      handBuiltRdb(
        functionRecord("redis.register_function('f', function() return 1 end)"),
        dbRecords(0, [['a', '1']]),
      ),
    );
    const dir = newDir();
    const r = await runCli(['--import-rdb', file, '--dir', dir, ...SMALL]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      '# Import failed: function library 1 of the file: Missing library metadata (at byte offset 9)',
    );
    expect(entries(dir)).toBeNull();
  });

  test('a library that does not compile: imported, then the server refuses to start, naming it', async () => {
    const file = await writeTemp(
      'fn-broken.rdb',
      handBuiltRdb(
        functionRecord('#!lua name=broken\nthis is not lua'),
        dbRecords(0, [['a', '1']]),
      ),
    );
    const dir = newDir();
    const r = await runCli(['--import-rdb', file, '--dir', dir, ...SMALL]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Imported 1 function library (broken)');
    const start = await runCli(['--port', '0', '--dir', dir, ...SMALL]);
    expect(start.code).toBe(1);
    expect(start.stdout + start.stderr).toContain(
      "the saved function library '#!lua name=broken' cannot be loaded: Error compiling function",
    );
  });

  test('a merged import adds the libraries to the ones the directory has, replacing one of the same name', async () => {
    const first = await writeTemp(
      'fn-first.rdb',
      handBuiltRdb(
        functionRecord(
          "#!lua name=keep\nredis.register_function('kept', function() return 'k' end)",
        ),
        functionRecord(
          "#!lua name=lib\nredis.register_function('old', function() return 'old' end)",
        ),
        dbRecords(0, [['a', '1']]),
      ),
    );
    const second = await writeTemp(
      'fn-second.rdb',
      handBuiltRdb(
        functionRecord(
          "#!lua name=lib\nredis.register_function('new', function() return 'new' end)",
        ),
        dbRecords(0, [['b', '2']]),
      ),
    );
    const dir = newDir();
    expect((await runCli(['--import-rdb', first, '--dir', dir, ...SMALL])).code).toBe(0);
    const merged = await runCli([
      '--import-rdb',
      second,
      '--import-merge',
      'yes',
      '--dir',
      dir,
      ...SMALL,
    ]);
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    const t = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    const c = await client(t.port);
    expect(await c.call('fcall', 'kept', '0')).toBe('k');
    expect(await c.call('fcall', 'new', '0')).toBe('new');
    await expect(c.call('fcall', 'old', '0')).rejects.toThrow('ERR Function not found');
    expect(await c.mget('a', 'b')).toEqual(['1', '2']);
    c.disconnect();
    await t.process.stop();
  });
});

describe.skipIf(!hasRedis)(
  '--import-rdb of function libraries written by redis-server (live)',
  () => {
    test('after the import FCALL works and FUNCTION LIST WITHCODE is what redis-server lists', async () => {
      const redis = await startRedis();
      const rc = await client(redis.port);
      try {
        await rc.call(
          'function',
          'load',
          [
            '#!lua name=mylib',
            "redis.register_function('echo_key', function(keys, args) return redis.call('GET', keys[1]) end)",
            'redis.register_function{function_name="ro_count", callback=function(keys, args) return #args end,',
            "  flags={'no-writes', 'allow-stale'}, description='counts its arguments'}",
          ].join('\n'),
        );
        await rc.call(
          'function',
          'load',
          "#!lua name=other\nredis.register_function('incr_by', function(keys, args) return redis.call('INCRBY', keys[1], args[1]) end)",
        );
        await rc.set('k', 'v');
        await rc.set('n', '5');
        expect(await rc.save()).toBe('OK');
        const rdb = join(tmp.path, 'redis-functions.rdb');
        await copyFile(join(redis.dir, 'dump.rdb'), rdb);

        const t = await importServing(rdb);
        const c = await client(t.port);
        // Redis saves them in its dictionary's order.
        expect(t.process.stdout).toMatch(
          /Imported 2 function libraries \((mylib, other|other, mylib)\)/,
        );
        expect(await c.call('fcall', 'echo_key', '1', 'k')).toBe('v');
        expect(await c.call('fcall_ro', 'ro_count', '0', 'a', 'b', 'c')).toBe(3);
        expect(await c.call('fcall', 'incr_by', '1', 'n', '4')).toBe(9);
        const list = (r: Redis) => r.call('function', 'list', 'withcode');
        // Redis lists libraries and their functions in its dictionaries' (seeded) order: sorted by name.
        const named = (xs: unknown[][]) =>
          xs.slice().sort((a, b) => String(a[1]).localeCompare(String(b[1])));
        const byName = (l: unknown) =>
          named(l as unknown[][]).map((lib) =>
            lib.map((v, i) => (lib[i - 1] === 'functions' ? named(v as unknown[][]) : v)),
          );
        expect(byName(await list(c))).toEqual(byName(await list(rc)));
        c.disconnect();
        await t.process.stop();
      } finally {
        rc.disconnect();
        redis.child.kill('SIGKILL');
      }
    }, 40_000);
  },
);
