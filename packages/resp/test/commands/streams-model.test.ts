import { Prng } from '@strata/io';
import type { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { type OpenServer, openOnDir, useTempDir } from '../support/collection-helpers.js';

/**
 * Streams and consumer groups against an in-memory model, on a server whose
 * stores hold 64 KiB of log (streams and their groups are written back,
 * evicted and read from disk), restarted between batches: every reply must
 * be what the model says, and so must the state after each restart.
 */

interface Entry {
  readonly ms: number;
  readonly seq: number;
  readonly fields: string[];
}

interface Pending {
  consumer: string;
}

interface Group {
  last: string;
  readonly pel: Map<string, Pending>;
  readonly consumers: Set<string>;
}

interface Stream {
  entries: Entry[];
  lastMs: number;
  lastSeq: number;
  readonly groups: Map<string, Group>;
}

const idOf = (e: { ms: number; seq: number }) => `${e.ms}-${e.seq}`;
const cmpId = (a: string, b: string) => {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
};
const sortedIds = (ids: Iterable<string>) => [...ids].sort(cmpId);

const KEYS = ['xm:a', 'xm:b', 'xm:c'];

class Model {
  readonly streams = new Map<string, Stream>();

  stream(key: string, create: boolean): Stream | undefined {
    let s = this.streams.get(key);
    if (s === undefined && create) {
      s = { entries: [], lastMs: 0, lastSeq: 0, groups: new Map() };
      this.streams.set(key, s);
    }
    return s;
  }
}

/** Replies as ioredis gives them: entries as [id, [f, v...]]. */
function entryReplies(entries: readonly Entry[]): unknown[] {
  return entries.map((e) => [idOf(e), e.fields]);
}

async function step(r: Redis, m: Model, rng: Prng): Promise<void> {
  const key = KEYS[rng.nextInt(KEYS.length)]!;
  const s = m.stream(key, false);
  const op = rng.nextInt(100);
  if (op < 40) {
    // XADD: an explicit ID a little past the last, or <ms>-*; sometimes exact MAXLEN.
    const ms = (s?.lastMs ?? 0) + rng.nextInt(3);
    const auto = rng.nextInt(3) === 0;
    const idArg = auto ? `${ms}-*` : `${ms}-${rng.nextInt(3)}`;
    const maxLen = rng.nextInt(10) === 0 ? rng.nextInt(200) : -1;
    const fields = ['f', `v${rng.nextInt(1_000_000)}`, 'pad', 'x'.repeat(rng.nextInt(60))];
    const argv = maxLen >= 0 ? ['MAXLEN', '=', String(maxLen), idArg] : [idArg];
    const t = m.stream(key, true)!;
    // <ms>-*: the next seq within the last ms, else 0 (a new stream's last ID is 0-0).
    const seq = auto ? (ms === t.lastMs ? t.lastSeq + 1 : 0) : Number(idArg.split('-')[1]);
    const ok = ms > t.lastMs || (ms === t.lastMs && seq > t.lastSeq);
    const got = await r.xadd(key, ...(argv as [string]), ...fields).catch((e: Error) => e);
    if (!ok) {
      if (s === undefined) m.streams.delete(key);
      expect(got).toBeInstanceOf(Error);
      expect((got as Error).message).toMatch(/equal or smaller|greater than 0-0/);
      return;
    }
    expect(got).toBe(`${ms}-${seq}`);
    t.entries.push({ ms, seq, fields });
    t.lastMs = ms;
    t.lastSeq = seq;
    if (maxLen >= 0 && t.entries.length > maxLen) t.entries.splice(0, t.entries.length - maxLen);
    return;
  }
  if (s === undefined) {
    expect(await r.xlen(key)).toBe(0);
    return;
  }
  const randomId = () => {
    if (s.entries.length > 0 && rng.nextInt(4) !== 0)
      return idOf(s.entries[rng.nextInt(s.entries.length)]!);
    return `${rng.nextInt(s.lastMs + 2)}-${rng.nextInt(3)}`;
  };
  if (op < 55) {
    const a = randomId();
    const b = randomId();
    const [lo, hi] = cmpId(a, b) <= 0 ? [a, b] : [b, a];
    const count = rng.nextInt(3) === 0 ? 1 + rng.nextInt(20) : 0;
    const inRange = s.entries.filter((e) => cmpId(idOf(e), lo) >= 0 && cmpId(idOf(e), hi) <= 0);
    if (rng.nextInt(2) === 0) {
      const want = count > 0 ? inRange.slice(0, count) : inRange;
      const got =
        count > 0 ? await r.xrange(key, lo, hi, 'COUNT', count) : await r.xrange(key, lo, hi);
      expect(got).toEqual(entryReplies(want));
    } else {
      const rev = inRange.reverse();
      const want = count > 0 ? rev.slice(0, count) : rev;
      const got =
        count > 0 ? await r.xrevrange(key, hi, lo, 'COUNT', count) : await r.xrevrange(key, hi, lo);
      expect(got).toEqual(entryReplies(want));
    }
    return;
  }
  if (op < 60) {
    const ids = [randomId(), randomId()];
    const gone = new Set(ids.filter((id) => s.entries.some((e) => idOf(e) === id)));
    expect(await r.xdel(key, ...ids)).toBe(gone.size);
    s.entries = s.entries.filter((e) => !gone.has(idOf(e)));
    return;
  }
  if (op < 63) {
    if (rng.nextInt(2) === 0) {
      const n = rng.nextInt(s.entries.length + 5);
      const drop = Math.max(0, s.entries.length - n);
      expect(await r.xtrim(key, 'MAXLEN', n)).toBe(drop);
      s.entries.splice(0, drop);
    } else {
      const min = randomId();
      const before = s.entries.length;
      s.entries = s.entries.filter((e) => cmpId(idOf(e), min) >= 0);
      expect(await r.xtrim(key, 'MINID', min)).toBe(before - s.entries.length);
    }
    return;
  }
  const groupName = `g${rng.nextInt(3)}`;
  const g = s.groups.get(groupName);
  if (op < 68) {
    const start = rng.nextInt(2) === 0 ? '0' : '$';
    const got = await r.xgroup('CREATE', key, groupName, start).catch((e: Error) => e);
    if (g !== undefined) {
      expect((got as Error).message).toMatch(/BUSYGROUP/);
      return;
    }
    expect(got).toBe('OK');
    s.groups.set(groupName, {
      last: start === '0' ? '0-0' : `${s.lastMs}-${s.lastSeq}`,
      pel: new Map(),
      consumers: new Set(),
    });
    return;
  }
  if (g === undefined) {
    const got = await r.xpending(key, groupName).catch((e: Error) => e);
    expect((got as Error).message).toMatch(/NOGROUP/);
    return;
  }
  const consumer = `c${rng.nextInt(3)}`;
  if (op < 80) {
    const count = 1 + rng.nextInt(15);
    const noAck = rng.nextInt(8) === 0;
    const fresh = s.entries.filter((e) => cmpId(idOf(e), g.last) > 0).slice(0, count);
    const args = ['GROUP', groupName, consumer, 'COUNT', String(count)];
    if (noAck) args.push('NOACK');
    const got = await r.call('XREADGROUP', ...args, 'STREAMS', key, '>');
    if (fresh.length === 0) {
      expect(got).toBeNull();
      return;
    }
    expect(got).toEqual([[key, entryReplies(fresh)]]);
    g.consumers.add(consumer);
    for (const e of fresh) if (!noAck) g.pel.set(idOf(e), { consumer });
    g.last = idOf(fresh[fresh.length - 1]!);
    return;
  }
  if (op < 87) {
    const pending = sortedIds(g.pel.keys());
    const ids = [pending[rng.nextInt(pending.length + 1)] ?? randomId(), randomId()];
    const acked = new Set(ids.filter((id) => g.pel.has(id)));
    expect(await r.xack(key, groupName, ...ids)).toBe(acked.size);
    for (const id of acked) g.pel.delete(id);
    return;
  }
  if (op < 93) {
    const pending = sortedIds(g.pel.keys());
    const ids = [pending[rng.nextInt(pending.length + 1)] ?? randomId(), randomId()];
    const want: string[] = [];
    for (const id of ids) {
      const p = g.pel.get(id);
      if (p === undefined) continue;
      if (!s.entries.some((e) => idOf(e) === id)) {
        g.pel.delete(id);
        continue;
      }
      p.consumer = consumer;
      g.consumers.add(consumer);
      want.push(id);
    }
    expect(await r.xclaim(key, groupName, consumer, 0, ...ids, 'JUSTID')).toEqual(want);
    return;
  }
  if (op < 97) {
    const pending = sortedIds(g.pel.keys());
    const owners = new Map<string, number>();
    for (const p of g.pel.values()) owners.set(p.consumer, (owners.get(p.consumer) ?? 0) + 1);
    const got = await r.xpending(key, groupName);
    if (pending.length === 0) expect(got).toEqual([0, null, null, null]);
    else {
      expect(got).toEqual([
        pending.length,
        pending[0],
        pending[pending.length - 1],
        [...owners].sort(([a], [b]) => (a < b ? -1 : 1)).map(([c, n]) => [c, String(n)]),
      ]);
    }
    return;
  }
  await checkGroups(r, key, s);
}

/** XINFO GROUPS but entries-read and lag (their own cases are in the compat suite). */
async function checkGroups(r: Redis, key: string, s: Stream): Promise<void> {
  const got = (await r.xinfo('GROUPS', key)) as unknown[][];
  const want = [...s.groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, g]) => [
      'name',
      name,
      'consumers',
      g.consumers.size,
      'pending',
      g.pel.size,
      'last-delivered-id',
      g.last,
    ]);
  expect(got.map((row) => row.slice(0, 8))).toEqual(want);
}

/** The whole state of every stream, as the model has it. */
async function checkAll(r: Redis, m: Model): Promise<void> {
  for (const key of KEYS) {
    const s = m.streams.get(key);
    if (s === undefined) {
      expect(await r.exists(key)).toBe(0);
      continue;
    }
    expect(await r.type(key)).toBe('stream');
    expect(await r.xrange(key, '-', '+')).toEqual(entryReplies(s.entries));
    await checkGroups(r, key, s);
  }
}

describe('streams and groups against a model, on disk, across restarts', () => {
  const dir = useTempDir('strata-streams-model-');

  test('random XADD/XDEL/XTRIM/XRANGE/XGROUP/XREADGROUP/XACK/XCLAIM/XPENDING, five restarts', async () => {
    const rng = new Prng(17);
    const m = new Model();
    let open: OpenServer = await openOnDir(dir());
    try {
      for (let batch = 0; batch < 6; batch++) {
        for (let i = 0; i < 400; i++) {
          await step(open.redis, m, rng);
          // Other keys push the streams' records to disk.
          if (i % 20 === 0) await open.redis.set(`xm:fill:${rng.nextInt(200)}`, 'y'.repeat(300));
        }
        await checkAll(open.redis, m);
        open.redis.disconnect();
        await open.server.close();
        open = await openOnDir(dir());
        await checkAll(open.redis, m);
      }
      const info = await open.redis.info('storage');
      expect(info).toMatch(/db0/);
    } finally {
      open.redis.disconnect();
      await open.server.close();
    }
  }, 120_000);
});
