import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { StrataProcess, tempDir } from '../test/strata-process.js';

// strata-server as a real process (built from the sources by
// test/global-setup.ts) on a free port and a temporary --dir, with stores
// small enough (4 pages of 16 KiB) that most keys live on disk.

const SMALL = ['--memory', '64kb', '--page-size', '16kb', '--index-size', '1kb'];

let tmp: Awaited<ReturnType<typeof tempDir>>;
let dirs = 0;
beforeAll(async () => {
  tmp = await tempDir('strata-server-test-');
});
afterEach(() => {
  StrataProcess.killAll();
});
afterAll(async () => {
  await tmp.remove();
});

const newDir = () => join(tmp.path, `data-${++dirs}`);

async function connect(port: number, options: RedisOptions = {}): Promise<Redis> {
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    ...options,
  });
  await redis.connect();
  return redis;
}

const value = (i: number) => `value-${i}-`.padEnd(100, 'x');

describe('shutdown and restart', () => {
  test('SIGTERM checkpoints every open database; a restart has every key back', async () => {
    const dir = newDir();
    const args = ['--port', '0', '--dir', dir, ...SMALL];
    const a = await StrataProcess.start(args);
    const r = await connect(a.port);
    const N = 5000;
    const pipe = r.pipeline();
    for (let i = 0; i < N; i++) pipe.set(`key:${i}`, value(i));
    pipe.set('with-ttl', 'x', 'EX', 1000);
    pipe.select(2).set('in-db2', 'yes').select(0);
    await pipe.exec();
    // Most of the log is below head: on disk only.
    const storage = await r.info('storage');
    const m = /db0:begin=\d+,head=(\d+),read_only=\d+,tail=(\d+)/.exec(storage)!;
    expect(Number(m[1])).toBeGreaterThan(Number(m[2]) * 0.9);
    r.disconnect();

    expect(await a.process.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const out = a.process.stdout;
    expect(out).toMatch(/\d+:signal-handler \(\d+\) Received SIGTERM scheduling shutdown\.\.\.\n/);
    expect(out).toContain('* User requested shutdown...');
    expect(out).toContain('checkpointing 2 open databases before exiting.');
    expect(out).toMatch(
      /\* DB 0 saved on disk: checkpoint \d+, log [\d.]+[kmg]?b, in [\d.]+ seconds/,
    );
    expect(out).toMatch(/\* DB 2 saved on disk: checkpoint \d+/);
    expect(out).toMatch(/# Strata is now ready to exit, bye bye\.\.\.\n$/);

    const b = await StrataProcess.start(args);
    expect(b.process.stdout).toMatch(
      /\* DB 0 loaded from disk: checkpoint \d+, \d+ records replayed .* in [\d.]+ seconds/,
    );
    const r2 = await connect(b.port);
    const keys = Array.from({ length: N }, (_, i) => `key:${i}`);
    expect(await r2.mget(keys)).toEqual(keys.map((_, i) => value(i)));
    expect(await r2.ttl('with-ttl')).toBeGreaterThan(990);
    await r2.select(2);
    expect(await r2.get('in-db2')).toBe('yes');
    r2.disconnect();
    expect(await b.process.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(b.process.stdout).toContain('Received SIGINT scheduling shutdown...');
  });

  test('SHUTDOWN from a client stops the server cleanly; a restart has the keys back', async () => {
    const dir = newDir();
    const args = ['--port', '0', '--dir', dir, ...SMALL];
    const a = await StrataProcess.start(args);
    const r = await connect(a.port);
    const pipe = r.pipeline();
    for (let i = 0; i < 2000; i++) pipe.set(`key:${i}`, value(i));
    await pipe.exec();
    // The connection closes without a reply, as Redis's does.
    await r.call('SHUTDOWN').catch(() => undefined);
    r.disconnect();
    expect(await a.process.exited).toEqual({ code: 0, signal: null });
    expect(a.process.stdout).toContain('* User requested shutdown...');
    expect(a.process.stdout).toMatch(/# Strata is now ready to exit, bye bye\.\.\.\n$/);

    const b = await StrataProcess.start(args);
    const r2 = await connect(b.port);
    expect(await r2.dbsize()).toBe(2000);
    expect(await r2.get('key:1234')).toBe(value(1234));
    r2.disconnect();
    expect(await b.process.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  test('a command in flight at SIGTERM finishes and gets its reply before the close', async () => {
    const dir = newDir();
    const args = ['--port', '0', '--dir', dir, '--log-level', 'verbose', ...SMALL];
    const a = await StrataProcess.start(args);
    const writer = await connect(a.port);
    const watcher = await connect(a.port);
    // An MSET far larger than memory waits on page flushes for a while.
    const N = 5000;
    const pairs: string[] = [];
    for (let i = 0; i < N; i++) pairs.push(`m:${i}`, value(i));
    const reply = writer.mset(...pairs).catch((e: Error) => e);
    while ((await watcher.exists('m:0')) === 0) await new Promise((r) => setTimeout(r, 2));
    a.process.child.kill('SIGTERM');
    expect(await reply).toBe('OK');
    expect(await a.process.exited).toEqual({ code: 0, signal: null });
    expect(a.process.stdout).toMatch(/- Waiting for 1 commands in flight\n/);
    writer.disconnect();
    watcher.disconnect();

    const b = await StrataProcess.start(args);
    const r = await connect(b.port);
    const got = await r.mget(Array.from({ length: N }, (_, i) => `m:${i}`));
    expect(got.filter((v) => v !== null)).toHaveLength(N);
    r.disconnect();
    await b.process.stop();
  });

  test('a second signal during shutdown exits at once', async () => {
    const a = await StrataProcess.start(['--port', '0', '--dir', newDir(), ...SMALL]);
    a.process.child.kill('SIGTERM');
    a.process.child.kill('SIGINT');
    expect(await a.process.exited).toEqual({ code: 1, signal: null });
    expect(a.process.stdout).toContain('# You insist... exiting now.\n');
    expect(a.process.stdout).not.toContain('ready to exit');
  });

  test('--checkpoint-interval checkpoints what changed, and a crash after it loses nothing', async () => {
    const dir = newDir();
    const args = ['--port', '0', '--dir', dir, '--checkpoint-interval', '1', ...SMALL];
    const a = await StrataProcess.start(args);
    const r = await connect(a.port);
    const pipe = r.pipeline();
    for (let i = 0; i < 2000; i++) pipe.set(`c:${i}`, value(i));
    await pipe.exec();
    await a.process.waitFor(/\* 2000 changes in \d+ seconds\. Checkpointing\.\.\.\n/);
    await a.process.waitFor(/\* DB 0 saved on disk: checkpoint 1, /);
    // Nothing changed since: no more checkpoints.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(a.process.stdout).not.toContain('checkpoint 2');
    r.disconnect();
    // A crash: no shutdown checkpoint.
    expect(await a.process.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    const b = await StrataProcess.start(args);
    expect(b.process.stdout).toMatch(/DB 0 loaded from disk: checkpoint 1, /);
    const r2 = await connect(b.port);
    const keys = Array.from({ length: 2000 }, (_, i) => `c:${i}`);
    expect(await r2.mget(keys)).toEqual(keys.map((_, i) => value(i)));
    r2.disconnect();
    await b.process.stop();
  });
});

describe('configuration', () => {
  test('a config file, with command-line flags overriding it', async () => {
    const dir = newDir();
    const conf = join(tmp.path, 'strata.conf');
    await writeFile(
      conf,
      [
        '# strata-server test config',
        'port 1',
        'memory 128kb',
        'page-size 16kb',
        'index-size 1kb',
        '',
        'databases 4',
        'requirepass "two words"',
        'maxclients 7',
        'loglevel verbose',
        `dir "${join(tmp.path, 'not-this-one')}"`,
      ].join('\n'),
    );
    const a = await StrataProcess.start([conf, '--port', '0', '--maxclients', '9', '--dir', dir]);
    const out = a.process.stdout;
    expect(out).toContain(`* Configuration loaded from ${conf}\n`);
    expect(out).toMatch(
      new RegExp(
        `\\* Config: port=0 bind=127\\.0\\.0\\.1 dir=${dir} memory=128kb page-size=16kb ` +
          'segment-size=1gb index-size=1kb mutable-fraction=0\\.9 databases=4 requirepass=\\(set\\) ' +
          'maxclients=9 save="300 1" log-level=verbose appendonly=no appendfsync=everysec ' +
          'appendfilename=appendonly\\.aof appenddirname=appendonlydir aof-missing-checkpoint=refuse compaction-threshold=0 commit-interval=1000 ' +
          'notify-keyspace-events="" protected-mode=yes daemonize=no pidfile="" logfile="" ' +
          'import-rdb="" import-merge=no import-serve=no\n',
      ),
    );
    expect(out).toContain(`* DB 0 created in ${join(dir, '0')}\n`);
    expect(out).toMatch(/- DB 0: log .* on disk, 0 index entries, 128kb of log memory\n/);
    expect(out).not.toContain('two words');

    const anonymous = await connect(a.port, { enableReadyCheck: false });
    await expect(anonymous.get('x')).rejects.toThrow('NOAUTH Authentication required.');
    anonymous.disconnect();
    const r = await connect(a.port, { password: 'two words' });
    expect(await r.ping()).toBe('PONG');
    expect(await r.config('GET', 'maxclients')).toEqual(['maxclients', '9']);
    expect(await r.config('GET', 'notify-keyspace-events')).toEqual(['notify-keyspace-events', '']);
    expect(await r.select(3)).toBe('OK');
    await expect(r.select(4)).rejects.toThrow('ERR DB index is out of range');
    r.disconnect();
    expect((await a.process.stop()).code).toBe(0);
  });

  test('--log-level warning keeps only warnings', async () => {
    // No ready line to read a port from: a Unix socket of its own (a free
    // TCP port picked first could be taken by another process meanwhile).
    const dir = newDir();
    const path = join(tmp.path, `warning-${dirs}.sock`);
    const p = StrataProcess.spawn([
      '--port',
      '0',
      '--unixsocket',
      path,
      '--dir',
      dir,
      '--log-level',
      'warning',
    ]);
    for (let i = 0; !existsSync(path) && i < 1000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const r = await connect(0, { path });
    expect(await r.set('a', '1')).toBe('OK');
    r.disconnect();
    expect((await p.stop()).code).toBe(0);
    const lines = p.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^\d+:signal-handler \(\d+\) Received SIGTERM scheduling shutdown\.\.\.$/,
      ),
      expect.stringMatching(/^\d+:M .* # Strata is now ready to exit, bye bye\.\.\.$/),
    ]);
  });

  test('a port in use: Redis-style lines, exit 1, and nothing written to --dir', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const dir = newDir();
      const p = StrataProcess.spawn(['--port', String(port), '--dir', dir]);
      expect((await p.exited).code).toBe(1);
      // Not even created: the port is tried before the directory is locked.
      expect(existsSync(dir)).toBe(false);
      expect(p.stdout).toContain(
        `# Warning: Could not create server TCP listening socket 127.0.0.1:${port}: bind: Address already in use\n`,
      );
      expect(p.stdout).toContain(`# Failed listening on port ${port} (tcp), aborting.\n`);
    } finally {
      blocker.close();
    }
  });

  test('one server per --dir: a second one is refused before it opens anything', async () => {
    const dir = newDir();
    const a = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    const r = await connect(a.port);
    await r.set('k', 'v');
    const b = StrataProcess.spawn(['--port', '0', '--dir', dir, ...SMALL]);
    expect((await b.exited).code).toBe(1);
    expect(b.stdout).toContain(
      `# Fatal error during start-up: ${dir} is in use by another strata-server (pid ${a.process.child.pid})`,
    );
    expect(b.stdout).not.toContain('DB 0');
    expect(await r.get('k')).toBe('v');
    r.disconnect();
    expect((await a.process.stop()).code).toBe(0);
    expect(existsSync(join(dir, 'strata-server.pid'))).toBe(false);
    // Left behind by a crash: taken over.
    const c = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    expect(existsSync(join(dir, 'strata-server.pid'))).toBe(true);
    expect(await c.process.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    const d = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    const r2 = await connect(d.port);
    expect(await r2.get('k')).toBe('v');
    r2.disconnect();
    expect((await d.process.stop()).code).toBe(0);
  });

  test('a --dir written with another page size is refused, not misread', async () => {
    const dir = newDir();
    const a = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
    const r = await connect(a.port);
    await r.set('k', 'v');
    r.disconnect();
    await a.process.stop();
    const p = StrataProcess.spawn(['--port', '0', '--dir', dir, '--page-size', '32kb']);
    expect((await p.exited).code).toBe(1);
    expect(p.stdout).toContain(
      `# Failed to open DB 0 in ${join(dir, '0')}: the log was written with pageSize 16384, not 32768`,
    );
  });
});
