import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { expect, test } from 'vitest';
import { dirForFile, StrataProcess } from './strata-process.js';

/**
 * strata-server's dir and dbfilename under enable-protected-configs:
 * refused by default, as Redis 7; allowed, dir can only name the
 * directory the databases are in (they cannot move while open), and
 * dbfilename is stored.
 */
const tmp = dirForFile('strata-protected-');

test.each([
  [
    'no',
    "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config",
    false,
  ],
  ['yes', "ERR CONFIG SET failed (possibly related to argument 'dir')", true],
] as const)('enable-protected-configs %s', async (setting, refusal, allowed) => {
  const dir = join(tmp.path, setting);
  await mkdir(dir);
  const s = await StrataProcess.start([
    ...['--port', '0', '--dir', dir, '--enable-protected-configs', setting],
  ]);
  const r = new Redis({ port: s.port, host: '127.0.0.1' });
  try {
    await expect(r.config('SET', 'dir', tmp.path)).rejects.toThrow(refusal);
    if (allowed) {
      expect(await r.config('SET', 'dir', dir)).toBe('OK');
      expect(await r.config('SET', 'dbfilename', 'x.rdb')).toBe('OK');
      expect(await r.config('GET', 'dbfilename')).toEqual(['dbfilename', 'x.rdb']);
    }
    expect(await r.config('GET', 'dir')).toEqual(['dir', dir]);
    await r.set('k', 'v');
    expect(await r.get('k')).toBe('v');
  } finally {
    r.disconnect();
    await s.process.stop();
  }
});
