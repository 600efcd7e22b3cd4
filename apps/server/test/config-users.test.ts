import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { VERSION } from '../src/version.js';
import { runCli, StrataProcess, tempDir } from './strata-process.js';

// `user` lines in redis.conf, as Redis 7.0 takes them: checked while the
// file is read (an error names the line), loaded at start, refused beside
// an aclfile, and written back by CONFIG REWRITE.
let tmp: Awaited<ReturnType<typeof tempDir>>;
let n = 0;
beforeAll(async () => {
  tmp = await tempDir('strata-config-users-');
});
afterAll(async () => {
  StrataProcess.killAll();
  await tmp.remove();
});

async function conf(lines: readonly string[]): Promise<string> {
  const file = join(tmp.path, `users-${++n}.conf`);
  await writeFile(file, [...lines, ''].join('\n'));
  return file;
}

test('users from user lines log in and are held to their rules; CONFIG REWRITE writes them back', async () => {
  const file = await conf([
    'port 0',
    `dir ${join(tmp.path, 'data-1')}`,
    'user reader on >secret ~app:* +get +ping +acl|whoami',
    '# a comment between',
    'user default on nopass ~* &* +@all',
    'user gone off',
  ]);
  const s = await StrataProcess.start([file]);
  const r = new Redis({ port: s.port, host: '127.0.0.1', username: 'reader', password: 'secret' });
  try {
    expect(await r.call('ACL', 'WHOAMI')).toBe('reader');
    expect(await r.get('app:x')).toBeNull();
    await expect(r.set('app:x', '1')).rejects.toThrow(
      "NOPERM this user has no permissions to run the 'set' command",
    );
    await expect(r.get('other')).rejects.toThrow('NOPERM');
  } finally {
    r.disconnect();
  }
  // Redis's notice for a user the file leaves off.
  expect(s.process.stdout).toContain(
    "The user 'gone' is disabled (there is no 'on' modifier in the user description). Make sure this is not a configuration error.",
  );
  const admin = new Redis({ port: s.port, host: '127.0.0.1' });
  try {
    expect(await admin.call('ACL', 'DELUSER', 'gone')).toBe(1);
    expect(await admin.call('ACL', 'SETUSER', 'writer', 'on', '>pw', '~w:*', '+set')).toBe('OK');
    await expect(admin.call('ACL', 'SAVE')).rejects.toThrow(
      'ERR This Redis instance is not configured to use an ACL file.',
    );
    expect(await admin.call('CONFIG', 'REWRITE')).toBe('OK');
    const users = (await admin.call('ACL', 'LIST')) as string[];
    const text = await readFile(file, 'utf8');
    // The file's user lines take the users in ACL LIST's order; one more is appended.
    const lines = text.split('\n');
    expect(lines.slice(2, 5)).toEqual([users[0], '# a comment between', users[1]]);
    expect(lines[5]).toBe(users[2]);
    expect(lines.filter((l) => l.startsWith('user '))).toEqual(users);
  } finally {
    admin.disconnect();
  }
  expect((await s.process.stop()).code).toBe(0);
  // The rewritten file starts the same users.
  const again = await StrataProcess.start([file]);
  const w = new Redis({ port: again.port, host: '127.0.0.1', username: 'writer', password: 'pw' });
  try {
    expect(await w.set('w:1', 'x')).toBe('OK');
  } finally {
    w.disconnect();
  }
  expect((await again.process.stop()).code).toBe(0);
}, 60_000);

test("a bad rule stops the start with Redis's words and the line", async () => {
  const file = await conf(['port 0', 'user alice on >p ~x +get badone']);
  const r = await runCli([file]);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(
    [
      `*** FATAL CONFIG FILE ERROR (Strata ${VERSION}) ***`,
      'Reading the configuration file, at line 2',
      ">>> 'user alice on >p ~x +get badone'",
      "Error in user declaration '~x': Syntax error",
      '',
    ].join('\n'),
  );
});

test('a user defined twice stops the start', async () => {
  const file = await conf(['port 0', 'user alice on', 'user alice off']);
  const r = await runCli([file]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('Reading the configuration file, at line 3');
  expect(r.stderr).toContain(
    "Error in user declaration 'alice': Duplicate user found. A user can only be defined once in config files",
  );
});

test('an unknown command in a rule passes the file and fails the load, as in Redis', async () => {
  const file = await conf([
    'port 0',
    `dir ${join(tmp.path, 'data-3')}`,
    'user alice on +nosuchcmd',
  ]);
  const r = await runCli([file]);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain(
    "Error loading ACL rule '+nosuchcmd' for the user named 'alice': Unknown command or category name in ACL",
  );
  expect(r.stdout).toContain('Critical error while loading ACLs. Exiting.');
});

test('user lines beside an aclfile stop the start', async () => {
  const acl = join(tmp.path, 'users.acl');
  await writeFile(acl, 'user default on nopass ~* &* +@all\n');
  const file = await conf([
    'port 0',
    `dir ${join(tmp.path, 'data-4')}`,
    `aclfile ${acl}`,
    'user alice on',
  ]);
  const r = await runCli([file]);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain(
    'Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid.',
  );
});

test('a user default line sets what the default user needs: a password here, as requirepass would', async () => {
  const file = await conf([
    'port 0',
    `dir ${join(tmp.path, 'data-5')}`,
    'requirepass ignored',
    'user default on >topsecret ~* &* +@all',
  ]);
  const s = await StrataProcess.start([file]);
  const r = new Redis({
    port: s.port,
    host: '127.0.0.1',
    lazyConnect: true,
    enableReadyCheck: false,
  });
  try {
    await r.connect();
    await expect(r.get('k')).rejects.toThrow('NOAUTH Authentication required.');
    // The user line comes after requirepass and resets the default user, as in Redis.
    await expect(r.call('AUTH', 'ignored')).rejects.toThrow('WRONGPASS');
    expect(await r.call('AUTH', 'topsecret')).toBe('OK');
    expect(await r.get('k')).toBeNull();
  } finally {
    r.disconnect();
  }
  expect((await s.process.stop()).code).toBe(0);
}, 30_000);
