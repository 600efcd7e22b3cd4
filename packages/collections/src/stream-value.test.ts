import { describe, expect, test } from 'vitest';
import { decoderFor } from './codecs.js';
import './stream-codec.js';
import { StreamGroup } from './stream-group.js';
import {
  formatStreamId,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  nextStreamId,
  streamId,
  streamIdBig,
} from './stream-id.js';
import { STREAM_BLOCK_ENTRIES, StreamValue } from './stream-value.js';

function filled(n: number): StreamValue {
  const s = new StreamValue();
  for (let i = 1; i <= n; i++) s.append(streamId(i, 0), ['f', `v${i}`]);
  return s;
}

function ids(
  s: StreamValue,
  reverse = false,
  start = MIN_STREAM_ID,
  end = MAX_STREAM_ID,
): string[] {
  const out: string[] = [];
  s.range(start, end, reverse, (id) => {
    out.push(formatStreamId(id));
    return true;
  });
  return out;
}

describe('stream IDs', () => {
  test('order as numbers, print as Redis, step across the halves', () => {
    expect(streamId(2, 0) > streamId(1, 5)).toBe(true);
    expect(formatStreamId(streamIdBig((1n << 64n) - 1n, 7n))).toBe('18446744073709551615-7');
    expect(formatStreamId(nextStreamId(streamIdBig(3n, (1n << 64n) - 1n))!)).toBe('4-0');
    expect(nextStreamId(MAX_STREAM_ID)).toBeNull();
  });
});

describe('StreamValue', () => {
  test('ranges over blocks both ways, bounded', () => {
    const s = filled(STREAM_BLOCK_ENTRIES * 2 + 5);
    expect(s.allBlocks.length).toBe(3);
    expect(ids(s).length).toBe(205);
    expect(ids(s, false, streamId(99, 0), streamId(102, 0))).toEqual([
      '99-0',
      '100-0',
      '101-0',
      '102-0',
    ]);
    expect(ids(s, true, streamId(99, 0), streamId(102, 0))).toEqual([
      '102-0',
      '101-0',
      '100-0',
      '99-0',
    ]);
  });

  test('exact trimming keeps the newest, approximate drops whole blocks only', () => {
    const a = filled(250);
    expect(a.trimMaxLen(120, false, 0)).toBe(130);
    expect(ids(a)[0]).toBe('131-0');
    const b = filled(250);
    expect(b.trimMaxLen(120, true, 0)).toBe(100);
    const m = filled(250);
    expect(m.trimMinId(streamId(150, 0), false, 0)).toBe(149);
    expect(m.firstId()).toBe(streamId(150, 0));
  });

  test('XDEL sets the greatest deleted ID; lag needs no tombstone ahead', () => {
    const s = filled(5);
    const g = new StreamGroup('g', MIN_STREAM_ID, 0);
    s.groups.set('g', g);
    expect(s.lag(g)).toBe(5);
    expect(s.delete(streamId(3, 0))).toBe(true);
    expect(s.maxDeletedId).toBe(streamId(3, 0));
    expect(s.lag(g)).toBeNull();
  });

  test('the serialized form brings back entries, counters, groups and their PEL', () => {
    const s = filled(300);
    s.delete(streamId(7, 0));
    const g = new StreamGroup('g', streamId(4, 0), 4);
    const alice = g.consumer('alice', 1000, true)!;
    g.deliver(streamId(2, 0), alice, 1234);
    g.deliver(streamId(4, 0), alice, 1235);
    s.groups.set('g', g);
    const back = decoderFor(s.type)!(s.encode()) as StreamValue;
    expect(back.size).toBe(299);
    expect(ids(back)).toEqual(ids(s));
    expect(back.maxDeletedId).toBe(s.maxDeletedId);
    expect(back.entriesAdded).toBe(300);
    const bg = back.groups.get('g')!;
    expect(bg.pendingCount).toBe(2);
    expect(bg.pending(streamId(4, 0))?.deliveryTime).toBe(1235);
    expect(bg.consumers.get('alice')?.pending).toBe(2);
  });
});
