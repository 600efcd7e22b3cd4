import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

/** ACL SAVE and ACL LOAD through the aclfile parameter, with Redis's file format and errors. */
describe('aclfile: ACL SAVE and ACL LOAD', () => {
  let t: TestServer;
  let r: Redis;
  let file = '';
  beforeAll(async () => {
    const holder = { file: '' };
    t = await startServer({ configValues: { aclfile: () => holder.file } });
    file = join(t.dir, 'users.acl');
    holder.file = file;
    r = new Redis({ port: t.port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    r.disconnect();
    await t.stop();
  });

  test('SAVE writes ACL LIST’s lines; LOAD reads them back', async () => {
    await r.call('ACL', 'SETUSER', 'u1', 'on', '>pw', '%R~r*', '+get');
    expect(await r.call('ACL', 'SAVE')).toBe('OK');
    const text = await readFile(file, 'utf8');
    expect(text).toBe(`${((await r.call('ACL', 'LIST')) as string[]).join('\n')}\n`);
    await r.call('ACL', 'DELUSER', 'u1');
    expect(await r.call('ACL', 'LOAD')).toBe('OK');
    expect(await r.call('ACL', 'USERS')).toEqual(['default', 'u1']);
    expect(await r.call('ACL', 'DRYRUN', 'u1', 'get', 'r1')).toBe('OK');
  });

  test('a file with errors changes nothing, and says why as Redis does', async () => {
    await writeFile(file, 'user u2 on +nosuch\nnotuser x\nuser u3 on bogus\n');
    await expect(r.call('ACL', 'LOAD')).rejects.toThrow(
      `ERR ${file}:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. ${file}:2 should start with user keyword followed by the username. ${file}:3: Syntax error. WARNING: ACL errors detected, no change to the previously active ACL rules was performed`,
    );
    expect(await r.call('ACL', 'USERS')).toEqual(['default', 'u1']);
  });

  test('a file without the default user gives a fresh one; other users’ clients are closed', async () => {
    await r.call('ACL', 'SETUSER', 'u1', 'on', 'nopass', '+@all', '~*');
    const u = new Redis({
      port: t.port,
      host: '127.0.0.1',
      username: 'u1',
      password: 'x',
      retryStrategy: () => null,
    });
    u.on('error', () => undefined);
    expect(await u.call('ACL', 'WHOAMI')).toBe('u1');
    await writeFile(file, 'user u4 on nopass +@all ~*\n');
    expect(await r.call('ACL', 'LOAD')).toBe('OK');
    expect(await r.call('ACL', 'LIST')).toEqual([
      'user default on nopass ~* &* +@all',
      'user u4 on nopass ~* resetchannels +@all',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(u.status).not.toBe('ready');
    u.disconnect();
  });
});
