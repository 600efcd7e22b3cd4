import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { dirForFile, StrataProcess } from './strata-process.js';

// DEBUG RELOAD in strata-server: a checkpoint, then every open database
// dropped from memory and reopened from disk; the data (every type, TTLs,
// two databases) comes back, and with the AOF on a restart after it still
// finds everything (the AOF's checkpoint records follow the reopened stores).
const tmp = dirForFile('strata-debug-reload-');

async function fill(r: Redis): Promise<void> {
  await r.set('s', 'hello');
  await r.set('t', 'v', 'EX', 1000);
  await r.rpush('l', 'a', 'b', 'c');
  await r.sadd('set', 'x', 'y');
  await r.zadd('z', 1.5, 'm', 0.1, 'n');
  await r.hset('h', 'f', 'v');
  await r.xadd('st', '1-1', 'f', 'v');
  await r.select(3);
  await r.set('other', 'db');
  await r.select(0);
}

const digest = (r: Redis) => r.call('DEBUG', 'DIGEST') as Promise<string>;

describe.each([
  ['no', 'off'],
  ['yes', 'on'],
])('appendonly %s', (appendonly, label) => {
  test(`DEBUG RELOAD keeps every type, TTLs and databases, the AOF ${label}`, async () => {
    const data = join(tmp.path, `data-${appendonly}`);
    const args = [
      '--port',
      '0',
      '--dir',
      data,
      '--appendonly',
      appendonly,
      '--enable-debug-command',
      'yes',
    ];
    const s = await StrataProcess.start(args);
    const r = new Redis({ port: s.port, host: '127.0.0.1' });
    let before: string;
    try {
      await fill(r);
      before = await digest(r);
      expect(before).not.toBe('0'.repeat(40));
      expect(await r.call('DEBUG', 'RELOAD')).toBe('OK');
      expect(await digest(r)).toBe(before);
      expect(await r.lrange('l', 0, -1)).toEqual(['a', 'b', 'c']);
      expect(await r.ttl('t')).toBeGreaterThan(900);
      await s.process.waitFor(/DB reloaded by DEBUG RELOAD/);
      // Written after the reload: the reopened stores take writes, and the AOF has them.
      await r.set('after', '1');
      before = await digest(r);
    } finally {
      r.disconnect();
    }
    expect((await s.process.stop()).code).toBe(0);
    const again = await StrataProcess.start(args);
    const r2 = new Redis({ port: again.port, host: '127.0.0.1' });
    try {
      // The first command: DIGEST opens the databases on disk (db 3 too) itself.
      expect(await digest(r2)).toBe(before);
      expect(await r2.get('after')).toBe('1');
    } finally {
      r2.disconnect();
    }
    expect((await again.process.stop()).code).toBe(0);
  }, 60_000);
});
