import { Prng } from '@strata/io';
import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { RespServer } from '../../src/server/resp-server.js';
import { useTempDir } from '../support/collection-helpers.js';
import { SMALL_STORE } from '../support/test-server.js';

/**
 * Streams long enough to seal many blocks, on a server whose collection
 * cache is smaller than one block (every block a command needs is read
 * from disk, most while others are let go), against an in-memory model,
 * restarted between batches: ranges both ways over cold blocks, XDEL and
 * exact trims inside sealed blocks, `~` trims that drop whole blocks, group
 * reads, history and claims of entries in cold blocks, COPY, RENAME, MOVE
 * and DEL of streams with blocks. No internal key ever shows.
 */

interface Entry {
  readonly id: string;
  readonly fields: string[];
}

interface Group {
  last: string;
  readonly pel: Map<string, string>;
}

interface Stream {
  entries: Entry[];
  lastMs: number;
  readonly groups: Map<string, Group>;
}

const KEYS = ['xb:a', 'xb:b', 'xb:c'];
/** The most blocks one stream had (XINFO STREAM's radix-tree-keys): the test reached many. */
let sealedSeen = 0;
const msOf = (id: string) => Number(id.split('-')[0]);
const cmpId = (a: string, b: string) => msOf(a) - msOf(b);
const replies = (es: readonly Entry[]) => es.map((e) => [e.id, e.fields]);

async function open(dir: string): Promise<{ server: RespServer; redis: Redis }> {
  const server = new RespServer({
    databases: { dir, store: SMALL_STORE, collectionMemory: 64 * 1024 },
  });
  const { port } = await server.listen(0);
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  await redis.connect();
  return { server, redis };
}

/** Appends `n` entries to `key` in one pipeline (IDs `<ms>-0`, one ms apart). */
async function bulkAppend(r: Redis, s: Stream, key: string, n: number, rng: Prng): Promise<void> {
  const p = r.pipeline();
  for (let i = 0; i < n; i++) {
    const id = `${++s.lastMs}-0`;
    const fields = ['f', `v${rng.nextInt(1e6)}`, 'pad', 'x'.repeat(rng.nextInt(80))];
    p.xadd(key, id, ...fields);
    s.entries.push({ id, fields });
  }
  const got = await p.exec();
  for (const [err] of got!) expect(err).toBeNull();
}

function pick<T>(rng: Prng, xs: readonly T[]): T {
  return xs[rng.nextInt(xs.length)]!;
}

async function step(r: Redis, streams: Map<string, Stream>, rng: Prng): Promise<void> {
  const key = pick(rng, KEYS);
  const s = streams.get(key);
  if (s === undefined) {
    expect(await r.exists(key)).toBe(0);
    return;
  }
  const es = s.entries;
  const someId = () =>
    es.length > 0 && rng.nextInt(5) !== 0 ? pick(rng, es).id : `${rng.nextInt(s.lastMs + 2)}-0`;
  const op = rng.nextInt(100);
  if (op < 25) {
    const a = someId();
    const b = someId();
    const [lo, hi] = cmpId(a, b) <= 0 ? [a, b] : [b, a];
    const count = rng.nextInt(3) === 0 ? 0 : 1 + rng.nextInt(300);
    const inRange = es.filter((e) => cmpId(e.id, lo) >= 0 && cmpId(e.id, hi) <= 0);
    if (rng.nextInt(2) === 0) {
      const want = count > 0 ? inRange.slice(0, count) : inRange;
      const args = count > 0 ? ['COUNT', String(count)] : [];
      expect(await r.call('XRANGE', key, lo, hi, ...args)).toEqual(replies(want));
    } else {
      const rev = inRange.reverse();
      const want = count > 0 ? rev.slice(0, count) : rev;
      const args = count > 0 ? ['COUNT', String(count)] : [];
      expect(await r.call('XREVRANGE', key, hi, lo, ...args)).toEqual(replies(want));
    }
    return;
  }
  if (op < 35) {
    const ids = [someId(), someId(), someId()];
    const gone = new Set(ids.filter((id) => es.some((e) => e.id === id)));
    expect(await r.xdel(key, ...ids)).toBe(gone.size);
    s.entries = es.filter((e) => !gone.has(e.id));
    return;
  }
  if (op < 40) {
    // Exact trims a little into the stream: inside its first (sealed, cold) block.
    if (rng.nextInt(2) === 0) {
      const keep = Math.max(0, es.length - rng.nextInt(200));
      expect(await r.xtrim(key, 'MAXLEN', keep)).toBe(es.length - keep);
      s.entries = es.slice(es.length - keep);
    } else {
      const min = es[Math.min(es.length, rng.nextInt(200))]?.id ?? `${s.lastMs + 1}-0`;
      const before = es.length;
      s.entries = es.filter((e) => cmpId(e.id, min) >= 0);
      expect(await r.xtrim(key, 'MINID', min)).toBe(before - s.entries.length);
    }
    return;
  }
  if (op < 44) {
    // `~`: whole blocks only; what it drops is a prefix, and at least the threshold stays.
    const keep = rng.nextInt(es.length + 1);
    const n = (await r.xtrim(key, 'MAXLEN', '~', keep)) as number;
    expect(es.length - n).toBeGreaterThanOrEqual(keep);
    s.entries = es.slice(n);
    expect(await r.xlen(key)).toBe(s.entries.length);
    return;
  }
  if (op < 50) {
    await bulkAppend(r, s, key, 1 + rng.nextInt(400), rng);
    return;
  }
  if (op < 54) {
    const got = (await r.call('XINFO', 'STREAM', key)) as unknown[];
    const info = new Map<string, unknown>();
    for (let i = 0; i < got.length; i += 2) info.set(got[i] as string, got[i + 1]);
    expect(info.get('length')).toBe(es.length);
    // Sealed blocks of at most 1000 entries (or 64 KiB), and the tail.
    if (es.length > 0) {
      expect(info.get('radix-tree-keys')).toBeGreaterThanOrEqual(Math.ceil(es.length / 1000));
    }
    sealedSeen = Math.max(sealedSeen, info.get('radix-tree-keys') as number);
    expect(info.get('first-entry')).toEqual(es.length === 0 ? null : replies([es[0]!])[0]);
    expect(info.get('last-entry')).toEqual(es.length === 0 ? null : replies([es.at(-1)!])[0]);
    return;
  }
  const name = `g${rng.nextInt(2)}`;
  const g = s.groups.get(name);
  if (g === undefined) {
    const start = es.length > 0 ? pick(rng, ['0', es[rng.nextInt(es.length)]!.id]) : '0';
    expect(await r.xgroup('CREATE', key, name, start)).toBe('OK');
    s.groups.set(name, { last: start === '0' ? '0-0' : start, pel: new Map() });
    return;
  }
  const consumer = `c${rng.nextInt(2)}`;
  if (op < 70) {
    const count = 1 + rng.nextInt(300);
    const fresh = es.filter((e) => cmpId(e.id, g.last) > 0).slice(0, count);
    const got = await r.call(
      'XREADGROUP',
      'GROUP',
      name,
      consumer,
      'COUNT',
      count,
      'STREAMS',
      key,
      '>',
    );
    if (fresh.length === 0) {
      expect(got).toBeNull();
      return;
    }
    expect(got).toEqual([[key, replies(fresh)]]);
    for (const e of fresh) g.pel.set(e.id, consumer);
    g.last = fresh.at(-1)!.id;
    return;
  }
  if (op < 78) {
    // History: the consumer's pending entries, deleted ones as [id, nil].
    const mine = [...g.pel].filter(([, c]) => c === consumer).map(([id]) => id);
    mine.sort(cmpId);
    const want = mine.slice(0, 100).map((id) => {
      const e = es.find((x) => x.id === id);
      return e === undefined ? [id, null] : [id, e.fields];
    });
    const got = await r.call(
      'XREADGROUP',
      'GROUP',
      name,
      consumer,
      'COUNT',
      100,
      'STREAMS',
      key,
      '0',
    );
    expect(got).toEqual([[key, want]]);
    return;
  }
  if (op < 86) {
    const pending = [...g.pel.keys()].sort(cmpId);
    const ids = [pick(rng, pending.length > 0 ? pending : [someId()]), someId()];
    const want: unknown[] = [];
    for (const id of new Set(ids)) {
      if (!g.pel.has(id)) continue;
      const e = es.find((x) => x.id === id);
      if (e === undefined) {
        g.pel.delete(id);
        continue;
      }
      g.pel.set(id, consumer);
      want.push([id, e.fields]);
    }
    expect(await r.call('XCLAIM', key, name, consumer, 0, ...new Set(ids))).toEqual(want);
    return;
  }
  if (op < 92) {
    const pending = [...g.pel.keys()].sort(cmpId);
    const claimed: string[] = [];
    const deleted: string[] = [];
    let i = 0;
    for (; i < pending.length && claimed.length + deleted.length < 50; i++) {
      const id = pending[i]!;
      if (es.some((e) => e.id === id)) {
        claimed.push(id);
        g.pel.set(id, consumer);
      } else {
        deleted.push(id);
        g.pel.delete(id);
      }
    }
    const got = await r.call('XAUTOCLAIM', key, name, consumer, 0, '0', 'COUNT', 50, 'JUSTID');
    expect(got).toEqual([pending[i] ?? '0-0', claimed, deleted]);
    return;
  }
  if (op < 95) {
    // COPY, then the copy lives on its own: XDEL on it leaves the original whole.
    const dst = `${key}:copy`;
    await r.del(dst);
    expect(await r.copy(key, dst)).toBe(1);
    expect(await r.call('XRANGE', dst, '-', '+')).toEqual(replies(es));
    if (es.length > 0) expect(await r.xdel(dst, es[0]!.id)).toBe(1);
    expect(await r.xlen(key)).toBe(es.length);
    expect(await r.del(dst)).toBe(1);
    return;
  }
  if (op < 98) {
    // RENAME away and back; MOVE to db 1 and back.
    const other = `${key}:moved`;
    expect(await r.rename(key, other)).toBe('OK');
    expect(await r.xlen(other)).toBe(es.length);
    expect(await r.rename(other, key)).toBe('OK');
    expect(await r.move(key, 1)).toBe(1);
    await r.select(1);
    expect(await r.call('XRANGE', key, '-', '+', 'COUNT', 5)).toEqual(replies(es.slice(0, 5)));
    expect(await r.move(key, 0)).toBe(1);
    await r.select(0);
    return;
  }
  expect(await r.del(key)).toBe(1);
  streams.delete(key);
}

async function checkAll(r: Redis, streams: Map<string, Stream>): Promise<void> {
  for (const key of KEYS) {
    const s = streams.get(key);
    if (s === undefined) {
      expect(await r.exists(key)).toBe(0);
      continue;
    }
    expect(await r.xlen(key)).toBe(s.entries.length);
    expect(await r.call('XRANGE', key, '-', '+')).toEqual(replies(s.entries));
    const groups = (await r.xinfo('GROUPS', key)) as unknown[][];
    expect(groups.map((g) => [g[1], g[5]])).toEqual(
      [...s.groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, g]) => [n, g.pel.size]),
    );
  }
  // Block records are nobody's keys.
  expect(await r.dbsize()).toBe(streams.size);
  expect((await r.keys('*')).sort()).toEqual([...streams.keys()].sort());
}

describe('streams in blocks on disk, against a model, across restarts', () => {
  const dir = useTempDir('strata-stream-blocks-');

  test('ranges, deletes, trims, groups and claims over cold blocks', async () => {
    const rng = new Prng(23);
    const streams = new Map<string, Stream>();
    let o = await open(dir());
    try {
      for (let batch = 0; batch < 4; batch++) {
        for (const key of KEYS) {
          let s = streams.get(key);
          if (s === undefined) {
            s = { entries: [], lastMs: 0, groups: new Map() };
            streams.set(key, s);
          }
          await bulkAppend(o.redis, s, key, 2500, rng);
        }
        for (let i = 0; i < 150; i++) await step(o.redis, streams, rng);
        await checkAll(o.redis, streams);
        o.redis.disconnect();
        await o.server.close();
        o = await open(dir());
        await checkAll(o.redis, streams);
      }
      expect(sealedSeen).toBeGreaterThan(5);
      const info = await o.redis.info('keyspace');
      // Block records are not keys: INFO keyspace counts the streams alone (no db0 line when none).
      if (streams.size === 0) expect(info).not.toMatch(/db0:/);
      else expect(info).toMatch(new RegExp(`db0:keys=${streams.size},`));
    } finally {
      o.redis.disconnect();
      await o.server.close();
    }
  }, 300_000);
});
