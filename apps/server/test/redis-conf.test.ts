import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect as connectTcp, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { PROTECTED_MODE_REPLY } from '@strata/resp';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_CONFIG } from '../src/config.js';
import { applyConfigText } from '../src/config-file.js';
import { directiveState } from '../src/directives.js';
import { VERSION } from '../src/version.js';
import { BAD_LINES } from './bad-config-lines.js';
import { memoryFiles } from './memory-files.js';
import { freePort, runCli, StrataProcess, tempDir } from './strata-process.js';

// strata-server as a real process reading redis.conf files: Debian's
// (redis-server 7.0.15's package, copied to fixtures/ for machines without
// it), bad lines, quoting, include, bind lists, protected mode, logfile,
// pidfile and daemonize.

const DEBIAN = join(import.meta.dirname, 'fixtures/debian-redis.conf');
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
const hasRedisCli = spawnSync('redis-cli', ['--version']).status === 0;
const hasIpv6Loopback = Object.values(networkInterfaces())
  .flat()
  .some((a) => a?.address === '::1');
/** An address of this machine other machines could use: a client from it is no loopback one. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
/** TEST-NET-3: no interface of this machine has it. */
const NOT_HERE = '203.0.113.77';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let dirs = 0;
/** Daemons are no children of the test: their pids, to kill after each test. */
const daemons: number[] = [];
beforeAll(async () => {
  tmp = await tempDir('strata-redis-conf-');
});
afterEach(() => {
  StrataProcess.killAll();
  for (const pid of daemons.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});
afterAll(async () => {
  await tmp.remove();
});

const newDir = () => join(tmp.path, `d${++dirs}`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function client(port: number, host = '127.0.0.1'): Promise<Redis> {
  const r = new Redis({ port, host, lazyConnect: true, retryStrategy: () => null });
  await r.connect();
  return r;
}

/** What a raw connection gets for PING before the server closes it (or answers). */
function firstReply(port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ port, host }, () => socket.write('PING\r\n'));
    let got = '';
    socket.on('data', (d) => {
      got += d.toString();
      if (got.endsWith('\r\n')) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
}

const fatalFileError = (line: number, text: string, reason: string) =>
  [
    `*** FATAL CONFIG FILE ERROR (Strata ${VERSION}) ***`,
    `Reading the configuration file, at line ${line}`,
    `>>> '${text}'`,
    reason,
    '',
  ].join('\n');

describe("Debian's /etc/redis/redis.conf", () => {
  test('starts strata-server as it is, with the port, dir (and its log and pid file paths) given after it', async () => {
    // The file's logfile and pidfile are in /var/log/redis and /run/redis,
    // the redis user's: with only --port and --dir, redis-server 7.0.15
    // itself stops with "Can't open the log file: Permission denied" for
    // anyone else, and so does strata-server. Everything else is the file's,
    // daemonize yes included.
    const dir = newDir();
    const port = await freePort();
    const log = join(tmp.path, `debian-${dirs}.log`);
    const pidfile = join(tmp.path, `debian-${dirs}.pid`);
    const r = await runCli([
      DEBIAN,
      '--port',
      String(port),
      '--dir',
      dir,
      '--logfile',
      log,
      '--pidfile',
      pidfile,
    ]);
    // daemonize yes: the command returns once the background server is ready.
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    const pid = Number((await readFile(pidfile, 'utf8')).trim());
    daemons.push(pid);
    expect(alive(pid)).toBe(true);

    const redis = await client(port);
    expect(await redis.ping()).toBe('PONG');
    expect(await redis.config('GET', 'bind')).toEqual(['bind', '127.0.0.1 -::1']);
    expect(await redis.config('GET', 'protected-mode')).toEqual(['protected-mode', 'yes']);
    expect(await redis.config('GET', 'daemonize')).toEqual(['daemonize', 'yes']);
    expect(await redis.config('GET', 'pidfile')).toEqual(['pidfile', pidfile]);
    expect(await redis.config('GET', 'dir')).toEqual(['dir', dir]);
    expect(await redis.config('GET', 'tcp-backlog')).toEqual(['tcp-backlog', '511']);
    expect(await redis.config('GET', 'tcp-keepalive')).toEqual(['tcp-keepalive', '300']);
    expect(await redis.config('GET', 'proc-title-template')).toEqual([
      'proc-title-template',
      '{title} {listen-addr} {server-mode}',
    ]);
    expect(await redis.config('GET', 'auto-aof-rewrite-min-size')).toEqual([
      'auto-aof-rewrite-min-size',
      '67108864',
    ]);
    expect(await redis.config('GET', 'client-output-buffer-limit')).toEqual([
      'client-output-buffer-limit',
      'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60',
    ]);
    // A parameter CONFIG SET may change keeps the file's value and changes on.
    expect(await redis.config('SET', 'hz', '20')).toBe('OK');
    expect(await redis.config('GET', 'hz')).toEqual(['hz', '20']);
    // What the server ran with (strata's checkpoints, not Redis's RDB default).
    expect(await redis.config('GET', 'save')).toEqual(['save', '300 1']);
    expect(await redis.set('k', 'v')).toBe('OK');
    if (hasIpv6Loopback) {
      const v6 = await client(port, '::1');
      expect(await v6.get('k')).toBe('v');
      v6.disconnect();
    }
    redis.disconnect();
    if (hasRedisCli) {
      const cli = (...args: string[]) =>
        execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
      expect(cli('PING')).toBe('PONG\n');
      expect(cli('CONFIG', 'GET', 'databases')).toBe('databases\n16\n');
      expect(cli('GET', 'k')).toBe('v\n');
    }

    const out = await readFile(log, 'utf8');
    expect(out).toContain(`* Configuration loaded from ${DEBIAN}\n`);
    expect(out).toMatch(
      /# Not used by strata-server \(accepted, CONFIG GET shows them\): always-show-logo, rdbchecksum, .*, jemalloc-bg-thread\n/,
    );
    // Acted on (a failed checkpoint stops writes), so not in that list.
    expect(out).not.toMatch(/Not used by strata-server.*stop-writes-on-bgsave-error/);
    expect(out.match(/Not used by strata-server/g)).toHaveLength(1);
    expect(out).toContain(
      hasIpv6Loopback
        ? `* Ready to accept connections tcp on 127.0.0.1:${port}, [::1]:${port}\n`
        : `* Ready to accept connections tcp on 127.0.0.1:${port}\n`,
    );

    process.kill(pid, 'SIGTERM');
    await until(() => !alive(pid), 'the daemon to exit');
    expect(existsSync(pidfile)).toBe(false);
    const end = await readFile(log, 'utf8');
    expect(end).toContain('* Removing the pid file.\n');
    expect(end).toMatch(/# Strata is now ready to exit, bye bye\.\.\.\n$/);
  });

  test('a port in use fails before anything is written to a fresh --dir, in the foreground and daemonized', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const lines = [
      `# Warning: Could not create server TCP listening socket 127.0.0.1:${port}: bind: Address already in use\n`,
      `# Failed listening on port ${port} (tcp), aborting.\n`,
    ];
    try {
      const dir = newDir();
      const fg = await runCli([
        DEBIAN,
        '--port',
        String(port),
        '--dir',
        dir,
        '--daemonize',
        'no',
        '--logfile',
        '',
        '--pidfile',
        join(tmp.path, 'fg.pid'),
      ]);
      expect(fg.code).toBe(1);
      for (const l of lines) expect(fg.stdout).toContain(l);
      expect(fg.stdout).not.toContain('Fatal error during start-up');
      expect(existsSync(dir)).toBe(false);
      expect(existsSync(join(tmp.path, 'fg.pid'))).toBe(false);

      const log = join(tmp.path, 'in-use.log');
      const bg = await runCli([
        DEBIAN,
        '--port',
        String(port),
        '--dir',
        dir,
        '--logfile',
        log,
        '--pidfile',
        join(tmp.path, 'bg.pid'),
      ]);
      expect(bg.code).toBe(1);
      expect(bg.stderr).toBe(
        'strata-server: the background server stopped during start-up (exit code 1); its log says why\n',
      );
      const out = await readFile(log, 'utf8');
      for (const l of lines) expect(out).toContain(l);
      expect(existsSync(dir)).toBe(false);
      expect(existsSync(join(tmp.path, 'bg.pid'))).toBe(false);
    } finally {
      blocker.close();
    }
  });
});

describe('bad lines: Redis 7.0.15 wording, with the line number', () => {
  test('a bad line anywhere stops the start before the data directory is touched', async () => {
    const conf = join(tmp.path, 'bad.conf');
    const dir = newDir();
    const text = (await readFile(DEBIAN, 'utf8')).replace(
      'tcp-backlog 511',
      'tcp-backlog 511 1024',
    );
    await writeFile(conf, text);
    const line = text.split('\n').indexOf('tcp-backlog 511 1024') + 1;
    const r = await runCli([conf, '--port', '0', '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      fatalFileError(line, 'tcp-backlog 511 1024', 'wrong number of arguments'),
    );
    expect(existsSync(dir)).toBe(false);
  });

  test.each([
    [
      '  bind 127.0.0.1 ::1 "unclosed  ',
      'bind 127.0.0.1 ::1 "unclosed',
      'Unbalanced quotes in configuration line',
    ],
    [
      'rename-command FLUSHALL ""',
      'rename-command FLUSHALL ""',
      'rename-command is not supported: strata-server keeps every command name',
    ],
    [
      'replicaof 10.0.0.1 6379',
      'replicaof 10.0.0.1 6379',
      'strata-server does not replicate: replicaof must be "no one"',
    ],
  ])('%j', async (written, shown, reason) => {
    const conf = join(tmp.path, `bad-${++dirs}.conf`);
    await writeFile(conf, `# first\nport 7000\n\n${written}\n`);
    const r = await runCli([conf]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(fatalFileError(4, shown, reason));
  });

  test.runIf(hasRedisServer)('every reason is the one redis-server 7.0.15 gives', async () => {
    for (const [line] of BAD_LINES) {
      const conf = join(tmp.path, 'redis-bad.conf');
      await writeFile(conf, `# comment\n\n${line}\n`);
      const redis = spawnSync('redis-server', [conf, '--port', '0'], { encoding: 'utf8' });
      const ours = directiveState({ ...DEFAULT_CONFIG });
      const error = await applyConfigText(ours, `# comment\n\n${line}\n`, memoryFiles({})).then(
        () => null,
        (e: { lineNumber: number; line: string; reason: string }) => e,
      );
      expect(redis.status, line).toBe(1);
      expect(redis.stderr.split('\n').slice(2, 5), line).toEqual([
        `Reading the configuration file, at line ${error?.lineNumber}`,
        `>>> '${error?.line}'`,
        error?.reason,
      ]);
    }
  });
});

describe('quoting and include', () => {
  test('quoted values and escapes reach the server as Redis reads them; include is relative to the working directory', async () => {
    const cwd = join(tmp.path, `cwd-${++dirs}`);
    const dir = join(cwd, 'data');
    await mkdir(join(cwd, 'conf.d'), { recursive: true });
    await writeFile(
      join(cwd, 'main.conf'),
      [
        'requirepass "two words\\x21"',
        "proc-title-template '{title} {port}'",
        'save 3600 1 300 100',
        'save 60 10000',
        'include conf.d/*.conf',
        'include extra.conf',
      ].join('\n'),
    );
    await writeFile(join(cwd, 'conf.d', '10-a.conf'), 'maxclients 7\nhz 5\n');
    await writeFile(join(cwd, 'conf.d', '20-b.conf'), 'hz 6\n');
    await writeFile(join(cwd, 'extra.conf'), 'notify-keyspace-events "Ex"\n');
    const a = await StrataProcess.start(['main.conf', '--port', '0', '--dir', 'data'], { cwd });
    const r = new Redis({
      port: a.port,
      host: '127.0.0.1',
      password: 'two words!',
      lazyConnect: true,
    });
    await r.connect();
    expect(await r.config('GET', 'maxclients')).toEqual(['maxclients', '7']);
    expect(await r.config('GET', 'hz')).toEqual(['hz', '6']);
    expect(await r.config('GET', 'proc-title-template')).toEqual([
      'proc-title-template',
      '{title} {port}',
    ]);
    expect(await r.config('GET', 'save')).toEqual(['save', '3600 1 300 100 60 10000']);
    expect(await r.config('GET', 'notify-keyspace-events')).toEqual([
      'notify-keyspace-events',
      'xE',
    ]);
    expect(await r.config('GET', 'dir')).toEqual(['dir', dir]);
    r.disconnect();
    expect(a.process.stdout).toContain('save="3600 1 300 100 60 10000"');
    expect(readdirSync(cwd).sort()).toEqual(['conf.d', 'data', 'extra.conf', 'main.conf']);
    expect((await a.process.stop()).code).toBe(0);
  });
});

describe('bind lists', () => {
  test('several addresses, one port; a missing optional one (-) is skipped with a warning', async () => {
    const a = await StrataProcess.start([
      '--port',
      '0',
      '--dir',
      newDir(),
      '--bind',
      '127.0.0.1',
      ...(hasIpv6Loopback ? ['::1'] : []),
      `-${NOT_HERE}`,
    ]);
    expect(a.process.stdout).toContain(
      `# Warning: Could not create server TCP listening socket ${NOT_HERE}:0: bind: Cannot assign requested address\n`,
    );
    const r = await client(a.port);
    await r.set('k', 'v');
    if (hasIpv6Loopback) {
      const v6 = await client(a.port, '::1');
      expect(await v6.get('k')).toBe('v');
      v6.disconnect();
    }
    expect(await r.config('GET', 'bind')).toEqual([
      'bind',
      `127.0.0.1${hasIpv6Loopback ? ' ::1' : ''} -${NOT_HERE}`,
    ]);
    r.disconnect();
    expect((await a.process.stop()).code).toBe(0);
  });

  test('* and -::* listen on every IPv4 and IPv6 address side by side', async () => {
    const port = await freePort();
    const a = await StrataProcess.start([
      '--port',
      String(port),
      '--dir',
      newDir(),
      '--bind',
      '*',
      '-::*',
    ]);
    expect(a.process.stdout).toMatch(
      new RegExp(
        `Ready to accept connections tcp on 0\\.0\\.0\\.0:${port}(, \\[::\\]:${port})?\\n`,
      ),
    );
    const r = await client(port);
    expect(await r.ping()).toBe('PONG');
    r.disconnect();
    expect((await a.process.stop()).code).toBe(0);
  });

  test("an address that is not there fails the start unless it is optional; none left is Redis's exit", async () => {
    const dir = newDir();
    const r = await runCli(['--port', '0', '--dir', dir, '--bind', '127.0.0.1', NOT_HERE]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `# Warning: Could not create server TCP listening socket ${NOT_HERE}:0: bind: Cannot assign requested address\n`,
    );
    expect(r.stdout).toContain('# Failed listening on port 0 (tcp), aborting.\n');
    const none = await runCli(['--port', '0', '--dir', dir, '--bind', `-${NOT_HERE}`]);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('# Configured to not listen anywhere, exiting.\n');
    expect(existsSync(dir)).toBe(false);
  });
});

describe.runIf(lanAddress !== undefined)(`protected mode (clients from ${lanAddress})`, () => {
  test('no password: only loopback clients, others get DENIED; a password or protected-mode no opens it', async () => {
    const host = lanAddress!;
    const args = ['--port', '0', '--dir', newDir(), '--bind', '127.0.0.1', host];
    const a = await StrataProcess.start(args);
    expect(await firstReply(a.port, host)).toBe(PROTECTED_MODE_REPLY);
    expect(await firstReply(a.port, '127.0.0.1')).toBe('+PONG\r\n');
    await a.process.stop();

    const open = await StrataProcess.start([...args, '--protected-mode', 'no']);
    expect(await firstReply(open.port, host)).toBe('+PONG\r\n');
    expect(open.process.stdout).toContain(
      `# WARNING: listening on ${host} without requirepass and with protected-mode no`,
    );
    await open.process.stop();

    const password = await StrataProcess.start([...args, '--requirepass', 'pw']);
    expect(await firstReply(password.port, host)).toBe('-NOAUTH Authentication required.\r\n');
    await password.process.stop();
  });

  test('protected-mode in a config file, and CONFIG SET turning it off at run time', async () => {
    const host = lanAddress!;
    const conf = join(tmp.path, 'protected.conf');
    await writeFile(conf, `bind 127.0.0.1 ${host}\nprotected-mode yes\n`);
    const a = await StrataProcess.start([conf, '--port', '0', '--dir', newDir()]);
    expect(await firstReply(a.port, host)).toBe(PROTECTED_MODE_REPLY);
    const r = await client(a.port);
    expect(await r.config('SET', 'protected-mode', 'no')).toBe('OK');
    expect(await firstReply(a.port, host)).toBe('+PONG\r\n');
    r.disconnect();
    await a.process.stop();
  });
});

describe('logfile and pidfile in the foreground', () => {
  test('the log goes to the file, the pid file lives as long as the server', async () => {
    const dir = newDir();
    const log = join(tmp.path, `fg-${dirs}.log`);
    const pidfile = join(tmp.path, `fg-${dirs}.pid`);
    const port = await freePort();
    const p = StrataProcess.spawn([
      '--port',
      String(port),
      '--dir',
      dir,
      '--logfile',
      log,
      '--pidfile',
      pidfile,
      '--syslog-enabled',
      'yes',
      '--syslog-ident',
      'strata',
    ]);
    await until(
      () => existsSync(log) && readFileSync(log, 'utf8').includes('Ready to accept'),
      'ready',
    );
    expect(p.stdout).toBe('');
    expect((await readFile(pidfile, 'utf8')).trim()).toBe(String(p.child.pid));
    const out = await readFile(log, 'utf8');
    expect(out).toContain(
      `# syslog-enabled yes: strata-server does not write to syslog; its log goes to ${log}\n`,
    );
    expect(out).toContain(
      '# Not used by strata-server (accepted, CONFIG GET shows them): syslog-enabled, syslog-ident\n',
    );
    const r = await client(port);
    expect(await r.config('GET', 'syslog-ident')).toEqual(['syslog-ident', 'strata']);
    expect(await r.config('GET', 'logfile')).toEqual(['logfile', log]);
    // Immutable, as in Redis.
    await expect(r.config('SET', 'logfile', '')).rejects.toThrow("can't set immutable config");
    r.disconnect();
    expect((await p.stop()).code).toBe(0);
    expect(existsSync(pidfile)).toBe(false);
  });
});
