import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RespServer } from '../../src/server/resp-server.js';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
import { SMALL_STORE } from '../support/test-server.js';
import { RequestConnection } from './request-connection.js';

/**
 * Security: loopback by default, passwords compared in constant time (see
 * auth-compare.test.ts), and no command that makes the server read or write
 * a file outside its data directory. Replies are Redis 7's, checked against
 * redis-server when it is installed.
 */

const redis = hasRedisServer();

/** Every file and directory under `dir`, relative to it. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map((e) => relative(dir, join(dir, e))).sort();
}

/** Commands that name paths, databases or files; each with Redis 7's reply. */
const PATH_COMMANDS: [string[], string][] = [
  [
    ['CONFIG', 'SET', 'dir', '/tmp'],
    "-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config\r\n",
  ],
  [
    ['CONFIG', 'SET', 'DIR', '..'],
    "-ERR CONFIG SET failed (possibly related to argument 'DIR') - can't set protected config\r\n",
  ],
  [
    ['CONFIG', 'SET', 'dbfilename', '../../outside.rdb'],
    "-ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config\r\n",
  ],
  [
    ['CONFIG', 'SET', 'appendfilename', '../x.aof'],
    "-ERR CONFIG SET failed (possibly related to argument 'appendfilename') - can't set immutable config\r\n",
  ],
  [
    ['CONFIG', 'SET', 'appenddirname', '/tmp'],
    "-ERR CONFIG SET failed (possibly related to argument 'appenddirname') - can't set immutable config\r\n",
  ],
  [
    ['CONFIG', 'SET', 'logfile', '/tmp/strata.log'],
    "-ERR CONFIG SET failed (possibly related to argument 'logfile') - can't set immutable config\r\n",
  ],
  [
    ['CONFIG', 'SET', 'pidfile', '/tmp/strata.pid'],
    "-ERR CONFIG SET failed (possibly related to argument 'pidfile') - can't set immutable config\r\n",
  ],
  [
    ['CONFIG', 'SET', 'maxclients', '50', 'dir', '/tmp'],
    "-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config\r\n",
  ],
  [['SELECT', '../1'], '-ERR value is not an integer or out of range\r\n'],
  [['SELECT', '1/..'], '-ERR value is not an integer or out of range\r\n'],
  [['SELECT', ' 1'], '-ERR value is not an integer or out of range\r\n'],
  [['SELECT', '-1'], '-ERR DB index is out of range\r\n'],
  [['SELECT', '16'], '-ERR DB index is out of range\r\n'],
  [['MOVE', 'k', '../2'], '-ERR value is not an integer or out of range\r\n'],
  [['COPY', 'k', 'k2', 'DB', '/1'], '-ERR value is not an integer or out of range\r\n'],
  [['SET', '../../outside.txt', 'pwned'], '+OK\r\n'],
  [['SET', '/etc/passwd', 'x'], '+OK\r\n'],
  [['GET', '../../outside.txt'], '$5\r\npwned\r\n'],
];

describe('no command reaches a file outside the data directory', () => {
  let root: string;
  let server: RespServer;
  let port: number;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'strata-security-'));
    await writeFile(join(root, 'outside.txt'), 'untouched');
    server = new RespServer({
      databases: { dir: join(root, 'data'), store: { ...SMALL_STORE, checkpointOnClose: false } },
    });
    port = (await server.listen(0)).port;
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  test('paths and database names are refused in Redis words; keys are only keys', async () => {
    const c = await RequestConnection.open(port);
    try {
      for (const [argv, reply] of PATH_COMMANDS) {
        expect((await c.call(argv)).toString('latin1'), argv.join(' ')).toBe(reply);
      }
      // Whatever else a client can run that writes, saves or drops files.
      for (const argv of [
        ['SAVE'],
        ['BGSAVE'],
        ['SELECT', '15'],
        ['SET', 'a', 'b'],
        ['FLUSHALL'],
        ['SAVE'],
      ]) {
        expect((await c.call(argv)).toString('latin1')).toMatch(/^\+/);
      }
      // A BGSAVE checkpoint finishing after the reply: wait for it to land.
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      c.close();
    }
    expect(await readFile(join(root, 'outside.txt'), 'utf8')).toBe('untouched');
    // Outside the data directory: only what was there before.
    const all = await tree(root);
    expect(
      all.filter((p) => p !== 'outside.txt' && p !== 'data' && !p.startsWith('data/')),
    ).toEqual([]);
    // Inside it: one directory per database used, named by its index.
    const top = (await readdir(join(root, 'data'))).sort();
    expect(top.every((d) => /^(?:[0-9]|1[0-5])$/.test(d))).toBe(true);
    expect(top).toContain('15');
  });

  test('the server listens on loopback unless told otherwise', () => {
    expect(server.address().host).toBe('127.0.0.1');
  });
});

describe('requirepass', () => {
  let root: string;
  let server: RespServer;
  let port: number;
  // Not ASCII, with a NUL: the option's string is the password's UTF-8 bytes.
  const password = Buffer.from('s\u00e9\u0000cr\u00e8t');
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'strata-security-'));
    server = new RespServer({
      databases: { dir: root, store: { ...SMALL_STORE, checkpointOnClose: false } },
      requirepass: password.toString('utf8'),
    });
    port = (await server.listen(0)).port;
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  test('only the exact password opens; near misses of every length are refused', async () => {
    const c = await RequestConnection.open(port);
    try {
      const wrong = '-WRONGPASS invalid username-password pair or user is disabled.\r\n';
      const misses = [
        Buffer.alloc(0),
        password.subarray(0, 1),
        password.subarray(0, password.length - 1),
        Buffer.concat([password, Buffer.from('x')]),
        Buffer.from(password.toString('latin1').toUpperCase(), 'latin1'),
        Buffer.alloc(1000, 0x73),
        Buffer.from(password.toString('utf8'), 'latin1'),
      ];
      for (const miss of misses) {
        expect((await c.call(['AUTH', miss])).toString()).toBe(wrong);
        expect((await c.call(['GET', 'k'])).toString()).toBe(
          '-NOAUTH Authentication required.\r\n',
        );
      }
      expect((await c.call(['AUTH', 'nobody', password])).toString()).toBe(wrong);
      expect((await c.call(['HELLO', '2', 'AUTH', 'default', misses[2]!])).toString()).toBe(wrong);
      expect((await c.call(['AUTH', password])).toString()).toBe('+OK\r\n');
      expect((await c.call(['GET', 'k'])).toString()).toBe('$-1\r\n');
      // A password set by CONFIG SET is the bytes it was given.
      const next = Buffer.from('n\u00e4chstes');
      expect((await c.call(['CONFIG', 'SET', 'requirepass', next])).toString()).toBe('+OK\r\n');
      const d = await RequestConnection.open(port);
      expect((await d.call(['AUTH', password])).toString()).toBe(wrong);
      expect((await d.call(['AUTH', next])).toString()).toBe('+OK\r\n');
      d.close();
      await c.call(['CONFIG', 'SET', 'requirepass', password]);
    } finally {
      c.close();
    }
  });
});

describe.skipIf(!redis)('redis-server 7 answers the same', () => {
  let r: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    r = await startRedis();
  });
  afterAll(() => r?.stop());

  test('paths and database names', async () => {
    const c = await RequestConnection.open(r.port);
    try {
      for (const [argv, reply] of PATH_COMMANDS) {
        expect((await c.call(argv)).toString('latin1'), argv.join(' ')).toBe(reply);
      }
    } finally {
      c.close();
    }
  });
});
