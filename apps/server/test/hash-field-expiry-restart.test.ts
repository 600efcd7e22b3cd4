import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Hash field expiry times are part of the hash's record, and the registry
 * of hashes with due fields (the active cycle's) is a record of its own:
 * both survive a checkpoint and a restart, and an AOF replay after SIGKILL
 * (HEXPIRE logged as HPEXPIREAT, HSETEX EX as HSETEX PXAT). After the
 * restart, fields that expired stay gone and the active cycle still finds
 * hashes whose fields come due (a hash left with none is deleted, with no
 * command touching it).
 */

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** 2100-01-01T00:00:00Z in ms. */
const FAR = 4102444800000;
/** Hashes written, beyond what one 64 KiB page holds: most are read back from the disk. */
const MANY = 300;

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(50);
  }
}

/** The writes both restarts check; `soon` is the ms from now after which the `b` fields expire. */
async function write(r: Redis, soon: number): Promise<void> {
  await r.hset('h', 'a', '1', 'b', '2', 'c', '3');
  expect(await r.call('hpexpireat', 'h', String(FAR), 'FIELDS', '1', 'a')).toEqual([1]);
  expect(await r.call('hpexpire', 'h', String(soon), 'FIELDS', '1', 'b')).toEqual([1]);
  expect(await r.call('hsetex', 'hx', 'PX', String(soon), 'FIELDS', '2', 'x', '1', 'y', '2')).toBe(
    1,
  );
  for (let i = 0; i < MANY; i++) {
    await r.hset(`m:${i}`, 'keep', 'v'.repeat(100), 'go', String(i));
    await r.call('hpexpire', `m:${i}`, String(soon), 'FIELDS', '1', 'go');
  }
}

async function check(c: Redis): Promise<void> {
  expect(await c.call('hpexpiretime', 'h', 'FIELDS', '3', 'a', 'b', 'c')).toEqual([FAR, -2, -1]);
  expect(await c.hgetall('h')).toEqual({ a: '1', c: '3' });
  expect(await c.call('object', 'encoding', 'h')).toBe('listpackex');
  // hx had only fields that expired: the active cycle deletes it, untouched.
  await until(async () => (await c.exists('hx')) === 0);
  // HLEN counts expired fields not deleted yet: 1 means the cycle deleted `go`.
  await until(async () => {
    for (let i = 0; i < MANY; i += 37) if ((await c.hlen(`m:${i}`)) !== 1) return false;
    return true;
  });
  expect(await c.hget('m:5', 'go')).toBeNull();
  expect(await c.hget('m:5', 'keep')).toBe('v'.repeat(100));
}

test('field expiry times and the registry survive a checkpoint and a restart', async () => {
  const dir = await tempDir('strata-hfe-checkpoint-');
  dirs.push(dir);
  const args = ['--port', '0', '--dir', dir.path, '--memory', '128kb', '--page-size', '64kb'];
  const first = await StrataProcess.start([...args, '--checkpoint-interval', '0']);
  const r = client(first.port);
  await r.connect();
  await write(r, 800);
  expect(await r.call('save')).toBe('OK');
  r.disconnect();
  first.process.child.kill('SIGKILL');
  await first.process.exited;
  await sleep(900);

  const again = await StrataProcess.start(args);
  const c = client(again.port);
  await c.connect();
  try {
    await check(c);
  } finally {
    c.disconnect();
    await again.process.stop();
  }
});

test('after SIGKILL the AOF replay brings back field expiry times, in absolute time', async () => {
  const dir = await tempDir('strata-hfe-aof-');
  dirs.push(dir);
  const args = [
    ...['--port', '0', '--dir', dir.path, '--memory', '128kb', '--page-size', '64kb'],
    ...['--appendonly', 'yes', '--appendfsync', 'always', '--checkpoint-interval', '0'],
  ];
  const first = await StrataProcess.start(args);
  const r = client(first.port);
  await r.connect();
  await write(r, 1500);
  r.disconnect();
  first.process.child.kill('SIGKILL');
  await first.process.exited;
  // Logged in absolute time, as Redis propagates them.
  const aofDir = join(dir.path, 'appendonlydir');
  let aof = '';
  for (const f of await readdir(aofDir)) aof += await readFile(join(aofDir, f), 'latin1');
  expect(aof).toContain('$10\r\nHPEXPIREAT\r\n$1\r\nh\r\n$13\r\n4102444800000\r\n');
  expect(aof).not.toMatch(/\$8\r\nhpexpire\r\n/i);
  expect(aof).toMatch(/\$6\r\nhsetex\r\n\$2\r\nhx\r\n\$4\r\nPXAT\r\n\$13\r\n\d{13}\r\n/i);
  await sleep(1600);

  const again = await StrataProcess.start(args);
  const c = client(again.port);
  await c.connect();
  try {
    await check(c);
  } finally {
    c.disconnect();
    await again.process.stop();
  }
});
