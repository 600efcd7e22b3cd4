import { readdir, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { expect, test } from 'vitest';
import { dirForFile, runCli, StrataProcess } from './strata-process.js';

/**
 * aof-load-truncated: a command torn at the end of the last AOF file (a
 * crash mid-write) is cut off with a warning by default, and refuses the
 * start with Redis's words with `no` (redis-server 7.0.15's line), the file
 * left as it was.
 */
const tmp = dirForFile('strata-aof-truncated-');

test('a torn last command: no refuses the start, yes (the default) cuts it and loads the rest', async () => {
  const dir = tmp.path;
  const args = ['--port', '0', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always'];
  const a = await StrataProcess.start(args);
  const r = new Redis({ port: a.port, host: '127.0.0.1' });
  for (let i = 0; i < 20; i++) await r.set(`k${i}`, `v${i}`);
  r.disconnect();
  await a.process.stop('SIGKILL');

  // The last file's data ends where the writer's zeros begin: cut into its last command.
  const aofDir = join(dir, 'appendonlydir');
  const last = (await readdir(aofDir))
    .filter((n) => n.endsWith('.incr.aof'))
    .sort()
    .at(-1)!;
  const bytes = await readFile(join(aofDir, last));
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  await truncate(join(aofDir, last), end - 3);

  const refused = await runCli([...args, '--aof-load-truncated', 'no']);
  expect(refused.code).toBe(1);
  expect(refused.stdout + refused.stderr).toContain(
    `Unexpected end of file reading the append only file ${last}. You can: 1) Make a backup of your AOF file, ` +
      'then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the ' +
      "'aof-load-truncated' configuration option to yes and restart the server.",
  );
  expect((await readFile(join(aofDir, last))).length).toBe(end - 3);

  const b = await StrataProcess.start(args);
  expect(b.process.stdout).toMatch(/short read while loading the AOF file/);
  const r2 = new Redis({ port: b.port, host: '127.0.0.1' });
  expect(await r2.get('k18')).toBe('v18');
  // The server takes writes after the cut.
  expect(await r2.set('after', 'x')).toBe('OK');
  expect(await r2.config('GET', 'aof-load-truncated')).toEqual(['aof-load-truncated', 'yes']);
  r2.disconnect();
  await b.process.stop();
});
