import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startInProcess } from '../test/in-process-server.js';
import { infoFields } from '../test/info-fields.js';
import { until } from '../test/reply-outcome.js';
import { freePort } from '../test/strata-process.js';
import type { ServerConfig } from './config.js';
import type { StrataServer } from './strata-server.js';

let dir: string;
let server: StrataServer | null = null;
const clients: Redis[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-aof-rewrite-'));
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  await server?.shutdown();
  server = null;
  await rm(dir, { recursive: true, force: true });
});

function connect(port: number): Redis {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  clients.push(r);
  return r;
}

async function start(config: Partial<ServerConfig>): Promise<Redis> {
  const started = await startInProcess(dir, { memory: 256 * 1024, save: [], ...config });
  server = started.server;
  return connect(started.port);
}

const persistence = (r: Redis) => infoFields(r, 'persistence');

const idle = async (r: Redis): Promise<boolean> => {
  const f = await persistence(r);
  return f.get('aof_rewrite_in_progress') === '0' && f.get('aof_rewrite_scheduled') === '0';
};

/** Replies as strings (an error as its message), so two servers' can be compared. */
async function replies(r: Redis, commands: string[][]): Promise<string[]> {
  const p = r.pipeline();
  for (const [name, ...args] of commands) p.call(name!, ...args);
  const out = (await p.exec()) ?? [];
  return out.map(([err, v]) => (err === null ? String(v) : `-${err.message}`));
}

/** BGREWRITEAOF's reply sequence, the same on both servers (a fresh, empty one). */
async function rewriteReplies(r: Redis): Promise<string[]> {
  const seen = await replies(r, [['BGREWRITEAOF'], ['BGREWRITEAOF'], ['BGREWRITEAOF', 'x']]);
  await until(() => idle(r));
  const afterOne = await persistence(r);
  const count = Number(afterOne.get('aof_rewrites'));
  seen.push(
    ...(await replies(r, [['MULTI'], ['BGREWRITEAOF'], ['EXEC']])),
    `status:${afterOne.get('aof_last_bgrewrite_status')}`,
  );
  // The one scheduled inside EXEC runs once the transaction is over.
  await until(
    async () => (await idle(r)) && Number((await persistence(r)).get('aof_rewrites')) === count + 1,
  );
  return seen;
}

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

describe('BGREWRITEAOF', () => {
  test.skipIf(!hasRedisServer)('replies as redis-server 7 does, with the AOF on', async () => {
    const redisDir = await mkdtemp(join(tmpdir(), 'strata-aof-rewrite-redis-'));
    const port = await freePort();
    let redis: ChildProcess | null = null;
    try {
      redis = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', redisDir, '--save', ''],
        { stdio: 'ignore' },
      );
      await until(() =>
        spawnSync('redis-cli', ['-p', String(port), 'PING']).stdout.includes('PONG'),
      );
      // appendonly switched on live: Redis writes its first base file with a rewrite of its own.
      const rr = connect(port);
      const fromRedis = await replies(rr, [['CONFIG', 'SET', 'appendonly', 'yes']]);
      await until(() => idle(rr));
      const redisSeen = await rewriteReplies(rr).catch((e: unknown) => [String(e)]);

      const r = await start({ appendonly: true, appendfsync: 'always' });
      const strataSeen = await rewriteReplies(r);
      expect(fromRedis).toEqual(['OK']);
      expect(strataSeen).toEqual(redisSeen);
      expect(strataSeen.slice(0, 3)).toEqual([
        'Background append only file rewriting started',
        '-ERR Background append only file rewriting already in progress',
        "-ERR wrong number of arguments for 'bgrewriteaof' command",
      ]);
    } finally {
      redis?.kill('SIGKILL');
      await rm(redisDir, { recursive: true, force: true });
    }
  });

  test('INFO persistence tells the rewrite: in progress, count, status, time, base size', async () => {
    const r = await start({ appendonly: true, appendfsync: 'always' });
    const f0 = await persistence(r);
    expect(f0.get('aof_rewrites')).toBe('0');
    expect(f0.get('aof_last_rewrite_time_sec')).toBe('-1');
    for (let i = 0; i < 200; i++) await r.set(`k${i}`, 'v'.repeat(200));
    const grown = Number((await persistence(r)).get('aof_current_size'));
    expect(grown).toBeGreaterThan(200 * 200);
    expect(await r.bgrewriteaof()).toBe('Background append only file rewriting started');
    expect((await persistence(r)).get('aof_rewrite_in_progress')).toBe('1');
    await until(() => idle(r));
    const f1 = await persistence(r);
    expect(f1.get('aof_rewrites')).toBe('1');
    expect(f1.get('aof_last_bgrewrite_status')).toBe('ok');
    expect(Number(f1.get('aof_last_rewrite_time_sec'))).toBeGreaterThanOrEqual(0);
    expect(f1.get('aof_current_rewrite_time_sec')).toBe('-1');
    // The commands before the checkpoint are gone from the file: what is left is small.
    const size = Number(f1.get('aof_current_size'));
    expect(size).toBeLessThan(grown / 4);
    expect(f1.get('aof_base_size')).toBe(String(size));
    // And the data is all there.
    expect(await r.get('k199')).toBe('v'.repeat(200));
  });

  test('with the AOF off it checkpoints every database, as Redis rewrites without appendonly', async () => {
    const r = await start({ appendonly: false });
    await r.set('a', '1');
    expect((await persistence(r)).get('rdb_changes_since_last_save')).not.toBe('0');
    expect(await r.bgrewriteaof()).toBe('Background append only file rewriting started');
    await until(() => idle(r));
    const f = await persistence(r);
    expect(f.get('aof_enabled')).toBe('0');
    expect(f.get('aof_rewrites')).toBe('1');
    expect(f.get('rdb_changes_since_last_save')).toBe('0');
  });

  test('scheduled while a checkpoint runs, started once it is over', async () => {
    const r = await start({ appendonly: true, appendfsync: 'always' });
    for (let i = 0; i < 50; i++) await r.set(`k${i}`, 'v');
    // SAVE and BGREWRITEAOF from two connections: the rewrite asked while SAVE's checkpoint runs.
    const other = connect((r.options.port as number) ?? 0);
    let reply = '';
    await until(async () => {
      const save = r.save();
      await new Promise((resolve) => setImmediate(resolve));
      reply = await other.bgrewriteaof();
      await save;
      if (reply === 'Background append only file rewriting started') await until(() => idle(r));
      return reply === 'Background append only file rewriting scheduled';
    });
    await until(() => idle(r));
    expect((await persistence(r)).get('aof_rewrites')).not.toBe('0');
  });

  test('auto-aof-rewrite-*: an overwrite-heavy load keeps the AOF bounded', async () => {
    const r = await start({ appendonly: true, appendfsync: 'no' });
    const minSize = 64 * 1024;
    expect(await r.config('SET', 'auto-aof-rewrite-min-size', '64kb')).toBe('OK');
    expect(await r.config('SET', 'auto-aof-rewrite-percentage', '100')).toBe('OK');
    expect(await r.config('GET', 'auto-aof-rewrite-*')).toEqual(
      expect.arrayContaining(['auto-aof-rewrite-min-size', String(minSize)]),
    );
    const value = 'x'.repeat(200);
    const round = 100; // ~25 KiB of AOF
    let written = 0;
    let largest = 0;
    for (let n = 0; n < 60; n++) {
      const p = r.pipeline();
      for (let i = 0; i < round; i++) p.set(`key${i % 50}`, `${n}:${value}`);
      await p.exec();
      written += round * 240;
      // A rewrite that is due starts within a tick: wait until none is due or running.
      await until(async () => {
        const f = await persistence(r);
        const size = Number(f.get('aof_current_size'));
        const base = Math.max(1, Number(f.get('aof_base_size')));
        const due = size > minSize && size >= 2 * base;
        return !due && f.get('aof_rewrite_in_progress') === '0';
      });
      largest = Math.max(largest, Number((await persistence(r)).get('aof_current_size')));
    }
    const f = await persistence(r);
    expect(Number(f.get('aof_rewrites'))).toBeGreaterThan(3);
    // Over 1 MiB written, never more than the trigger plus one round in the file.
    expect(written).toBeGreaterThan(1 << 20);
    expect(largest).toBeLessThan(minSize + round * 300);
    let onDisk = 0;
    const aofDir = join(dir, 'appendonlydir');
    for (const name of await readdir(aofDir)) onDisk += (await stat(join(aofDir, name))).size;
    // The files hold that plus their preallocated zeros (1 MiB ahead at most).
    expect(onDisk).toBeLessThan(largest + (2 << 20));
    expect(await r.get('key7')).toBe(`59:${value}`);
  });
});
