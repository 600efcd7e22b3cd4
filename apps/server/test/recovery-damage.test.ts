import { copyFile, open, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keyLengthOf, keyOffsetOf, scanLog } from '@strata/hlog';
import { FileDevice } from '@strata/io';
import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { runCli, StrataProcess, tempDir } from './strata-process.js';

/**
 * Recovery never destroys what it cannot read, through strata-server
 * processes over real files damaged on disk: a damaged page in the middle
 * of the log costs the keys in that page only (reported in the log and in
 * INFO persistence), an unusable checkpoint falls back to a rebuild from the
 * log, nothing is deleted before a new checkpoint is durable, and with the
 * AOF on a missing checkpoint refuses the start unless
 * `aof-missing-checkpoint rebuild` says to rebuild.
 */

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

const PAGE = 16 * 1024;
const SEGMENT = 1024 * 1024;
const base = (dir: string): string[] => [
  ...['--port', '0', '--dir', dir, '--checkpoint-interval', '0'],
  ...['--memory', '256kb', '--page-size', '16kb', '--segment-size', '1mb'],
];

const valueFor = (i: number): string => `value-${i}-${'#'.repeat(i % 50)}`;

/** Writes keys [0, n) in batches. */
async function fill(port: number, n: number): Promise<void> {
  const r = client(port);
  await r.connect();
  for (let from = 0; from < n; from += 1000) {
    const kv: string[] = [];
    for (let i = from; i < Math.min(n, from + 1000); i++) kv.push(`k${i}`, valueFor(i));
    await r.mset(...kv);
  }
  r.disconnect();
}

/** The address of each key's newest record in database 0's log. */
async function addressesOf(db: string): Promise<Map<string, number>> {
  const device = new FileDevice({ dir: db, name: 'log', segmentSize: SEGMENT });
  const at = new Map<string, number>();
  await scanLog({
    device,
    pageSize: PAGE,
    from: device.beginAddress,
    resync: true,
    onRecord: (space, off, address) => {
      const ko = keyOffsetOf(space, off);
      at.set(space.bytes.toString('latin1', ko, ko + keyLengthOf(space, off)), address);
      return true;
    },
  });
  await device.close();
  return at;
}

/** Flips a byte inside the page at `address` (its checksum then fails). */
async function flipByte(db: string, address: number): Promise<void> {
  const fh = await open(join(db, `log.${Math.floor(address / SEGMENT)}`), 'r+');
  const pos = (address % SEGMENT) + 200;
  const b = Buffer.alloc(1);
  await fh.read(b, 0, 1, pos);
  b[0]! ^= 0x20;
  await fh.write(b, 0, 1, pos);
  await fh.close();
}

const checkpointFiles = async (db: string): Promise<string[]> =>
  (await readdir(db)).filter((n) => n.startsWith('checkpoint.')).sort();

/** GETs every key of [0, n): how many come back with their value; any other value fails. */
async function countIntact(port: number, n: number, lost: ReadonlySet<string>): Promise<number> {
  const r = client(port);
  await r.connect();
  let intact = 0;
  for (let from = 0; from < n; from += 1000) {
    const keys: string[] = [];
    for (let i = from; i < Math.min(n, from + 1000); i++) keys.push(`k${i}`);
    const values = await r.mget(...keys);
    values.forEach((v, j) => {
      const i = from + j;
      if (lost.has(`k${i}`)) expect(v, `k${i} was in the damaged page`).toBeNull();
      else {
        expect(v, `k${i}`).toBe(valueFor(i));
        intact++;
      }
    });
  }
  r.disconnect();
  return intact;
}

async function info(port: number): Promise<Map<string, string>> {
  const r = client(port);
  await r.connect();
  const text = await r.info('persistence');
  r.disconnect();
  return new Map(
    text
      .split('\r\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );
}

test('a damaged page in the middle of the log during a whole-log rebuild costs only the keys in it, reported in the log and INFO', async () => {
  const dir = await tempDir('strata-mid-damage-');
  dirs.push(dir);
  const args = base(dir.path);
  const first = await StrataProcess.start(args);
  const N = 30_000;
  await fill(first.port, N);
  expect((await first.process.stop('SIGTERM')).code).toBe(0);
  const db = join(dir.path, '0');
  // No checkpoint to load: the index is rebuilt from the whole log.
  for (const f of await checkpointFiles(db)) await rename(join(db, f), join(dir.path, f));
  const at = await addressesOf(db);
  expect(at.size).toBe(N);
  const pages = [...new Set([...at.values()].map((a) => Math.floor(a / PAGE) * PAGE))].sort(
    (a, b) => a - b,
  );
  const damaged = pages[Math.floor(pages.length / 2)]!;
  const lost = new Set(
    [...at].filter(([, a]) => a >= damaged && a < damaged + PAGE).map(([k]) => k),
  );
  expect(lost.size).toBeGreaterThan(0);
  await flipByte(db, damaged);

  const again = await StrataProcess.start(args);
  const intact = await countIntact(again.port, N, lost);
  console.log(
    `mid-log damage: ${intact} of ${N} keys intact, ${lost.size} lost with page ${damaged}`,
  );
  expect(intact).toBe(N - lost.size);
  const out = again.process.stdout;
  expect(out).toContain(`DB 0: skipped 1 damaged page at [${damaged}: page checksum mismatch]`);
  expect(out).toMatch(
    /DB 0 loaded from disk: no checkpoint, index rebuilt, .*, 1 damaged page skipped/,
  );
  expect(out).not.toMatch(/log cut off/);
  const fields = await info(again.port);
  expect(fields.get('recovery_skipped_pages')).toBe('1');
  expect(fields.get('recovery_skipped_ranges')).toBe(`0@${damaged}+1`);
  expect(fields.get('recovery_unusable_checkpoints')).toBe('0');
  const r = client(again.port);
  await r.connect();
  expect(await r.dbsize()).toBe(N - lost.size);
  r.disconnect();
  await again.process.stop('SIGTERM');
}, 180_000);

test('an unusable checkpoint without the AOF: the index is rebuilt from the log, every key kept; its files stay until a new checkpoint is durable', async () => {
  const dir = await tempDir('strata-bad-checkpoint-');
  dirs.push(dir);
  const args = base(dir.path);
  const first = await StrataProcess.start(args);
  const N = 8000;
  await fill(first.port, N);
  expect((await first.process.stop('SIGTERM')).code).toBe(0);
  const db = join(dir.path, '0');
  const files = await checkpointFiles(db);
  const index = files.find((f) => f.endsWith('.index'))!;
  const seq = Number(index.split('.')[1]);
  // Truncated index snapshot.
  const size = (await stat(join(db, index))).size;
  const fh = await open(join(db, index), 'r+');
  await fh.truncate(Math.floor(size / 2));
  await fh.close();

  const again = await StrataProcess.start(args);
  expect(again.process.stdout).toContain(`DB 0: checkpoint ${seq} is incomplete or corrupt`);
  expect(again.process.stdout).toContain(
    `DB 0: no checkpoint could be loaded (${seq} unusable): rebuilding the index from the whole log`,
  );
  expect(await countIntact(again.port, N, new Set())).toBe(N);
  expect((await info(again.port)).get('recovery_unusable_checkpoints')).toBe('1');
  // Nothing removed by the recovery.
  expect(await checkpointFiles(db)).toEqual(files);
  const r = client(again.port);
  await r.connect();
  expect(await r.save()).toBe('OK');
  r.disconnect();
  // Once the new checkpoint is durable the unusable one goes.
  expect(await checkpointFiles(db)).toEqual([
    `checkpoint.${seq + 1}.index`,
    `checkpoint.${seq + 1}.meta`,
  ]);
  await again.process.stop('SIGTERM');

  // A missing meta file: the same fallback, said in the log.
  const last = (await checkpointFiles(db)).find((f) => f.endsWith('.meta'))!;
  await unlink(join(db, last));
  const third = await StrataProcess.start(args);
  expect(third.process.stdout).toContain(
    `DB 0: checkpoint ${last.split('.')[1]} has an index snapshot but no meta file`,
  );
  expect(await countIntact(third.port, N, new Set())).toBe(N);
  await third.process.stop('SIGTERM');
}, 180_000);

test('with the AOF on: a missing checkpoint refuses the start; aof-missing-checkpoint rebuild rebuilds from the log and replays the AOF, every key back', async () => {
  const dir = await tempDir('strata-aof-rebuild-');
  dirs.push(dir);
  const args = [...base(dir.path), '--appendonly', 'yes', '--appendfsync', 'always'];
  const first = await StrataProcess.start(args);
  const N = 6000;
  await fill(first.port, N);
  const r = client(first.port);
  await r.connect();
  expect(await r.save()).toBe('OK');
  await r.set('late', 'yes');
  await r.incr('k0:counter');
  r.disconnect();
  expect((await first.process.stop('SIGKILL')).signal).toBe('SIGKILL');
  const db = join(dir.path, '0');
  const meta = (await checkpointFiles(db)).find((f) => f.endsWith('.meta'))!;
  await rename(join(db, meta), join(dir.path, meta));

  const refused = await runCli(args);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toMatch(/Refusing to start .* --aof-missing-checkpoint rebuild/);
  expect(await checkpointFiles(db)).toEqual([meta.replace('.meta', '.index')]);

  const again = await StrataProcess.start([...args, '--aof-missing-checkpoint', 'rebuild']);
  expect(again.process.stdout).toMatch(/aof-missing-checkpoint is rebuild/);
  expect(again.process.stdout).toMatch(/DB 0 loaded from disk: no checkpoint, index rebuilt/);
  expect(await countIntact(again.port, N, new Set())).toBe(N);
  const c = client(again.port);
  await c.connect();
  expect(await c.get('late')).toBe('yes');
  expect(await c.get('k0:counter')).toBe('1');
  expect(await c.dbsize()).toBe(N + 2);
  c.disconnect();
  await again.process.stop('SIGTERM');
}, 180_000);

test('with the AOF on: an unreadable checkpoint falls back to a rebuild, and the older checkpoints stay until a new one is recorded', async () => {
  const dir = await tempDir('strata-aof-corrupt-cp-');
  dirs.push(dir);
  const args = [...base(dir.path), '--appendonly', 'yes', '--appendfsync', 'always'];
  const first = await StrataProcess.start(args);
  await fill(first.port, 3000);
  const r = client(first.port);
  await r.connect();
  expect(await r.save()).toBe('OK');
  const db = join(dir.path, '0');
  const older = await checkpointFiles(db);
  for (const f of older) await copyFile(join(db, f), join(dir.path, f));
  await r.set('between', '1');
  expect(await r.save()).toBe('OK');
  await r.set('late', 'yes');
  r.disconnect();
  expect((await first.process.stop('SIGKILL')).signal).toBe('SIGKILL');
  // A crash between recording the new checkpoint and removing the older one.
  for (const f of older) await copyFile(join(dir.path, f), join(db, f));
  const named = (await checkpointFiles(db)).filter((f) => !older.includes(f));
  expect(named).toHaveLength(2);
  await writeFile(join(db, named.find((f) => f.endsWith('.index'))!), 'not an index');

  const again = await StrataProcess.start(args);
  expect(again.process.stdout).toMatch(/is incomplete or corrupt/);
  expect(await countIntact(again.port, 3000, new Set())).toBe(3000);
  const c = client(again.port);
  await c.connect();
  expect(await c.get('between')).toBe('1');
  expect(await c.get('late')).toBe('yes');
  // Nothing deleted at open.
  expect(await checkpointFiles(db)).toEqual([...older, ...named].sort());
  expect(await c.save()).toBe('OK');
  // The new checkpoint recorded: the others go.
  const now = await checkpointFiles(db);
  expect(now).toHaveLength(2);
  expect(now.some((f) => older.includes(f) || named.includes(f))).toBe(false);
  c.disconnect();
  await again.process.stop('SIGTERM');
}, 180_000);

test('with the AOF on: a damaged page just below the checkpoint the AOF names is skipped, not cut as a torn tail, during the fallback rebuild', async () => {
  const dir = await tempDir('strata-aof-durable-');
  dirs.push(dir);
  const args = [...base(dir.path), '--appendonly', 'yes', '--appendfsync', 'always'];
  const first = await StrataProcess.start(args);
  const N = 8000;
  await fill(first.port, N);
  const r = client(first.port);
  await r.connect();
  expect(await r.save()).toBe('OK');
  r.disconnect();
  expect((await first.process.stop('SIGKILL')).signal).toBe('SIGKILL');
  const db = join(dir.path, '0');
  const at = await addressesOf(db);
  const pages = [...new Set([...at.values()].map((a) => Math.floor(a / PAGE) * PAGE))].sort(
    (a, b) => a - b,
  );
  // Three pages before the checkpoint's end: a torn tail's distance.
  const damaged = pages[pages.length - 3]!;
  await flipByte(db, damaged);
  const index = (await checkpointFiles(db)).find((f) => f.endsWith('.index'))!;
  await writeFile(join(db, index), 'not an index');
  const lost = new Set(
    [...at].filter(([, a]) => a >= damaged && a < damaged + PAGE).map(([k]) => k),
  );

  const again = await StrataProcess.start(args);
  const intact = await countIntact(again.port, N, lost);
  console.log(
    `AOF fallback rebuild: ${intact} of ${N} keys intact, ${lost.size} lost with page ${damaged}`,
  );
  expect(intact).toBe(N - lost.size);
  expect(again.process.stdout).toContain(`DB 0: skipped 1 damaged page at [${damaged}:`);
  expect(again.process.stdout).not.toMatch(/log cut off/);
  await again.process.stop('SIGTERM');
}, 180_000);

test('with the AOF on: a log that ends before the checkpoint the AOF names (its last segment removed) refuses the start; rebuild starts with what is there', async () => {
  const dir = await tempDir('strata-aof-short-log-');
  dirs.push(dir);
  const args = [...base(dir.path), '--appendonly', 'yes', '--appendfsync', 'always'];
  const first = await StrataProcess.start(args);
  const N = 30_000;
  await fill(first.port, N);
  const r = client(first.port);
  await r.connect();
  expect(await r.save()).toBe('OK');
  await r.set('late', 'yes');
  r.disconnect();
  expect((await first.process.stop('SIGKILL')).signal).toBe('SIGKILL');
  const db = join(dir.path, '0');
  const at = await addressesOf(db);
  const segments = (await readdir(db)).filter((n) => /^log\.\d+$/.test(n));
  const last = Math.max(...segments.map((n) => Number(n.split('.')[1])));
  expect(last).toBeGreaterThan(0);
  await unlink(join(db, `log.${last}`));
  const lost = new Set([...at].filter(([, a]) => a >= last * SEGMENT).map(([k]) => k));
  const before = await checkpointFiles(db);

  const refused = await runCli(args);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toMatch(
    /DB 0: the log in .* ends at \d+, before the end of checkpoint \d+ \(\d+\), which the AOF replays onto: segment files are missing or cut short\. Refusing to start/,
  );
  expect(await checkpointFiles(db)).toEqual(before);

  const again = await StrataProcess.start([...args, '--aof-missing-checkpoint', 'rebuild']);
  expect(again.process.stdout).toMatch(/cannot be used: it covers the log up to/);
  expect(await countIntact(again.port, N, lost)).toBe(N - lost.size);
  const c = client(again.port);
  await c.connect();
  expect(await c.get('late')).toBe('yes');
  c.disconnect();
  await again.process.stop('SIGTERM');
}, 180_000);
