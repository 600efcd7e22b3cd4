import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { infoField } from './info-fields.js';
import { dirForFile, StrataProcess } from './strata-process.js';

/**
 * The parameters strata-server acts on, changed by CONFIG SET on a running
 * strata-server (or given at start for the start-up ones), each observed
 * where it acts: the AOF's fsyncs, the log, INFO storage, /proc, the
 * listening sockets.
 */
const tmp = dirForFile('strata-live-config-');

async function client(port: number): Promise<Redis> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
  await c.connect();
  return c;
}

const procFile = (pid: number, name: string) => readFileSync(`/proc/${pid}/${name}`, 'latin1');

describe('CONFIG SET on a running strata-server', () => {
  let server: { process: StrataProcess; port: number };
  let c: Redis;
  beforeAll(async () => {
    const dir = join(tmp.path, 'live');
    server = await StrataProcess.start([
      '--port',
      '0',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'no',
      '--save',
      '',
    ]);
    c = await client(server.port);
  });
  afterAll(async () => {
    c.disconnect();
    await server.process.stop();
  });

  test('appendfsync: always syncs each write before its reply from then on; no stops that', async () => {
    const fsyncs = async () => Number(await infoField(c, 'persistence', 'aof_fsyncs'));
    const writes = 20;
    let before = await fsyncs();
    for (let i = 0; i < writes; i++) await c.set(`no:${i}`, 'v');
    const underNo = (await fsyncs()) - before;
    expect(underNo).toBeLessThan(writes);
    expect(await c.config('SET', 'appendfsync', 'always')).toBe('OK');
    expect(await c.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
    before = await fsyncs();
    for (let i = 0; i < writes; i++) await c.set(`always:${i}`, 'v');
    expect((await fsyncs()) - before).toBeGreaterThanOrEqual(writes);
    expect(await c.config('SET', 'appendfsync', 'no')).toBe('OK');
    before = await fsyncs();
    for (let i = 0; i < writes; i++) await c.set(`no2:${i}`, 'v');
    expect((await fsyncs()) - before).toBeLessThan(writes);
  });

  test('save: the checkpoint rules are replaced live', async () => {
    expect(await c.config('GET', 'save')).toEqual(['save', '']);
    const from = server.process.stdout.length;
    await c.set('save:k', 'v');
    expect(await c.config('SET', 'save', '1 1')).toBe('OK');
    expect(await c.config('GET', 'save')).toEqual(['save', '1 1']);
    await server.process.waitFor(/changes in \d+ seconds\. Checkpointing\.\.\./, 20_000, from);
    await server.process.waitFor(/DB 0 saved on disk: checkpoint/, 20_000, from);
    expect(await c.config('SET', 'save', '')).toBe('OK');
  });

  test('loglevel: verbose lines appear from the change on', async () => {
    const from = server.process.stdout.length;
    await c.select(5);
    await c.set('k', 'v');
    await c.select(0);
    expect(server.process.stdout.slice(from)).not.toMatch(/DB 5: log/);
    expect(await c.config('SET', 'loglevel', 'verbose')).toBe('OK');
    expect(await c.config('GET', 'loglevel')).toEqual(['loglevel', 'verbose']);
    await c.select(6);
    await c.set('k', 'v');
    await c.select(0);
    await server.process.waitFor(/DB 6: log .* of log memory/, 20_000, from);
    expect(await c.config('SET', 'loglevel', 'notice')).toBe('OK');
  });

  test('maxmemory: the databases opened afterwards get that log memory, the open ones too; 0 the default', async () => {
    const memoryOf = async (db: number) => {
      const m = /memory=(\d+)/.exec(await infoField(c, 'storage', `db${db}`));
      return Number(m![1]);
    };
    expect(await memoryOf(0)).toBe(64 * 1024 ** 2);
    expect(await c.config('SET', 'maxmemory', '4mb')).toBe('OK');
    expect(await c.config('GET', 'maxmemory')).toEqual(['maxmemory', '4194304']);
    expect(await infoField(c, 'memory', 'maxmemory')).toBe('4194304');
    await c.select(2);
    await c.set('k', 'v');
    await c.select(0);
    expect(await memoryOf(2)).toBe(4 * 1024 ** 2);
    // The open ones change too (a shrink once the pages past the bound are flushed).
    const deadline = Date.now() + 30_000;
    while ((await memoryOf(0)) !== 4 * 1024 ** 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await memoryOf(0)).toBe(4 * 1024 ** 2);
    // Less than 2 pages is raised to 2 (Redis takes any maxmemory).
    expect(await c.config('SET', 'maxmemory', '1000')).toBe('OK');
    await c.select(3);
    await c.set('k', 'v');
    expect(await memoryOf(3)).toBe(2 * 1024 ** 2);
    expect(await c.config('SET', 'maxmemory', '0')).toBe('OK');
    await c.select(4);
    await c.set('k', 'v');
    await c.select(0);
    expect(await memoryOf(4)).toBe(64 * 1024 ** 2);
  });

  test('oom-score-adj and oom-score-adj-values write /proc/<pid>/oom_score_adj as Redis does', async () => {
    const pid = server.process.child.pid!;
    const score = () => Number(procFile(pid, 'oom_score_adj'));
    const base = score();
    expect(await c.config('SET', 'oom-score-adj-values', '300 400 500')).toBe('OK');
    // Not on: the values alone change nothing.
    expect(score()).toBe(base);
    expect(await c.config('SET', 'oom-score-adj', 'absolute')).toBe('OK');
    expect(score()).toBe(300);
    // Below 0 takes CAP_SYS_RESOURCE: with it the value is clamped to
    // -1000; without it Redis's failure, and nothing changes.
    if (mayLowerOomScore()) {
      expect(await c.config('SET', 'oom-score-adj-values', '-2000 0 0')).toBe('OK');
      expect(score()).toBe(-1000);
    } else {
      await expect(c.config('SET', 'oom-score-adj-values', '-2000 0 0')).rejects.toThrow(
        "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - Failed to set current oom_score_adj. Check server logs.",
      );
      expect(score()).toBe(300);
      expect(await c.config('GET', 'oom-score-adj-values')).toEqual([
        'oom-score-adj-values',
        '300 400 500',
      ]);
      await server.process.waitFor(/Unable to write oom_score_adj: Permission denied/);
    }
    expect(await c.config('SET', 'oom-score-adj-values', '100 0 0')).toBe('OK');
    expect(await c.config('SET', 'oom-score-adj', 'relative')).toBe('OK');
    expect(await c.config('GET', 'oom-score-adj')).toEqual(['oom-score-adj', 'yes']);
    expect(score()).toBe(Math.min(1000, base + 100));
    expect(await c.config('SET', 'oom-score-adj', 'no')).toBe('OK');
    expect(score()).toBe(base);
  });

  test('proc-title-template: the process title follows it', async () => {
    const pid = server.process.child.pid!;
    const title = () => procFile(pid, 'cmdline').replaceAll('\0', ' ').trim();
    // set-proc-title yes (the default): the default template once listening.
    expect(title()).toMatch(new RegExp(`cli\\.js 127\\.0\\.0\\.1:${server.port}$`));
    expect(await c.config('SET', 'proc-title-template', '{title} x{port}y {server-mode}')).toBe(
      'OK',
    );
    expect(title()).toMatch(new RegExp(`cli\\.js x${server.port}y$`));
  });
});

describe('start-up parameters and shutdown-on-sigterm', () => {
  test('tcp-backlog, unixsocket, unixsocketperm; shutdown-on-sigterm nosave closes without checkpoints', async () => {
    const dir = join(tmp.path, 'startup');
    const socket = join(tmp.path, 'strata.sock');
    const args = ['--port', '0', '--dir', dir, '--save', '', '--tcp-backlog', '37'];
    const { process: p, port } = await StrataProcess.start([
      ...args,
      '--unixsocket',
      socket,
      '--unixsocketperm',
      '700',
    ]);
    await p.waitFor(/The server is now ready to accept connections at .*strata\.sock\n/);
    // The listen backlog: ss shows it as a listening socket's Send-Q.
    const ss = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'latin1' });
    expect(ss.trim().split(/\s+/)[2]).toBe(String(Math.min(37, somaxconn())));
    expect(statSync(socket).mode & 0o777).toBe(0o700);
    // redis-cli -s reaches it, and protected mode counts it as local.
    const cli = spawnSync('redis-cli', ['-s', socket, 'SET', 'unix:k', 'v'], {
      encoding: 'latin1',
    });
    expect(cli.stdout.trim()).toBe('OK');
    // CLIENT INFO through it: addr and laddr are the path, flag U, as redis-server's.
    const info = spawnSync('redis-cli', ['-s', socket, 'CLIENT', 'INFO'], { encoding: 'latin1' });
    expect(unixClientFields(info.stdout, socket)).toEqual(
      hasRedisServer()
        ? await redisUnixClientFields()
        : ['addr=<path>:0', 'laddr=<path>:0', 'flags=U'],
    );
    const c = await client(port);
    expect(await c.get('unix:k')).toBe('v');
    expect(await c.config('SET', 'shutdown-on-sigterm', 'nosave now')).toBe('OK');
    expect(await c.config('GET', 'shutdown-on-sigterm')).toEqual([
      'shutdown-on-sigterm',
      'nosave now',
    ]);
    c.disconnect();
    const from = p.stdout.length;
    expect((await p.stop('SIGTERM')).code).toBe(0);
    const log = p.stdout.slice(from);
    expect(log).toMatch(/closing 1 open database before exiting/);
    expect(log).not.toMatch(/saved on disk/);
    expect(log).toMatch(/Removing the unix socket file\./);
    expect(existsSync(socket)).toBe(false);
    // No checkpoint, yet nothing lost: the log was flushed, the start replays it.
    const again = await StrataProcess.start(args);
    const c2 = await client(again.port);
    expect(await c2.get('unix:k')).toBe('v');
    c2.disconnect();
    const from2 = again.process.stdout.length;
    // SIGINT's setting is its own: default, so a checkpoint.
    expect((await again.process.stop('SIGINT')).code).toBe(0);
    expect(again.process.stdout.slice(from2)).toMatch(/DB 0 saved on disk/);
    // SHUTDOWN NOSAVE from a client: no checkpoint either, nothing lost.
    const third = await StrataProcess.start(args);
    const c3 = await client(third.port);
    await c3.set('nosave:k', 'v');
    const from3 = third.process.stdout.length;
    // No reply: the connection closes (as Redis's).
    await c3.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
    expect((await third.process.exited).code).toBe(0);
    expect(third.process.stdout.slice(from3)).not.toMatch(/saved on disk/);
    const fourth = await StrataProcess.start(args);
    const c4 = await client(fourth.port);
    expect(await c4.get('nosave:k')).toBe('v');
    c4.disconnect();
    await fourth.process.stop();
  });
});

/** CLIENT INFO's addr, laddr and flags, the socket's path made `<path>`. */
function unixClientFields(line: string, path: string): string[] {
  return line
    .trim()
    .split(' ')
    .filter((f) => /^(addr|laddr|flags)=/.test(f))
    .map((f) => f.replace(path, '<path>'));
}

const hasRedisServer = () => spawnSync('redis-server', ['--version']).status === 0;

/** The same fields from redis-server 7 listening on a Unix socket only. */
async function redisUnixClientFields(): Promise<string[]> {
  const path = join(tmp.path, 'redis.sock');
  const redis = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', path, '--save', '', '--appendonly', 'no', '--dir', tmp.path],
    { stdio: 'ignore' },
  );
  try {
    const deadline = Date.now() + 10_000;
    while (!existsSync(path) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const out = spawnSync('redis-cli', ['-s', path, 'CLIENT', 'INFO'], { encoding: 'latin1' });
    return unixClientFields(out.stdout, path);
  } finally {
    redis.kill('SIGKILL');
  }
}

/** Whether this machine lets a process lower its oom_score_adj below 0 (a throwaway shell tries). */
function mayLowerOomScore(): boolean {
  return spawnSync('sh', ['-c', 'echo -1 > /proc/$$/oom_score_adj']).status === 0;
}

function somaxconn(): number {
  return Number(readFileSync('/proc/sys/net/core/somaxconn', 'latin1'));
}
