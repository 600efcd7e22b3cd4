import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasRedisServer, startRedis } from '@strata/redis-harness';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RespServer } from '../../src/server/resp-server.js';
import { SMALL_STORE } from '../support/test-server.js';

/**
 * enable-protected-configs (immutable, given at start) lets CONFIG SET
 * change dir and dbfilename, as Redis 7.0: `yes` from any client, `local`
 * from a loopback one; refused by default (test/hostile/security.test.ts).
 * Redis's replies, compared with redis-server started the same way.
 */
let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'strata-protected-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function replies(r: Redis, elsewhere: string): Promise<string[]> {
  const out: string[] = [];
  const say = (p: Promise<unknown>) =>
    p.then(
      (v) => out.push(JSON.stringify(v)),
      (e: Error) => out.push(e.message),
    );
  await say(r.config('SET', 'dbfilename', 'other.rdb'));
  await say(r.config('GET', 'dbfilename'));
  await say(r.config('SET', 'dbfilename', 'a/b.rdb'));
  await say(r.config('SET', 'dir', join(elsewhere, 'missing')));
  await say(r.config('SET', 'dir', join(elsewhere, 'file-not-dir')));
  // Changing dir and a second parameter at once: all or nothing.
  await say(r.config('SET', 'maxmemory-policy', 'allkeys-lru', 'dir', join(elsewhere, 'missing')));
  await say(r.config('GET', 'maxmemory-policy'));
  return out;
}

const EXPECTED = [
  '"OK"',
  '["dbfilename","other.rdb"]',
  "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename can't be a path, just a filename",
  "ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or directory",
  "ERR CONFIG SET failed (possibly related to argument 'dir') - Not a directory",
  "ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or directory",
  '["maxmemory-policy","noeviction"]',
];

describe('enable-protected-configs', () => {
  for (const setting of ['yes', 'local']) {
    test(`${setting}: CONFIG SET dir and dbfilename as Redis 7.0 (recorded; live when redis-server is installed)`, async () => {
      await writeFile(join(base, 'file-not-dir'), 'x');
      const server = new RespServer({
        databases: { dir: join(base, `data-${setting}`), store: SMALL_STORE },
        configValues: { 'enable-protected-configs': () => setting },
      });
      const { port } = await server.listen(0);
      const r = new Redis({ port, host: '127.0.0.1' });
      const cwd = process.cwd();
      try {
        expect(await replies(r, base)).toEqual(EXPECTED);
        // dir is the process's working directory, as Redis's chdir makes it.
        expect(await r.config('SET', 'dir', base)).toBe('OK');
        expect(await r.config('GET', 'dir')).toEqual(['dir', await realpath(base)]);
      } finally {
        process.chdir(cwd);
        r.disconnect();
        await server.close();
      }
      if (!hasRedisServer()) {
        console.log(
          'protected-configs: redis-server is not installed; the live comparison is skipped',
        );
        return;
      }
      const redis = await startRedis(['--enable-protected-configs', setting], {
        dir: await mkdtemp(join(base, 'redis-')),
      });
      const rr = new Redis({ port: redis.port, host: '127.0.0.1' });
      try {
        expect(await replies(rr, base)).toEqual(EXPECTED);
      } finally {
        rr.disconnect();
        redis.stop();
        await redis.exited;
      }
    });
  }
});
