import { mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasRedisServer, startRedis } from '@strata/redis-harness';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { infoField } from './info-fields.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * CONFIG SET appendonly on a running strata-server: turned on, the AOF
 * holds every database from that moment (a kill -9 after it loses no
 * acknowledged write); turned off, the databases are checkpointed and the
 * AOF closed. Redis's replies, compared with redis-server when installed.
 */
let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir('strata-appendonly-live-');
});
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  await tmp.remove();
});

async function client(port: number): Promise<Redis> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
  await c.connect();
  return c;
}

/** Until the switch's rewrite has ended (Redis's tests wait for aof_rewrite_in_progress:0 too). */
async function rewriteEnded(c: Redis): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await infoField(c, 'persistence', 'aof_rewrite_in_progress')) === '0') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the AOF rewrite did not end');
}

async function fill(c: Redis, tag: string, n: number): Promise<void> {
  const p = c.pipeline();
  for (let i = 0; i < n; i++) p.set(`${tag}:${i}`, `v${i}`);
  p.rpush(`${tag}:list`, 'a', 'b', 'c');
  p.hset(`${tag}:hash`, 'f', tag);
  p.select(2);
  p.set(`${tag}:db2`, tag);
  p.select(0);
  await p.exec();
}

async function holds(c: Redis, tag: string, n: number): Promise<void> {
  const got = await c.mget(Array.from({ length: n }, (_, i) => `${tag}:${i}`));
  expect(got, tag).toEqual(Array.from({ length: n }, (_, i) => `v${i}`));
  expect(await c.lrange(`${tag}:list`, 0, -1)).toEqual(['a', 'b', 'c']);
  expect(await c.hget(`${tag}:hash`, 'f')).toBe(tag);
  await c.select(2);
  expect(await c.get(`${tag}:db2`)).toBe(tag);
  await c.select(0);
}

describe('CONFIG SET appendonly', () => {
  test('yes: the writes before it and after it survive kill -9 (no checkpoint after the switch)', async () => {
    const dir = join(tmp.path, 'on');
    // No save rules, no commit points: after the kill only the AOF has the
    // later writes (each synced before its reply: everysec may lose the last second).
    const args = ['--port', '0', '--dir', dir, '--save', '', '--commit-interval', '0'];
    const aof = ['--appendfsync', 'always'];
    const a = await StrataProcess.start([...args, ...aof]);
    const c = await client(a.port);
    await fill(c, 'before', 500);
    expect(await infoField(c, 'persistence', 'aof_enabled')).toBe('0');
    expect(await c.config('SET', 'appendonly', 'yes')).toBe('OK');
    // Redis shows it on at once, its rewrite in progress until the AOF holds the data.
    expect(await c.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await infoField(c, 'persistence', 'aof_enabled')).toBe('1');
    await fill(c, 'during', 100);
    await rewriteEnded(c);
    expect(await infoField(c, 'persistence', 'aof_rewrites')).toBe('1');
    expect(await infoField(c, 'persistence', 'aof_last_bgrewrite_status')).toBe('ok');
    await fill(c, 'after', 500);
    // The AOF's refusals apply from now on (MOVE names another database).
    await expect(c.move('after:0', 3)).rejects.toThrow(
      'ERR MOVE is not supported while appendonly is yes',
    );
    expect(readdirSync(join(dir, 'appendonlydir')).sort()).toEqual([
      'appendonly.aof.1.incr.aof',
      'appendonly.aof.manifest',
    ]);
    expect(a.process.stdout).toMatch(/AOF turned on: 2 databases checkpointed into it in \d+ ms/);
    c.disconnect();
    await a.process.stop('SIGKILL');

    const b = await StrataProcess.start([...args, ...aof, '--appendonly', 'yes']);
    const r = await client(b.port);
    expect(b.process.stdout).toMatch(/DB loaded from append only file: \d+ commands applied/);
    for (const tag of ['before', 'during', 'after'])
      await holds(r, tag, tag === 'during' ? 100 : 500);
    expect(await r.dbsize()).toBe(502 + 102 + 502);
    r.disconnect();
    await b.process.stop();
  });

  test('no: the databases are checkpointed and reopened without the AOF; it stays closed across a restart', async () => {
    const dir = join(tmp.path, 'off');
    const args = ['--port', '0', '--dir', dir, '--save', '', '--appendonly', 'yes'];
    const a = await StrataProcess.start(args);
    const c = await client(a.port);
    await fill(c, 'before', 300);
    expect(await c.config('SET', 'appendonly', 'no')).toBe('OK');
    expect(await c.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    // The switch ran (clients were held for it): the reply to this comes after.
    await holds(c, 'before', 300);
    expect(await infoField(c, 'persistence', 'aof_enabled')).toBe('0');
    expect(await c.info('persistence')).not.toMatch(/aof_current_size/);
    await a.process.waitFor(/AOF turned off: 2 databases checkpointed in \d+ ms/);
    // MOVE works again, as with appendonly no from the start.
    expect(await c.move('before:0', 3)).toBe(1);
    await c.set('after', 'x');
    const size = readdirSync(join(dir, 'appendonlydir')).length;
    expect(await c.save()).toBe('OK');
    c.disconnect();
    await a.process.stop('SIGKILL');

    // The config still says appendonly no: the data comes from the checkpoints.
    const b = await StrataProcess.start(args.slice(0, -2));
    const r = await client(b.port);
    expect(await r.get('before:0')).toBeNull();
    expect(await r.get('before:1')).toBe('v1');
    expect(await r.get('after')).toBe('x');
    await r.select(3);
    expect(await r.get('before:0')).toBe('v0');
    r.disconnect();
    await b.process.stop();
    expect(readdirSync(join(dir, 'appendonlydir')).length).toBe(size);
  });

  test('on, off and on again: the second AOF replaces the first, and a restart with it loses nothing', async () => {
    const dir = join(tmp.path, 'again');
    const args = [
      ...['--port', '0', '--dir', dir, '--save', '', '--commit-interval', '0'],
      ...['--appendfsync', 'always'],
    ];
    const a = await StrataProcess.start([...args, '--appendonly', 'yes']);
    const c = await client(a.port);
    await fill(c, 'one', 200);
    const first = readdirSync(join(dir, 'appendonlydir'));
    expect(await c.config('SET', 'appendonly', 'no')).toBe('OK');
    await fill(c, 'two', 200);
    expect(await c.config('SET', 'appendonly', 'yes')).toBe('OK');
    await fill(c, 'three', 200);
    await rewriteEnded(c);
    await fill(c, 'four', 200);
    // One file of its own and its manifest: none of the first AOF's files is left.
    const second = readdirSync(join(dir, 'appendonlydir')).sort();
    expect(second).toHaveLength(2);
    expect(second[1]).toBe('appendonly.aof.manifest');
    expect(first).not.toContain(second[0]);
    c.disconnect();
    await a.process.stop('SIGKILL');
    const b = await StrataProcess.start([...args, '--appendonly', 'yes']);
    const r = await client(b.port);
    for (const tag of ['one', 'two', 'three', 'four']) await holds(r, tag, 200);
    r.disconnect();
    await b.process.stop();
  });
});

// The same replies from redis-server (7.0.15 on Debian), when it is installed.
const RECORDED = {
  refused:
    "ERR CONFIG SET failed (possibly related to argument 'appendonly') - Unable to turn on AOF. Check server logs.",
  getAfterRefused: ['appendonly', 'no'],
  setYes: 'OK',
  getYes: ['appendonly', 'yes'],
  enabledAfterYes: '1',
  setNo: 'OK',
  enabledAfterNo: '0',
};

/** The same steps on either server, whose files are in `dir`. */
async function replies(c: Redis, dir: string): Promise<typeof RECORDED> {
  // A file where the AOF directory would go: neither can start an AOF.
  writeFileSync(join(dir, 'appendonlydir'), 'not a directory');
  const refused = await c.config('SET', 'appendonly', 'yes').then(
    () => 'accepted',
    (e: Error) => e.message,
  );
  const getAfterRefused = (await c.config('GET', 'appendonly')) as string[];
  unlinkSync(join(dir, 'appendonlydir'));
  const setYes = String(await c.config('SET', 'appendonly', 'yes'));
  const getYes = (await c.config('GET', 'appendonly')) as string[];
  const enabledAfterYes = (await infoField(c, 'persistence', 'aof_enabled')) ?? '';
  await rewriteEnded(c);
  const setNo = String(await c.config('SET', 'appendonly', 'no'));
  const enabledAfterNo = (await infoField(c, 'persistence', 'aof_enabled')) ?? '';
  return { refused, getAfterRefused, setYes, getYes, enabledAfterYes, setNo, enabledAfterNo };
}

test("the replies are redis-server 7.0.15's (recorded; compared live when redis-server is installed)", async () => {
  const dir = join(tmp.path, 'replies');
  const a = await StrataProcess.start(['--port', '0', '--dir', dir]);
  const c = await client(a.port);
  expect(await replies(c, dir)).toEqual(RECORDED);
  expect(a.process.stdout).toMatch(/Can't open the append-only file in .*appendonlydir/);
  c.disconnect();
  await a.process.stop();
  if (!hasRedisServer()) {
    console.log('appendonly-live: redis-server is not installed; the live comparison is skipped');
    return;
  }
  const rdir = join(tmp.path, 'redis');
  mkdirSync(rdir);
  const redis = await startRedis([], { dir: rdir });
  const rc = await client(redis.port);
  try {
    expect(await replies(rc, rdir)).toEqual(RECORDED);
  } finally {
    rc.disconnect();
    redis.stop();
    await redis.exited;
  }
});
