import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * SORT whose sorted key and pattern keys are on the disk: a collection
 * cache of one byte (every hash is read back from the log at each lookup)
 * and strings pushed out of the log's 64 KiB of memory. Everything must
 * be loaded before the sort runs, in one step no other client's command
 * lands in (sort-lookups.ts).
 */
describe('SORT with its keys on the disk', () => {
  let t: TestServer;
  let a: Redis;
  let b: Redis;
  beforeAll(async () => {
    t = await startServer({ collectionMemory: 1 });
    a = new Redis({ port: t.port, host: '127.0.0.1' });
    b = new Redis({ port: t.port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    a.disconnect();
    b.disconnect();
    await t.stop();
  });

  const N = 150;

  /** Writes enough small strings that the keys written before leave the log's memory. */
  async function fill(prefix: string): Promise<void> {
    const argv: string[] = [];
    for (let i = 0; i < 3000; i++) argv.push(`${prefix}:${i}`, `filler-${i}-xxxxxxxxxxxxxxxxxxxx`);
    await a.mset(...argv);
  }

  /** Whether the string record of `key` is read from the device (not in the log's memory). */
  function onDisk(key: string): boolean {
    const store = t.server.keyspace.get(0)!;
    const v = store.read(Buffer.from(key));
    if (v.status !== 'pending') return false;
    v.pending.catch(() => undefined);
    return true;
  }

  test('BY strings and GET hash fields, all on the disk, sorted as in memory', async () => {
    const ids = Array.from({ length: N }, (_, i) => String(i));
    await a.rpush('d:l', ...ids);
    for (const i of ids) {
      // Weights in reverse order of the ids; every 10th missing (weight 0).
      if (Number(i) % 10 !== 0) await a.set(`d:w_${i}`, String(N - Number(i)));
      await a.hset(`d:h_${i}`, 'name', `n${i}`);
    }
    await fill('d:fill');
    expect(onDisk('d:w_1')).toBe(true);
    expect(onDisk('d:h_1')).toBe(true);
    const got = await a.sort(
      'd:l',
      'BY',
      'd:w_*',
      'GET',
      '#',
      'GET',
      'd:h_*->name',
      'GET',
      'd:w_*',
    );
    const want = [...ids]
      .map((i) => ({ i, w: Number(i) % 10 === 0 ? 0 : N - Number(i) }))
      .sort((x, y) => x.w - y.w || (x.i < y.i ? -1 : x.i > y.i ? 1 : 0))
      .flatMap(({ i, w }) => [i, `n${i}`, w === 0 ? null : String(w)]);
    expect(got).toEqual(want);
    // STORE, with LIMIT: the GETs of the range only.
    expect(
      await a.sort(
        'd:l',
        'BY',
        'd:h_*->name',
        'ALPHA',
        'LIMIT',
        '0',
        '3',
        'GET',
        'd:w_*',
        'STORE',
        'd:dst',
      ),
    ).toBe(3);
    // By name: n0, n1, n10 (ids 0 and 10 have no weight).
    expect(await a.lrange('d:dst', 0, -1)).toEqual(['', String(N - 1), '']);
  });

  test('a sorted set on the disk, by score with BY nosort', async () => {
    const args: string[] = [];
    for (let i = 0; i < N; i++) args.push(String(N - i), `m${i}`);
    await a.zadd('d:z', ...args);
    await fill('d:fill2');
    expect(await a.sort('d:z', 'BY', 'nosort', 'LIMIT', '0', '3')).toEqual([
      `m${N - 1}`,
      `m${N - 2}`,
      `m${N - 3}`,
    ]);
  });

  test('in a script and in a transaction, with the keys on the disk', async () => {
    await a.rpush('e:l', 'x', 'y', 'z');
    await a.mset('e:w_x', '3', 'e:w_y', '1', 'e:w_z', '2');
    await a.hset('e:h_y', 'f', 'Y');
    await fill('e:fill');
    expect(onDisk('e:w_x')).toBe(true);
    const script =
      "return redis.call('sort', KEYS[1], 'by', 'e:w_*', 'get', '#', 'get', 'e:h_*->f')";
    expect(await a.eval(script, 1, 'e:l')).toEqual(['y', 'Y', 'z', null, 'x', null]);
    await fill('e:fill2');
    const r = await a
      .multi()
      .sort('e:l', 'BY', 'e:w_*', 'DESC', 'STORE', 'e:d')
      .lrange('e:d', 0, -1)
      .exec();
    expect(r).toEqual([
      [null, 3],
      [null, ['x', 'z', 'y']],
    ]);
  });

  test('a pattern naming a key longer than the store takes finds nothing', async () => {
    const long = 'x'.repeat(5000);
    await a.rpush('k:l', long, 'b');
    await a.set('k:w_b', '1');
    expect(await a.sort('k:l', 'BY', 'k:w_*', 'GET', 'k:w_*', 'GET', 'k:h_*->f')).toEqual([
      null,
      null,
      '1',
      null,
    ]);
  });

  test("another client's write lands before or after the SORT, never inside it", async () => {
    const ids = Array.from({ length: N }, (_, i) => String(i));
    await a.rpush('t:l', ...ids);
    for (let round = 1; round <= 3; round++) {
      // Half of the values on the disk, half in memory: a SORT that read the
      // first half, then let a write in, would mix old and new values.
      const half = ids.slice(0, N / 2).flatMap((i) => [`t:s_${i}`, `v${round - 1}`]);
      const rest = ids.slice(N / 2).flatMap((i) => [`t:s_${i}`, `v${round - 1}`]);
      await a.mset(...half);
      await fill(`t:fill${round}`);
      await a.mset(...rest);
      expect(onDisk('t:s_0')).toBe(true);
      expect(onDisk(`t:s_${N - 1}`)).toBe(false);
      const next = ids.flatMap((i) => [`t:s_${i}`, `v${round}`]);
      // The MSET is sent while the SORT waits for the disk (most likely: it
      // may land before it, never inside it).
      const sorting = a.sort('t:l', 'BY', 'nosort', 'GET', 't:s_*') as Promise<string[]>;
      await new Promise((resolve) => setTimeout(resolve, 1));
      const [sorted] = await Promise.all([sorting, b.mset(...next)]);
      const values = new Set(sorted);
      expect(values.size).toBe(1);
      expect([`v${round - 1}`, `v${round}`]).toContain([...values][0]);
    }
  });
});

describe('SORT in the command log', () => {
  test('logged as it came when it stored, with its keys on the disk; a plain SORT is not', async () => {
    const entries: string[] = [];
    const t = await startServer({
      collectionMemory: 1,
      commandLog: {
        append(_db: number, argv: readonly Buffer[]) {
          entries.push(argv.map((b) => b.toString()).join(' '));
          return undefined;
        },
      },
    });
    const r = new Redis({ port: t.port, host: '127.0.0.1' });
    try {
      await r.rpush('c:l', '2', '1');
      await r.sort('c:l');
      await r.sort('c:l', 'STORE', 'c:d');
      await r.sort('c:missing', 'STORE', 'c:d');
      await r.sort('c:l', 'BY', 'nosort', 'LIMIT', 'x', '1', 'STORE', 'c:d').catch(() => undefined);
      expect(entries).toEqual(['rpush c:l 2 1', 'sort c:l STORE c:d', 'sort c:missing STORE c:d']);
    } finally {
      r.disconnect();
      await t.stop();
    }
  });
});
