import type { Store } from '@strata/hlog';
import { Keyspace } from '@strata/resp';
import { Databases, PeriodicCheckpoints } from '@strata/store';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { tempDir } from '../test/strata-process.js';
import { Logger } from './logger.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir('strata-databases-');
});
afterAll(async () => {
  await tmp.remove();
});

function setup(dir: string, pageSize = 16 * 1024) {
  const lines: string[] = [];
  const logger = new Logger({
    level: 'debug',
    write: (l) => lines.push(l.replace(/^.*? [.*#-] /, '')),
  });
  const databases = new Databases({
    dir,
    count: 4,
    logger,
    store: { memory: 4 * pageSize, pageSize, indexBuckets: 16 },
  });
  return { lines, logger, databases, keyspace: new Keyspace(databases) };
}

const k = (s: string) => Buffer.from(s);

test('changes since the last checkpoint drive periodic checkpoints', async () => {
  const dir = `${tmp.path}/a`;
  const { lines, logger, databases, keyspace } = setup(dir);
  const store = (await keyspace.ensure(1)) as Store;
  expect(lines).toContain(`DB 1 created in ${dir}/1\n`);
  expect(databases.changesSinceCheckpoint(1, store)).toBeNull();
  const periodic = new PeriodicCheckpoints(
    keyspace,
    databases,
    [{ seconds: 300, changes: 1 }],
    logger,
  );

  for (let i = 0; i < 500; i++) await store.set(k(`k${i}`), k(`v${i}`));
  expect(databases.changesSinceCheckpoint(1, store)).toBe(500);
  await periodic.run();
  expect(lines.some((l) => /^500 changes in \d+ seconds\. Checkpointing\.\.\.\n$/.test(l))).toBe(
    true,
  );
  expect(lines.some((l) => l.startsWith('DB 1 saved on disk: checkpoint 1, '))).toBe(true);
  // The checkpoint's own seal of the tail page is not a change.
  expect(databases.changesSinceCheckpoint(1, store)).toBeNull();
  const before = lines.length;
  await periodic.run();
  expect(lines.slice(before)).toEqual(['No changes since the last checkpoint\n']);

  await store.delete(k('k1'));
  expect(databases.changesSinceCheckpoint(1, store)).toBe(1);
  // FLUSHDB: a fresh store, nothing to checkpoint.
  await keyspace.flush(1);
  expect(databases.changesSinceCheckpoint(1, keyspace.get(1)!)).toBeNull();
  await keyspace.get(1)!.upsert(k('after'), k('flush'));
  await keyspace.closeAll();
  expect(lines.filter((l) => l.startsWith('DB 1 saved on disk: checkpoint 1, '))).toHaveLength(2);

  // A restart loads the checkpoint the close took.
  const again = setup(dir);
  const reopened = (await again.keyspace.ensure(1)) as Store;
  expect(again.lines.some((l) => /^DB 1 loaded from disk: checkpoint 1, 0 records/.test(l))).toBe(
    true,
  );
  expect((await reopened.get(k('after'))).status).toBe('found');
  expect((await reopened.get(k('k2'))).status).toBe('notFound');
  await again.keyspace.closeAll();
});

test('a database that cannot open says which and why', async () => {
  const dir = `${tmp.path}/b`;
  const first = setup(dir);
  await first.keyspace.ensure(0);
  await first.keyspace.closeAll();
  const { lines, databases } = setup(dir, 32 * 1024);
  await expect(databases.open(0)).rejects.toThrow('pageSize');
  expect(lines).toEqual([
    `Failed to open DB 0 in ${dir}/0: the log was written with pageSize 16384, not 32768\n`,
  ]);
});
