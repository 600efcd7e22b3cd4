import { describe, expect, it } from 'vitest';
import {
  formatStreamId,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  nextAutoStreamId,
  streamId,
  streamIdBig,
  streamIdHalf,
} from './stream-id.js';

const text = (id: string | null) => (id === null ? null : formatStreamId(id as never));

describe('nextAutoStreamId (XADD *)', () => {
  it('is <now>-0 past the last ms, else the next sequence, whatever the clock says', () => {
    const last = streamId(1000, 7);
    expect(text(nextAutoStreamId(last, 1001))).toBe('1001-0');
    expect(text(nextAutoStreamId(last, 1000))).toBe('1000-8');
    // A clock behind the last ID (stepped back, or the ID set by XSETID): still above it.
    expect(text(nextAutoStreamId(last, 5))).toBe('1000-8');
    expect(text(nextAutoStreamId(MIN_STREAM_ID, 0))).toBe('0-1');
    expect(text(nextAutoStreamId(MIN_STREAM_ID, 3))).toBe('3-0');
  });

  it('carries past 2^53 and 2^64 by the bytes, null after the largest ID', () => {
    const big = streamId(1000, Number.MAX_SAFE_INTEGER);
    expect(text(nextAutoStreamId(big, 1000))).toBe('1000-9007199254740992');
    const seqMax = streamIdBig(1000n, 2n ** 64n - 1n);
    expect(text(nextAutoStreamId(seqMax, 1000))).toBe('1001-0');
    const msHuge = streamIdBig(2n ** 60n, 5n);
    expect(text(nextAutoStreamId(msHuge, Date.now()))).toBe(`${2n ** 60n}-6`);
    expect(nextAutoStreamId(MAX_STREAM_ID, Date.now())).toBeNull();
  });

  it('reads the halves of the ID just made as its bytes say (the memo never answers for another ID)', () => {
    let id = streamId(1_733_000_000_000, 0);
    for (let i = 0; i < 2000; i++) {
      const now = 1_733_000_000_000 + Math.floor(i / 300);
      const next = nextAutoStreamId(id, now)!;
      expect(next > id).toBe(true);
      const [ms, seq] = formatStreamId(next).split('-').map(Number);
      expect(streamIdHalf(next, 0)).toBe(ms);
      expect(streamIdHalf(next, 8)).toBe(seq);
      // An older ID, asked after a newer one was made: its own halves.
      const [oldMs, oldSeq] = formatStreamId(id).split('-').map(Number);
      expect(streamIdHalf(id, 0)).toBe(oldMs);
      expect(streamIdHalf(id, 8)).toBe(oldSeq);
      id = next;
    }
  });
});
