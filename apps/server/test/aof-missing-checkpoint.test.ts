import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { runCli, StrataProcess, tempDir } from './strata-process.js';

/**
 * With the AOF on, each database replays the AOF onto the checkpoint the
 * AOF names. When that checkpoint's files are gone but the database's log
 * is still there, starting empty would replay only the AOF's tail and then
 * overwrite the log: the data before the checkpoint lost for good. The
 * server refuses to start instead (Redis refuses without its AOF base file),
 * and touches nothing; with the files back, everything is there.
 */

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

/** Every file under `dir` with its bytes' SHA-1, to show nothing changed. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || e.name === 'store.lock' || e.name === 'strata-server.pid') continue;
    const path = join(e.parentPath, e.name);
    out[path] = createHash('sha1')
      .update(await readFile(path))
      .digest('hex');
  }
  return out;
}

test('a missing checkpoint under a database that holds a log: refuses to start, changes nothing; restored, every key is back', async () => {
  const dir = await tempDir('strata-aof-missing-cp-');
  dirs.push(dir);
  // A small memory budget so most records are in the log's segment files.
  const args = [
    ...['--port', '0', '--dir', dir.path, '--appendonly', 'yes', '--appendfsync', 'always'],
    ...['--checkpoint-interval', '0', '--memory', '256kb', '--page-size', '16kb'],
  ];
  const first = await StrataProcess.start(args);
  const r = client(first.port);
  await r.connect();
  const N = 3000;
  for (let base = 0; base < N; base += 500) {
    const kv: string[] = [];
    for (let i = base; i < base + 500; i++) kv.push(`k${i}`, `v${i}`);
    await r.mset(...kv);
  }
  await r.rpush('list', 'a', 'b', 'c');
  expect(await r.save()).toBe('OK');
  // After the checkpoint: only in the AOF's tail (and the log).
  await r.incr('counter');
  await r.set('late', 'yes');
  r.disconnect();
  expect((await first.process.stop('SIGTERM')).code).toBe(0);

  const db0 = join(dir.path, '0');
  const metas = (await readdir(db0)).filter((n) => /^checkpoint\.\d+\.meta$/.test(n));
  expect(metas.length).toBeGreaterThan(0);
  // The one the AOF names: the newest (the shutdown's).
  const named = metas.sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1])).at(-1)!;
  const aside = join(dir.path, `${named}.aside`);
  await rename(join(db0, named), aside);
  const before = await fingerprint(dir.path);

  const refused = await runCli(args);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toMatch(
    /DB 0: checkpoint \d+, which the AOF replays onto, is missing from .*, but the directory holds \d+ bytes of log\. Refusing to start/,
  );
  expect(refused.stdout).not.toMatch(/Ready to accept connections/);
  // Nothing written, nothing removed: the older checkpoints and the log are as they were.
  expect(await fingerprint(dir.path)).toEqual(before);

  await rename(aside, join(db0, named));
  const again = await StrataProcess.start(args);
  const c = client(again.port);
  await c.connect();
  expect(await c.dbsize()).toBe(N + 3);
  expect(await c.get('k0')).toBe('v0');
  expect(await c.get(`k${N - 1}`)).toBe(`v${N - 1}`);
  expect(await c.lrange('list', 0, -1)).toEqual(['a', 'b', 'c']);
  expect(await c.get('counter')).toBe('1');
  expect(await c.get('late')).toBe('yes');
  c.disconnect();
  expect((await again.process.stop('SIGTERM')).code).toBe(0);
}, 120_000);

test('a missing checkpoint over a database directory with no log (FLUSHDB crash window): starts, the AOF replays onto an empty database', async () => {
  const dir = await tempDir('strata-aof-missing-cp-empty-');
  dirs.push(dir);
  const args = [
    ...['--port', '0', '--dir', dir.path, '--appendonly', 'yes', '--appendfsync', 'always'],
    ...['--checkpoint-interval', '0'],
  ];
  const first = await StrataProcess.start(args);
  const r = client(first.port);
  await r.connect();
  await r.set('before', '1');
  expect(await r.save()).toBe('OK');
  await r.set('after', '2');
  r.disconnect();
  expect((await first.process.stop('SIGKILL')).signal).toBe('SIGKILL');
  // As FLUSHDB leaves it when the crash comes between removing the old
  // directory and recording the new checkpoint.
  await rm(join(dir.path, '0'), { recursive: true, force: true });
  const again = await StrataProcess.start(args);
  expect(again.process.stdout).toMatch(/named by the AOF is gone and no log is left/);
  const c = client(again.port);
  await c.connect();
  expect(await c.get('after')).toBe('2');
  expect(await c.get('before')).toBe(null);
  c.disconnect();
  await again.process.stop('SIGTERM');
}, 60_000);
