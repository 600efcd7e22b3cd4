import { describe, expect, test } from 'vitest';
import { decoderFor } from './codecs.js';
import type { StreamBlockValue } from './stream-block.js';
import './stream-codec.js';
import { StreamGroup } from './stream-group.js';
import {
  formatStreamId,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  nextStreamId,
  type StreamId,
  streamId,
  streamIdBig,
} from './stream-id.js';
import {
  STREAM_BLOCK_ENTRIES,
  type StreamBlockRef,
  type StreamBlocks,
  type StreamTrim,
  StreamValue,
} from './stream-value.js';

/** Sealed blocks kept in a map by number, round-tripped through their record form. */
class MapBlocks implements StreamBlocks {
  readonly records = new Map<number, Buffer>();
  readonly gets: number[] = [];
  get(ref: StreamBlockRef): StreamBlockValue {
    this.gets.push(ref.no);
    const bytes = this.records.get(ref.no);
    if (bytes === undefined) throw new Error(`no block ${ref.no}`);
    return decoderFor(6)!(bytes) as StreamBlockValue;
  }
  sealed(ref: StreamBlockRef, block: StreamBlockValue): void {
    this.records.set(ref.no, block.encode());
  }
  changed(ref: StreamBlockRef, block: StreamBlockValue): void {
    this.records.set(ref.no, block.encode());
  }
  dropped(ref: StreamBlockRef): void {
    this.records.delete(ref.no);
  }
}

function filled(n: number, blocks = new MapBlocks()): StreamValue {
  const s = new StreamValue();
  for (let i = 1; i <= n; i++) {
    s.appendStrings(streamId(i, 0), ['f', `v${i}`]);
    s.sealIfFull(blocks);
  }
  return s;
}

function ids(
  s: StreamValue,
  blocks: StreamBlocks,
  reverse = false,
  start = MIN_STREAM_ID,
  end = MAX_STREAM_ID,
): string[] {
  const out: string[] = [];
  s.range(start, end, reverse, (b, i) => out.push(formatStreamId(b.idAt(i))) > 0, blocks);
  return out;
}

const maxlen = (maxLen: number, approx = false, limit = 0): StreamTrim => ({
  strategy: 'maxlen',
  maxLen,
  approx,
  limit,
});
const minid = (id: StreamId, approx = false): StreamTrim => ({
  strategy: 'minid',
  minId: id,
  approx,
  limit: 0,
});

const N = STREAM_BLOCK_ENTRIES;

describe('stream IDs', () => {
  test('order as numbers, print as Redis, step across the halves', () => {
    expect(streamId(2, 0) > streamId(1, 5)).toBe(true);
    expect(formatStreamId(streamIdBig((1n << 64n) - 1n, 7n))).toBe('18446744073709551615-7');
    expect(formatStreamId(nextStreamId(streamIdBig(3n, (1n << 64n) - 1n))!)).toBe('4-0');
    expect(nextStreamId(MAX_STREAM_ID)).toBeNull();
  });
});

describe('StreamValue', () => {
  test('seals full tails into block records and ranges over them both ways, bounded', () => {
    const m = new MapBlocks();
    const s = filled(N * 2 + 5, m);
    expect(s.refs.length).toBe(2);
    expect(m.records.size).toBe(2);
    expect(s.blockCount).toBe(3);
    expect(ids(s, m).length).toBe(N * 2 + 5);
    const a = N - 1;
    const want = [a, a + 1, a + 2, a + 3].map((i) => `${i}-0`);
    expect(ids(s, m, false, streamId(a, 0), streamId(a + 3, 0))).toEqual(want);
    expect(ids(s, m, true, streamId(a, 0), streamId(a + 3, 0))).toEqual(want.reverse());
    expect(s.firstId()).toBe(streamId(1, 0));
    expect(s.lastEntryId()).toBe(streamId(N * 2 + 5, 0));
  });

  test('refsFor names only the blocks a bounded range reaches', () => {
    const m = new MapBlocks();
    const s = filled(N * 4, m);
    const nos = (r: StreamBlockRef[]) => r.map((x) => x.no);
    expect(nos(s.refsFor(MIN_STREAM_ID, MAX_STREAM_ID, false, 10))).toEqual([0]);
    expect(nos(s.refsFor(streamId(N - 5, 0), MAX_STREAM_ID, false, 10))).toEqual([0, 1]);
    expect(nos(s.refsFor(MIN_STREAM_ID, MAX_STREAM_ID, true, 10))).toEqual([3]);
    expect(nos(s.refsFor(MIN_STREAM_ID, MAX_STREAM_ID, false, 0))).toEqual([0, 1, 2, 3]);
    expect(nos(s.refsFor(streamId(N + 1, 0), streamId(N + 2, 0), false, 0))).toEqual([1]);
    // A range visit touches nothing else.
    m.gets.length = 0;
    const out: StreamId[] = [];
    s.range(streamId(N - 5, 0), MAX_STREAM_ID, false, (b, i) => out.push(b.idAt(i)) < 10, m);
    expect(m.gets).toEqual([0, 1]);
    expect(
      s.refsOf([streamId(3, 0), streamId(4, 0), streamId(N * 3 + 1, 0)]).map((r) => r.no),
    ).toEqual([0, 3]);
  });

  test('exact trimming keeps the newest, approximate drops whole blocks only', () => {
    const m = new MapBlocks();
    const a = filled(N * 2 + 50, m);
    expect(a.trimPlan(maxlen(N + 20))?.no).toBe(1);
    expect(a.trim(maxlen(N + 20), m)).toBe(N + 30);
    expect(ids(a, m)[0]).toBe(`${N + 31}-0`);
    expect(m.records.size).toBe(1);
    const mb = new MapBlocks();
    const b = filled(N * 2 + 50, mb);
    expect(b.trimPlan(maxlen(20, true))).toBeNull();
    expect(b.trim(maxlen(20, true), mb)).toBe(N * 2);
    expect(b.size).toBe(50);
    expect(b.trim(maxlen(0, true), mb)).toBe(50);
    expect(b.size).toBe(0);
    const mm = new MapBlocks();
    const c = filled(N * 2 + 50, mm);
    expect(c.trim(minid(streamId(N + 150, 0)), mm)).toBe(N + 149);
    expect(c.firstId()).toBe(streamId(N + 150, 0));
    const ml = new MapBlocks();
    const d = filled(N * 3, ml);
    expect(d.trim(maxlen(0, true, N + 1), ml)).toBe(N);
  });

  test('XDEL in a sealed block rewrites it; an emptied block goes', () => {
    const m = new MapBlocks();
    const s = filled(N + 5, m);
    expect(s.delete(streamId(1, 0), m)).toBe(true);
    expect(s.delete(streamId(1, 0), m)).toBe(false);
    expect(s.refs[0]!.first).toBe(streamId(2, 0));
    const e = s.entry(streamId(2, 0), m)!;
    expect(e.block.fieldsAt(e.index)).toEqual(['f', 'v2']);
    expect(s.entry(streamId(1, 0), m)).toBeNull();
    for (let i = 2; i <= N; i++) s.delete(streamId(i, 0), m);
    expect(s.refs.length).toBe(0);
    expect(m.records.size).toBe(0);
    expect(s.size).toBe(5);
    expect(s.maxDeletedId).toBe(streamId(N, 0));
  });

  test('XDEL sets the greatest deleted ID; lag needs no tombstone ahead', () => {
    const m = new MapBlocks();
    const s = filled(5, m);
    const g = new StreamGroup('g', MIN_STREAM_ID, 0);
    s.groups.set('g', g);
    expect(s.lag(g)).toBe(5);
    expect(s.delete(streamId(3, 0), m)).toBe(true);
    expect(s.maxDeletedId).toBe(streamId(3, 0));
    expect(s.lag(g)).toBeNull();
  });

  test('the serialized head brings back references, tail, counters, groups and their PEL', () => {
    const m = new MapBlocks();
    const s = filled(N + 300, m);
    s.delete(streamId(7, 0), m);
    const g = new StreamGroup('g', streamId(4, 0), 4);
    const alice = g.consumer('alice', 1000, true)!;
    g.deliver(streamId(2, 0), alice, 1234);
    g.deliver(streamId(4, 0), alice, 1235);
    s.groups.set('g', g);
    const back = decoderFor(s.type)!(s.encode()) as StreamValue;
    expect(back.size).toBe(N + 299);
    expect(back.sid?.equals(s.sid!)).toBe(true);
    expect(back.version).toBe(s.version);
    expect(ids(back, m)).toEqual(ids(s, m));
    expect(back.maxDeletedId).toBe(s.maxDeletedId);
    expect(back.entriesAdded).toBe(N + 300);
    const bg = back.groups.get('g')!;
    expect(bg.pendingCount).toBe(2);
    expect(bg.pending(streamId(4, 0))?.deliveryTime).toBe(1235);
    expect(bg.consumers.get('alice')?.pending).toBe(2);
  });

  test('a head written before blocks (entries inline) loads into the tail and seals whole', () => {
    // Format 1: format, lastId, maxDeletedId, entriesAdded, count, entries, groups.
    const parts: Buffer[] = [Buffer.from([1])];
    const id = (x: StreamId) => Buffer.from(x, 'latin1');
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n);
      return b;
    };
    const f64 = (n: number) => {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(n);
      return b;
    };
    const str = (x: string) => Buffer.concat([u32(x.length), Buffer.from(x, 'latin1')]);
    const n = N + 10;
    parts.push(id(streamId(n, 0)), id(MIN_STREAM_ID), f64(n), u32(n));
    for (let i = 1; i <= n; i++) parts.push(id(streamId(i, 0)), u32(2), str('f'), str(`v${i}`));
    parts.push(u32(0));
    const s = decoderFor(5)!(Buffer.concat(parts)) as StreamValue;
    const m = new MapBlocks();
    expect(s.size).toBe(n);
    expect(s.refs.length).toBe(0);
    s.appendStrings(streamId(n + 1, 0), ['f', 'new']);
    s.sealIfFull(m);
    expect(s.refs.length).toBe(1);
    expect(s.refs[0]!.count).toBe(n + 1);
    expect(ids(s, m).length).toBe(n + 1);
  });
});
