import { open, readdir, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Damage to a database's log files while the server is stopped: a record
 * that fails verification when read is never served. The command answers
 * an error naming the key, the log address and the damage; INFO's stats
 * count it and the server's log reports it once; the key can be deleted and
 * written again.
 */

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

// Small pages, memory and segments: most records are in segment files.
const ARGS = [
  ...['--checkpoint-interval', '0', '--memory', '256kb', '--page-size', '16kb'],
  ...['--segment-size', '256kb'],
];

const written = (i: number) => `value-${i}-${'abcdefghij'.repeat(5)}-end`;

/** The segment file holding `needle` and where in it (each record is written once). */
async function find(dir: string, needle: string): Promise<{ path: string; at: number }> {
  const db0 = join(dir, '0');
  for (const name of await readdir(db0)) {
    if (!/^log\.\d+$/.test(name)) continue;
    const bytes = await readFile(join(db0, name));
    const at = bytes.indexOf(needle);
    if (at >= 0) {
      expect(bytes.indexOf(needle, at + 1)).toBe(-1);
      return { path: join(db0, name), at };
    }
  }
  throw new Error(`${needle} is in no segment file`);
}

async function fill(r: Redis, n: number, from = 0): Promise<void> {
  for (let base = from; base < from + n; base += 500) {
    const kv: string[] = [];
    for (let i = base; i < Math.min(base + 500, from + n); i++) kv.push(`k${i}`, written(i));
    await r.mset(...kv);
  }
}

function stat(info: string, name: string): string {
  const m = new RegExp(`^${name}:(.*)\\r?$`, 'm').exec(info);
  if (m === null) throw new Error(`no ${name} in INFO`);
  return m[1]!;
}

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    const v = await p;
    return `no error: ${JSON.stringify(v)}`;
  } catch (e) {
    return (e as Error).message;
  }
}

test('a bit flipped inside a value: GET answers the error (never the value), INFO counts it, the log says it once, DEL then SET work', async () => {
  const dir = await tempDir('strata-corrupt-flip-');
  dirs.push(dir);
  const args = ['--port', '0', '--dir', dir.path, ...ARGS];
  const first = await StrataProcess.start(args);
  let r = client(first.port);
  await r.connect();
  await fill(r, 3000);
  r.disconnect();
  expect((await first.process.stop('SIGTERM')).code).toBe(0);

  // One bit in the middle of k1234's value.
  const { path, at } = await find(dir.path, written(1234));
  const f = await open(path, 'r+');
  const byte = Buffer.alloc(1);
  await f.read(byte, 0, 1, at + 20);
  byte[0] = byte[0]! ^ 0x04;
  await f.write(byte, 0, 1, at + 20);
  await f.close();

  const again = await StrataProcess.start(args);
  r = client(again.port);
  await r.connect();
  const first1 = await errorOf(r.get('k1234'));
  expect(first1).toMatch(
    /^ERR corrupt record for key 'k1234' at log address (\d+): checksum mismatch$/,
  );
  const address = /log address (\d+)/.exec(first1)![1]!;
  expect(await errorOf(r.get('k1234'))).toBe(first1);
  // Every other key reads back as written.
  for (let base = 0; base < 3000; base += 500) {
    const keys = Array.from({ length: 500 }, (_, j) => `k${base + j}`).filter((k) => k !== 'k1234');
    const values = await r.mget(...keys);
    expect(values).toEqual(keys.map((k) => written(Number(k.slice(1)))));
  }
  const info = await r.info('stats');
  expect(Number(stat(info, 'corrupt_record_reads'))).toBeGreaterThanOrEqual(2);
  expect(stat(info, 'corrupt_records')).toBe('1');
  expect(stat(info, 'last_corrupt_address')).toBe(`0:${address}`);
  // Logged once for the address, however many reads met it.
  const logged = again.process.stdout.match(/corrupt record for key 'k1234'/g) ?? [];
  expect(logged.length).toBe(1);
  expect(again.process.stdout).toMatch(
    new RegExp(
      `# DB 0: corrupt record for key 'k1234' at log address ${address} in .*: checksum mismatch`,
    ),
  );
  expect(await r.dbsize()).toBe(3000);
  expect(await r.del('k1234')).toBe(1);
  expect(await r.get('k1234')).toBeNull();
  expect(await r.dbsize()).toBe(2999);
  expect(await r.set('k1234', 'new')).toBe('OK');
  expect(await r.get('k1234')).toBe('new');
  expect(await r.dbsize()).toBe(3000);
  r.disconnect();
  await again.process.stop('SIGTERM');
});

test('a segment truncated: the keys in the lost range answer the error, INFO keyspace works, a hash there can be deleted and written again', async () => {
  const dir = await tempDir('strata-corrupt-trunc-');
  dirs.push(dir);
  const args = ['--port', '0', '--dir', dir.path, ...ARGS];
  const first = await StrataProcess.start(args);
  let r = client(first.port);
  await r.connect();
  await fill(r, 4000);
  const fields: string[] = [];
  for (let i = 0; i < 40; i++) fields.push(`f${i}`, `hash-value-${i}-marker`);
  await r.hset('myhash', ...fields);
  await fill(r, 8000, 4000);
  r.disconnect();
  expect((await first.process.stop('SIGTERM')).code).toBe(0);

  const { path } = await find(dir.path, 'hash-value-7-marker');
  const segments = (await readdir(join(dir.path, '0'))).filter((n) => /^log\.\d+$/.test(n));
  // A segment in the middle of the log, not its last.
  expect(path.endsWith(`log.${segments.length - 1}`)).toBe(false);
  await truncate(path, 1000);

  const again = await StrataProcess.start(args);
  r = client(again.port);
  await r.connect();
  expect(await errorOf(r.hgetall('myhash'))).toMatch(
    /^ERR corrupt record for key 'myhash' at log address \d+: (no record there|checksum mismatch)$/,
  );
  let reported = 0;
  let right = 0;
  for (let i = 0; i < 12000; i++) {
    const e = await errorOf(r.get(`k${i}`));
    if (e.startsWith('no error')) {
      expect(e).toBe(`no error: ${JSON.stringify(written(i))}`);
      right++;
    } else {
      expect(e).toMatch(new RegExp(`^ERR corrupt record for key 'k${i}' at log address \\d+: `));
      reported++;
    }
  }
  expect(reported).toBeGreaterThan(100);
  expect(right).toBeGreaterThan(8000);
  // Every key counted once, the damaged ones included (keys until deleted).
  expect(await r.info('keyspace')).toMatch(/db0:keys=12001,expires=0/);
  expect(await r.dbsize()).toBe(12001);
  // A write over the damaged hash may fail; DEL works, then it is a new hash.
  expect(await r.del('myhash')).toBe(1);
  expect(await r.dbsize()).toBe(12000);
  expect(await r.hset('myhash', 'a', '1')).toBe(1);
  expect(await r.hgetall('myhash')).toEqual({ a: '1' });
  expect(await r.dbsize()).toBe(12001);
  // A damaged string key overwritten, another deleted: the count follows.
  let damagedKey = -1;
  for (let i = 0; i < 12000 && damagedKey < 0; i++) {
    if ((await errorOf(r.get(`k${i}`))).startsWith('ERR corrupt')) damagedKey = i;
  }
  expect(await r.set(`k${damagedKey}`, 'again')).toBe('OK');
  expect(await r.dbsize()).toBe(12001);
  expect(await r.del(`k${damagedKey + 1}`)).toBe(1);
  expect(await r.dbsize()).toBe(12000);
  expect(await r.info('keyspace')).toMatch(/db0:keys=12000,expires=0/);
  // SCAN goes through the whole log.
  let cursor = '0';
  let scanned = 0;
  do {
    const [next, keys] = await r.scan(cursor, 'COUNT', 1000);
    cursor = next;
    scanned += keys.length;
  } while (cursor !== '0');
  expect(scanned).toBeGreaterThan(8000);
  // It skipped the emptied pages and reported them.
  expect(Number(stat(await r.info('stats'), 'damaged_pages'))).toBeGreaterThan(0);
  expect(again.process.stdout).toMatch(/# DB 0: damaged page at log address \d+ in .* skipped: /);
  r.disconnect();
  await again.process.stop('SIGTERM');
});

/** Flips one bit in every copy of `needle` in the database's segment files; returns how many. */
async function flipEvery(dir: string, needle: string): Promise<number> {
  const db0 = join(dir, '0');
  let n = 0;
  for (const name of await readdir(db0)) {
    if (!/^log\.\d+$/.test(name)) continue;
    const path = join(db0, name);
    const bytes = await readFile(path);
    let at = bytes.indexOf(needle);
    if (at < 0) continue;
    const f = await open(path, 'r+');
    while (at >= 0) {
      const byte = Buffer.from([bytes[at + 3]! ^ 0x04]);
      await f.write(byte, 0, 1, at + 3);
      n++;
      at = bytes.indexOf(needle, at + 1);
    }
    await f.close();
  }
  return n;
}

test("a damaged stream block names the stream's key; MGET over damaged keys answers one error naming one, and every damaged read is counted", async () => {
  const dir = await tempDir('strata-corrupt-stream-');
  dirs.push(dir);
  const args = ['--port', '0', '--dir', dir.path, ...ARGS];
  const first = await StrataProcess.start(args);
  let r = client(first.port);
  await r.connect();
  const pipe = r.pipeline();
  for (let i = 1; i <= 4000; i++) pipe.xadd('mystream', `${i}-0`, 'f', `entry-${i}-marker`);
  await pipe.exec();
  await fill(r, 3000);
  r.disconnect();
  expect((await first.process.stop('SIGTERM')).code).toBe(0);

  expect(await flipEvery(dir.path, 'entry-1234-marker')).toBeGreaterThan(0);
  expect(await flipEvery(dir.path, written(100))).toBe(1);
  expect(await flipEvery(dir.path, written(200))).toBe(1);

  const again = await StrataProcess.start(args);
  r = client(again.port);
  await r.connect();
  const streamError = await errorOf(r.xrange('mystream', '1200', '1300'));
  expect(streamError).toMatch(/^ERR corrupt record for key 'mystream' at log address \d+: /);
  // The entries in other blocks still read.
  expect((await r.xrange('mystream', '1', '5')).length).toBe(5);

  const before = Number(stat(await r.info('stats'), 'corrupt_record_reads'));
  const mgetError = await errorOf(r.mget('k1', 'k100', 'k150', 'k200', 'k250'));
  expect(mgetError).toMatch(/^ERR corrupt record for key 'k(100|200)' at log address \d+: /);
  let info = await r.info('stats');
  // The read that met the damage is counted (a batch read stops at the
  // first damaged record: the other is not read, nor counted, by this MGET).
  const met = Number(stat(info, 'corrupt_record_reads')) - before;
  expect(met).toBeGreaterThanOrEqual(1);
  expect(met).toBeLessThanOrEqual(2);
  // Each damaged address once: the stream's block and the keys met so far.
  expect(Number(stat(info, 'corrupt_records'))).toBe(1 + met);
  // Each damaged key answers its own error to a GET, and is then counted.
  expect(await errorOf(r.get('k100'))).toMatch(/^ERR corrupt record for key 'k100' /);
  expect(await errorOf(r.get('k200'))).toMatch(/^ERR corrupt record for key 'k200' /);
  info = await r.info('stats');
  expect(Number(stat(info, 'corrupt_records'))).toBe(3);
  expect(Number(stat(info, 'corrupt_record_reads')) - before).toBe(met + 2);
  // The others are intact.
  expect(await r.mget('k1', 'k150', 'k250')).toEqual([written(1), written(150), written(250)]);
  // DBSIZE counts every key once, damaged ones included (they are keys until deleted).
  expect(await r.dbsize()).toBe(3001);
  // A blind SET over one damaged key, a DEL of the other: still one key each.
  expect(await r.set('k100', 'new')).toBe('OK');
  expect(await r.dbsize()).toBe(3001);
  expect(await r.del('k200')).toBe(1);
  expect(await r.dbsize()).toBe(3000);
  expect(await r.info('keyspace')).toMatch(/db0:keys=3000,/);
  r.disconnect();
  await again.process.stop('SIGTERM');
});
