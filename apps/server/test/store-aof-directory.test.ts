import { open } from '@strata/store';
import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * One directory, both ways: strata-server with its AOF and the embedded
 * store (`@strata/store`, which composes the same Databases, replay and
 * command log) read each other's append-only file. A server killed with
 * acknowledged writes only in its AOF opens in the store with them
 * replayed; a store's directory opens in strata-server --appendonly yes.
 */
const dirs: { remove(): Promise<void> }[] = [];
afterAll(async () => {
  StrataProcess.killAll();
  for (const d of dirs) await d.remove();
});

/** strata-server's arguments on `dir` with the AOF on, on a free port. */
function withAof(dir: string, ...more: string[]): string[] {
  return ['--port', '0', '--dir', dir, '--appendonly', 'yes', ...more];
}

test('strata-server killed (-9) with its AOF: the store opens the directory and replays the AOF', async () => {
  const dir = await tempDir('strata-store-aof-');
  dirs.push(dir);
  // No commit point: everything after the open's checkpoint is only in the AOF.
  const server = await StrataProcess.start(
    withAof(dir.path, '--appendfsync', 'always', '--commit-interval', '0'),
  );
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    for (let i = 0; i < 100; i++) await client.set(`k${i}`, `v${i}`);
    await client.hset('h', 'f', '1');
    await client.rpush('l', 'a', 'b', 'c');
    await client.zadd('z', 2, 'b', 1, 'a');
    await client.xadd('s', '1-1', 'f', 'v');
  } finally {
    client.disconnect();
  }
  server.process.child.kill('SIGKILL');
  await server.process.exited;

  const lines: string[] = [];
  const keep = (m: string) => {
    lines.push(m);
  };
  const db = await open(dir.path, {
    appendOnly: true,
    logger: { debug: keep, verbose: keep, notice: keep, warning: keep },
  });
  try {
    expect(lines.join('\n')).toMatch(/DB loaded from append only file: 10[45] commands applied/);
    for (let i = 0; i < 100; i++) expect(await db.get(`k${i}`)).toBe(`v${i}`);
    expect(await db.hget('h', 'f')).toBe('1');
    expect(await db.lrange('l', 0, -1)).toEqual(['a', 'b', 'c']);
    expect(await db.zrange('z', 0, -1)).toEqual(['a', 'b']);
    expect(await db.command('XLEN', 's')).toBe(1);
    await db.set('from-store', 'yes');
  } finally {
    await db.close();
  }

  // And back: strata-server on what the store left, with the AOF.
  const again = await StrataProcess.start(withAof(dir.path));
  const c2 = new Redis({ port: again.port, host: '127.0.0.1' });
  try {
    expect(await c2.get('from-store')).toBe('yes');
    expect(await c2.get('k99')).toBe('v99');
    expect(await c2.lrange('l', 0, -1)).toEqual(['a', 'b', 'c']);
  } finally {
    c2.disconnect();
    await again.process.stop();
  }
}, 60_000);
