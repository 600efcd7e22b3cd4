// RDB files written by the installed redis-server, read with RdbFileReader.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRdbFile, RDB_TYPE, RdbError, RdbFileReader, type RdbRecord } from '../src/index.js';
import { hasRedis, type RedisHandle, startRedis } from './redis-helper.js';

if (!hasRedis) console.warn('redis-server not installed: skipping the RDB file tests');

async function collect(reader: RdbFileReader): Promise<RdbRecord[]> {
  const out: RdbRecord[] = [];
  for await (const rec of reader) out.push(rec);
  return out;
}

/** The bytes as a stream of `size`-byte chunks, to exercise records split across reads. */
async function* chunks(buf: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function failure(reader: RdbFileReader): Promise<RdbError> {
  try {
    await collect(reader);
  } catch (e) {
    if (e instanceof RdbError) return e;
    throw e;
  }
  throw new Error('no error');
}

const expireAt = Date.now() + 3_600_000;

describe.skipIf(!hasRedis)('RDB files from redis-server 7', () => {
  let r: RedisHandle;
  let file: Buffer;
  let path: string;
  beforeAll(async () => {
    r = await startRedis();
    await r.call('CONFIG', 'SET', 'zset-max-listpack-entries', 4, 'hash-max-listpack-entries', 4);
    const cmds: Array<Array<string | number>> = [
      ['SET', 'str', 'hello world'],
      ['SET', 'int', '42'],
      ['SET', 'long', 'z'.repeat(1000)],
      ['PEXPIREAT', 'str', expireAt],
      ['RPUSH', 'list', 'a', 'b', 'c'],
      ['SADD', 'iset', 1, 2, 3],
      ['SADD', 'set', 'x', 'y'],
      ['ZADD', 'zlp', 1, 'a', 2, 'b'],
      ['ZADD', 'zsk', 1, 'a', 2, 'b', 3, 'c', 4, 'd', 5, 'e'],
      ['HSET', 'hlp', 'f', 'v'],
      ['HSET', 'hht', 'a', 1, 'b', 2, 'c', 3, 'd', 4, 'e', 5],
      ['PEXPIREAT', 'hht', expireAt + 1],
      ['XADD', 'stream', '5-1', 'k', 'v'],
      [
        'FUNCTION',
        'LOAD',
        "#!lua name=mylib\nredis.register_function('f1', function() return 1 end)",
      ],
      ['SELECT', 3],
      ['SET', 'db3key', 'in db 3'],
      ['SELECT', 0],
    ];
    for (const c of cmds) {
      const reply = await r.call(...c);
      if (reply instanceof Error) throw reply;
    }
    expect(await r.call('SAVE')).toBe('OK');
    path = join(r.dir, 'dump.rdb');
    file = readFileSync(path);
  });
  afterAll(() => r?.stop());

  it('yields every key with its db, type, value and expiry', async () => {
    const reader = openRdbFile(path);
    const recs = await collect(reader);
    expect(reader.version).toBe(10);
    expect(String(reader.aux.get('redis-ver'))).toBe('7.0.15');
    expect(reader.functions.map(String)[0]).toContain('mylib');
    const byKey = new Map(recs.map((x) => [String(x.key), x]));
    expect([...byKey.keys()].sort()).toEqual(
      [
        'db3key',
        'hht',
        'hlp',
        'iset',
        'int',
        'list',
        'long',
        'set',
        'str',
        'stream',
        'zlp',
        'zsk',
      ].sort(),
    );
    expect(byKey.get('db3key')).toMatchObject({
      db: 3,
      value: { type: 'string', value: Buffer.from('in db 3') },
    });
    expect(byKey.get('str')).toMatchObject({
      db: 0,
      expireAtMs: expireAt,
      value: { value: Buffer.from('hello world') },
    });
    expect(byKey.get('hht')?.expireAtMs).toBe(expireAt + 1);
    expect(byKey.get('int')?.expireAtMs).toBeUndefined();
    expect(byKey.get('long')?.value).toMatchObject({ value: Buffer.from('z'.repeat(1000)) });
    expect(byKey.get('list')?.value).toMatchObject({
      rdbType: RDB_TYPE.LIST_QUICKLIST_2,
      items: ['a', 'b', 'c'].map((s) => Buffer.from(s)),
    });
    expect(byKey.get('iset')?.value.rdbType).toBe(RDB_TYPE.SET_INTSET);
    expect(byKey.get('set')?.value.rdbType).toBe(RDB_TYPE.SET);
    expect(byKey.get('zlp')?.value.rdbType).toBe(RDB_TYPE.ZSET_LISTPACK);
    expect(byKey.get('zsk')?.value).toMatchObject({ rdbType: RDB_TYPE.ZSET_2 });
    expect(byKey.get('hlp')?.value.rdbType).toBe(RDB_TYPE.HASH_LISTPACK);
    expect(byKey.get('hht')?.value).toMatchObject({ rdbType: RDB_TYPE.HASH });
    expect(byKey.get('stream')?.value).toMatchObject({
      type: 'stream',
      lastId: { ms: 5n, seq: 1n },
    });
    expect(reader.bytesRead).toBe(file.length);
  });

  it('reads the same records from a stream of tiny chunks', async () => {
    const whole = (await collect(new RdbFileReader(chunks(file, 1 << 20)))).map((x) => [
      String(x.key),
      x.db,
      x.offset,
    ]);
    const tiny = (await collect(new RdbFileReader(chunks(file, 7)))).map((x) => [
      String(x.key),
      x.db,
      x.offset,
    ]);
    expect(tiny).toEqual(whole);
  });

  it('names the offset of a truncated file', async () => {
    for (const cut of [5, 20, Math.floor(file.length / 2), file.length - 3]) {
      const e = await failure(new RdbFileReader(chunks(file.subarray(0, cut), 64)));
      expect(e.code).toBe('ERR_RDB_TRUNCATED');
      expect(e.offset).toBe(cut);
      expect(e.message).toContain(`byte offset ${cut}`);
    }
  });

  it('refuses a wrong checksum, a bad header and a too-new version', async () => {
    const bad = Buffer.from(file);
    const at = bad.indexOf('hello world');
    bad[at] = 'j'.charCodeAt(0);
    const p = join(r.dir, 'bad.rdb');
    writeFileSync(p, bad);
    expect((await failure(openRdbFile(p))).code).toBe('ERR_RDB_CHECKSUM');
    expect(await collect(openRdbFile(p, { verifyChecksum: false }))).toHaveLength(12);
    expect(
      (await failure(new RdbFileReader(chunks(Buffer.from('NOTREDIS0010\xff'), 64)))).code,
    ).toBe('ERR_RDB_BAD_HEADER');
    expect((await failure(new RdbFileReader(chunks(file, 4096), { maxVersion: 9 }))).code).toBe(
      'ERR_RDB_VERSION',
    );
  });

  it('refuses a hostile count without buffering the world', async () => {
    // Header, then a list (type 1) whose key is "k" and whose count is 2^40.
    const hostile = Buffer.concat([
      Buffer.from('REDIS0010'),
      Buffer.from([RDB_TYPE.LIST, 1, 0x6b, 0x81, 0, 0, 1, 0, 0, 0, 0, 0]),
    ]);
    const e = await failure(new RdbFileReader(chunks(hostile, 64), { maxRecordBytes: 1 << 20 }));
    expect(e.code).toBe('ERR_RDB_TOO_LARGE');
    expect(e.offset).toBe(12);
  });
});
