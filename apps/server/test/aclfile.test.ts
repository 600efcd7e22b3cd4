import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { expect, test } from 'vitest';
import { dirForFile, StrataProcess } from './strata-process.js';

// An aclfile named in redis.conf is loaded at start: its users AUTH and
// are held to their rules, as with redis-server.
const tmp = dirForFile('strata-aclfile-');

test('users from the aclfile log in and are refused what their rules deny', async () => {
  const acl = join(tmp.path, 'users.acl');
  await writeFile(
    acl,
    [
      'user default on nopass ~* &* +@all',
      'user reader on >secret ~app:* +get +ping +acl|whoami',
      '',
    ].join('\n'),
  );
  const conf = join(tmp.path, 'redis.conf');
  await writeFile(
    conf,
    ['port 0', `dir ${join(tmp.path, 'data')}`, `aclfile ${acl}`, ''].join('\n'),
  );
  const s = await StrataProcess.start([conf]);
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
  const bad = new Redis({ port: s.port, host: '127.0.0.1' });
  await expect(bad.call('AUTH', 'reader', 'nope')).rejects.toThrow('WRONGPASS');
  expect(await bad.call('AUTH', 'reader', 'secret')).toBe('OK');
  bad.disconnect();
  expect((await s.process.stop()).code).toBe(0);
}, 30_000);
