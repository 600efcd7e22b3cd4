import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@strata/hlog';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { KeyEncoding } from '../src/commands.js';
import { type Database, type OpenOptions, open, StoreError, serve } from '../src/index.js';
import type { ValueEncoding, ValueOf } from '../src/value-encoding.js';

const dirs: string[] = [];
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const d of opened.splice(0).reverse()) await d.close().catch(() => undefined);
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'strata-store-'));
  dirs.push(d);
  return d;
}

async function openAt<E extends ValueEncoding = 'utf8', K extends KeyEncoding = 'utf8'>(
  dir: string,
  options?: OpenOptions<E, K>,
): Promise<Database<ValueOf<E>, K>> {
  const db = await open(dir, options);
  opened.push(db);
  return db;
}

async function fresh<E extends ValueEncoding = 'utf8', K extends KeyEncoding = 'utf8'>(
  options?: OpenOptions<E, K>,
): Promise<Database<ValueOf<E>, K>> {
  return openAt(await tempDir(), options);
}

describe('keys and values', () => {
  it('string keys are their UTF-8 bytes: two different keys stay two keys', async () => {
    const db = await fresh();
    await db.set('abcd', 'first');
    await db.set('wxyz', 'second');
    expect(await db.get('abcd')).toBe('first');
    expect(await db.get('wxyz')).toBe('second');
    await db.set('ключ', 'значение');
    expect(await db.get(Buffer.from('ключ', 'utf8'))).toBe('значение');
    expect(await db.get(new Uint8Array(Buffer.from('abcd')))).toBe('first');
    expect(await db.command('DBSIZE')).toBe(3);
  });

  it('a number or an object is a TypeError naming the argument, and nothing is written', async () => {
    const db = await fresh();
    const untyped = db as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    expect(() => untyped.set!(1, 'v')).toThrow(
      new TypeError('key must be a string, Buffer or Uint8Array, not a number'),
    );
    expect(() => untyped.set!('k', 12)).toThrow(
      new TypeError('value must be a string, Buffer or Uint8Array, not a number'),
    );
    expect(() => untyped.get!({})).toThrow(/key must be .* not an object/);
    expect(() => untyped.hset!('h', new Map([[1, 'v']]))).toThrow(/field must be/);
    expect(() => untyped.sadd!('s', 'a', 2)).toThrow(/members\[1\] must be/);
    expect(await db.command('DBSIZE')).toBe(0);
  });

  it('value encodings: utf8 strings, buffers, JSON', async () => {
    const buf = await fresh({ valueEncoding: 'buffer' });
    await buf.set('k', 'v');
    expect(await buf.get('k')).toEqual(Buffer.from('v'));

    const json = await fresh({ valueEncoding: 'json' });
    await json.set('k', { a: [1, 'x'], b: null });
    expect(await json.get('k')).toEqual({ a: [1, 'x'], b: null });
    await json.hset('h', { f: 42 });
    expect(await json.hget('h', 'f')).toBe(42);
    await json.command('SET', 'raw', 'not json');
    await expect(json.get('raw')).rejects.toMatchObject({ code: 'ERR_DECODE' });

    await expect(open(await tempDir(), { valueEncoding: 'yaml' as 'json' })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });

  it('read() is found without a promise in memory and pending for a record on disk', async () => {
    const db = await fresh({ sync: 'no', memory: 64 << 10, pageSize: 16 << 10 });
    await db.batch(
      Array.from({ length: 3000 }, (_, i) => ({
        type: 'put' as const,
        key: `k${i}`,
        value: `v${i}`,
      })),
    );
    expect(db.read('k2999')).toEqual({ status: 'found', value: 'v2999' });
    expect(db.read('nope')).toEqual({ status: 'notFound' });
    const r = db.read('k0');
    expect(r.status).toBe('pending');
    if (r.status === 'pending') expect(await r.pending).toBe('v0');
    expect(await db.get('k1')).toBe('v1');
  });
});

describe('commands with Redis semantics', () => {
  it('collections, WRONGTYPE as ERR_WRONG_TYPE, expiry', async () => {
    const db = await fresh();
    expect(await db.hset('h', { a: '1', b: '2' })).toBe(2);
    expect(await db.hgetall('h')).toEqual(
      new Map([
        ['a', '1'],
        ['b', '2'],
      ]),
    );
    expect(await db.hdel('h', 'a', 'zz')).toBe(1);
    expect(await db.zadd('z', { member: 'm', score: 2.5 }, { member: 'n', score: -1 })).toBe(2);
    expect(await db.zrange('z', 0, -1)).toEqual(['n', 'm']);
    expect(await db.zscore('z', 'm')).toBe(2.5);
    expect(await db.lpush('l', 'a', 'b')).toBe(2);
    expect(await db.lrange('l', 0, -1)).toEqual(['b', 'a']);
    expect(await db.rpop('l')).toBe('a');
    expect(await db.sadd('s', 'x', 'y', 'x')).toBe(2);
    expect((await db.smembers('s')).sort()).toEqual(['x', 'y']);
    expect(await db.type('z')).toBe('zset');

    await expect(db.get('h')).rejects.toMatchObject({ code: 'ERR_WRONG_TYPE' });
    const e = await db.lpush('h', 'x').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect(e).toMatchObject({
      code: 'ERR_WRONG_TYPE',
      message: 'WRONGTYPE Operation against a key holding the wrong kind of value',
    });
    await expect(db.command('INCR', 'h')).rejects.toMatchObject({ code: 'ERR_WRONG_TYPE' });
    await expect(db.command('NOSUCH')).rejects.toMatchObject({ code: 'ERR_COMMAND' });
    expect(() => db.command('MULTI')).toThrow(StoreError);

    expect(await db.set('t', 'v', { ttlMs: 60_000 })).toBe(true);
    const ttl = await db.ttl('t');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await db.set('t', 'w', { nx: true })).toBe(false);
    expect(await db.persist('t')).toBe(true);
    expect(await db.ttl('t')).toBe(-1);
    expect(await db.ttl('missing')).toBe(-2);
    expect(await db.expire('missing', 10)).toBe(false);
  });

  it('scan and keys iterate every key once, with MATCH and TYPE', async () => {
    const db = await fresh();
    await Promise.all(Array.from({ length: 250 }, (_, i) => db.set(`user:${i}`, 'x')));
    await db.hset('user:h', { f: 'v' });
    await db.set('other', 'x');
    const seen: string[] = [];
    for await (const k of db.scan({ match: 'user:*', type: 'string', count: 10 })) seen.push(k);
    expect(seen.length).toBe(250);
    expect(new Set(seen).size).toBe(250);
    const hashes: string[] = [];
    for await (const k of db.scan({ type: 'hash' })) hashes.push(k);
    expect(hashes).toEqual(['user:h']);
    const all: string[] = [];
    for await (const k of db.keys()) all.push(k);
    expect(all.length).toBe(252);

    const bytes = await fresh({ keyEncoding: 'buffer' });
    await bytes.set(Buffer.from([0xff, 0x01]), 'x');
    const keys: Buffer[] = [];
    for await (const k of bytes.scan()) keys.push(k);
    expect(keys).toEqual([Buffer.from([0xff, 0x01])]);
  });
});

describe('transactions', () => {
  it('results in order; a command failing as it ran is a StoreError there, the others apply', async () => {
    const db = await fresh();
    await db.hset('h', { f: 'v' });
    let incr: Promise<number> | null = null;
    const results = await db.transaction((tx) => {
      void tx.set('a', '1');
      void tx.lpush('h', 'x');
      incr = tx.incr('n', 5);
    });
    expect(results[0]).toBe(true);
    expect(results[1]).toMatchObject({ code: 'ERR_WRONG_TYPE' });
    expect(results[2]).toBe(5);
    expect(await incr).toBe(5);
    expect(await db.get('a')).toBe('1');
  });

  it('a command refused before EXEC aborts the whole transaction: nothing applied', async () => {
    const db = await fresh();
    const r = db.transaction((tx) => {
      void tx.set('a', '1');
      void tx.command('GET'); // wrong arity: refused when queued
    });
    await expect(r).rejects.toMatchObject({ code: 'ERR_TRANSACTION_ABORTED' });
    expect(await db.get('a')).toBeUndefined();
  });

  it('batch puts and deletes together', async () => {
    const db = await fresh();
    await db.set('gone', 'x');
    await db.batch([
      { type: 'put', key: 'a', value: '1' },
      { type: 'put', key: Buffer.from('b'), value: '2' },
      { type: 'del', key: 'gone' },
    ]);
    expect([await db.get('a'), await db.get('b'), await db.get('gone')]).toEqual([
      '1',
      '2',
      undefined,
    ]);
  });
});

describe('durability and the directory', () => {
  it('sync always: concurrent writes share log commits (group commit), each durable when it resolves', async () => {
    const db = await fresh();
    const store = () => (db.server.keyspace.get(0) as Store).stats();
    const before = store();
    await Promise.all(Array.from({ length: 100 }, (_, i) => db.set(`k${i}`, `v${i}`)));
    const commits = store().logCommits - before.logCommits;
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(commits).toBeLessThan(10);
    // The log is synced, not the index snapshotted: no checkpoint per commit.
    expect(store().checkpoints).toBe(before.checkpoints);
  });

  it('a second open of the directory fails with ERR_LOCKED; after close it opens with the data', async () => {
    const dir = await tempDir();
    const db = await openAt(dir);
    await db.set('k', 'v');
    await expect(open(dir)).rejects.toMatchObject({ code: 'ERR_LOCKED' });
    await db.close();
    await expect(db.get('k')).rejects.toMatchObject({ code: 'ERR_CLOSED' });
    const again = await openAt(dir);
    expect(await again.get('k')).toBe('v');
  });

  it('options are checked', async () => {
    const dir = await tempDir();
    for (const bad of [
      { sync: 'sometimes' },
      { checkpointEveryMs: -1 },
      { checkpointEveryMs: 2 ** 31 },
      { commitEveryMs: 1.5 },
      { appendOnly: 'yes' },
      { keyEncoding: 'hex' },
    ]) {
      await expect(open(dir, bad as OpenOptions)).rejects.toMatchObject({
        code: 'ERR_INVALID_ARGUMENT',
      });
    }
  });
});

describe('serve', () => {
  it('a Redis client over RESP and the process see and change the same keys', async () => {
    const db = await fresh();
    const served = await serve(db, { port: 0 });
    const redis = new Redis({ port: served.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    try {
      await db.hset('h', { f: 'from process' });
      expect(await redis.hget('h', 'f')).toBe('from process');
      await redis.set('k', 'from socket');
      expect(await db.get('k')).toBe('from socket');
    } finally {
      redis.disconnect();
      await served.close();
    }
    // The database outlives its listener.
    expect(await db.get('k')).toBe('from socket');
  });
});
