import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * Real clients authenticating as an ACL user (ioredis's username option,
 * node-redis's) are served what the user may run and refused the rest
 * with Redis's NOPERM, which they surface as an error of their own.
 */
describe('ACL users with ioredis and node-redis', () => {
  let t: TestServer;
  let admin: Redis;
  beforeAll(async () => {
    t = await startServer();
    admin = new Redis({ port: t.port, host: '127.0.0.1' });
    await admin.call(
      'ACL',
      'SETUSER',
      'app',
      'on',
      '>s3cret',
      '~app:*',
      '+@read',
      '+@connection',
      '+set',
      '+acl|whoami',
    );
  });
  afterAll(async () => {
    admin.disconnect();
    await t.stop();
  });

  test('ioredis: AUTH user pass, a read allowed, a write outside its keys and FLUSHALL refused', async () => {
    const r = new Redis({ port: t.port, host: '127.0.0.1', username: 'app', password: 's3cret' });
    try {
      expect(await r.call('ACL', 'WHOAMI')).toBe('app');
      expect(await r.set('app:k', 'v')).toBe('OK');
      expect(await r.get('app:k')).toBe('v');
      await expect(r.set('other', 'v')).rejects.toThrow(
        'NOPERM this user has no permissions to access one of the keys used as arguments',
      );
      await expect(r.flushall()).rejects.toThrow(
        "NOPERM this user has no permissions to run the 'flushall' command",
      );
      const log = (await admin.call('ACL', 'LOG', '1')) as unknown[][];
      expect(log[0]).toContain('flushall');
    } finally {
      r.disconnect();
    }
  });

  test('ioredis: a wrong password is WRONGPASS, and logged', async () => {
    const r = new Redis({ port: t.port, host: '127.0.0.1' });
    try {
      await expect(r.call('AUTH', 'app', 'nope')).rejects.toThrow(
        'WRONGPASS invalid username-password pair or user is disabled.',
      );
      const log = (await admin.call('ACL', 'LOG', '1')) as unknown[][];
      expect(log[0]?.slice(0, 10)).toEqual([
        'count',
        1,
        'reason',
        'auth',
        'context',
        'toplevel',
        'object',
        'AUTH',
        'username',
        'app',
      ]);
      expect(await r.call('ACL', 'WHOAMI')).toBe('default');
    } finally {
      r.disconnect();
    }
  });

  for (const RESP of [2, 3] as const) {
    test(`node-redis RESP${RESP}: HELLO AUTH as the user, a denied command refused`, async () => {
      const client = createClient({
        socket: { port: t.port, host: '127.0.0.1' },
        username: 'app',
        password: 's3cret',
        RESP,
      });
      await client.connect();
      try {
        expect(await client.sendCommand(['ACL', 'WHOAMI'])).toBe('app');
        expect(await client.set('app:n', '1')).toBe('OK');
        await expect(client.del('app:n')).rejects.toThrow(
          "NOPERM this user has no permissions to run the 'del' command",
        );
        expect(await client.get('app:n')).toBe('1');
      } finally {
        await client.close();
      }
    });
  }
});
