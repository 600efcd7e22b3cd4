import { replyEnd } from '@strata/protocol';
import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../runner.js';
import {
  appendSummary,
  decileMarks,
  decodeReply,
  quantile,
  rangeIds,
  readIds,
  sampleIndices,
  skipReply,
  streams,
} from './streams.js';

const resp = (text: string) => Buffer.from(text.replaceAll('\n', '\r\n'), 'latin1');

describe('streams: append deciles', () => {
  it('marks the end of each tenth, the last at n', () => {
    expect(decileMarks(100)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(decileMarks(25)).toEqual([3, 5, 8, 10, 13, 15, 18, 20, 23, 25]);
  });

  it('a flat run has last_over_first 1', () => {
    const times = Array.from({ length: 10 }, (_, k) => (k + 1) * 100);
    const s = appendSummary(1000, times);
    expect(s.ops).toBeCloseTo(1000);
    expect(s.decileOps).toEqual(Array(10).fill(1000));
    expect(s.firstDecileOps).toBeCloseTo(1000);
    expect(s.lastDecileOps).toBeCloseTo(1000);
    expect(s.lastOverFirst).toBeCloseTo(1);
    expect(s.slowestOverFirst).toBeCloseTo(1);
  });

  it('larger last_over_first means the last tenth is slower', () => {
    // 100 entries per tenth: 100 ms each, but the last takes 150 ms and the fifth 300 ms.
    const per = [100, 100, 100, 100, 300, 100, 100, 100, 100, 150];
    const times = per.map((_, k) => per.slice(0, k + 1).reduce((a, b) => a + b, 0));
    const s = appendSummary(1000, times);
    expect(s.firstDecileOps).toBeCloseTo(1000);
    expect(s.lastDecileOps).toBeCloseTo(1000 / 1.5);
    expect(s.lastOverFirst).toBeCloseTo(1.5);
    expect(s.slowestOverFirst).toBeCloseTo(3);
    expect(s.ops).toBeCloseTo((1000 / 1250) * 1000);
  });

  it('wants a time per tenth', () => {
    expect(() => appendSummary(100, [1, 2, 3])).toThrow(/10 decile times/);
  });
});

describe('streams: replies', () => {
  it('decodes RESP2 replies', () => {
    expect(decodeReply(resp('+OK\n')).value).toBe('OK');
    expect(decodeReply(resp(':42\n')).value).toBe(42);
    expect(decodeReply(resp('$-1\n')).value).toBeNull();
    expect(decodeReply(resp('*-1\n')).value).toBeNull();
    expect(decodeReply(resp('-ERR nope\n')).value).toEqual({ error: 'ERR nope' });
    const arr = resp('*2\n$3\nabc\n*1\n$0\n\n');
    expect(decodeReply(arr)).toEqual({ value: ['abc', ['']], end: arr.length });
  });

  it('skipReply finds where each reply ends, as replyEnd does, and -1 on a partial one', () => {
    const replies = [
      '+OK\n',
      '-ERR unknown command\n',
      ':10\n',
      '$-1\n',
      '*-1\n',
      '$15\n1700000000000-0\n',
      '*0\n',
      '*2\n*2\n$3\n1-0\n*2\n$1\nf\n$1\nv\n*2\n$3\n2-5\n*2\n$1\nf\n$0\n\n',
    ].map(resp);
    const all = Buffer.concat(replies);
    let at = 0;
    for (const r of replies) {
      expect(skipReply(all, at)).toBe(at + r.length);
      for (let cut = 0; cut < r.length; cut++) {
        expect(skipReply(r.subarray(0, cut), 0)).toBe(-1);
      }
      expect(skipReply(r, 0)).toBe(replyEnd(r, 0));
      at += r.length;
    }
    expect(() => skipReply(resp('?x\n'), 0)).toThrow(/not a RESP2 reply/);
  });

  it('reads the ids of an XRANGE reply', () => {
    const r = resp('*2\n*2\n$3\n1-0\n*2\n$1\nf\n$1\nv\n*2\n$3\n2-5\n*2\n$1\nf\n$1\nw\n');
    expect(rangeIds(decodeReply(r).value)).toEqual(['1-0', '2-5']);
    expect(rangeIds(decodeReply(resp('*0\n')).value)).toEqual([]);
    expect(() => rangeIds(decodeReply(resp(':1\n')).value)).toThrow(/not an XRANGE reply/);
  });

  it('reads the ids of an XREADGROUP reply, every key, nil as none', () => {
    const r = resp(
      '*2\n*2\n$1\na\n*1\n*2\n$3\n1-0\n*2\n$1\nf\n$1\nv\n*2\n$1\nb\n*1\n*2\n$3\n7-1\n*2\n$1\nf\n$1\nv\n',
    );
    expect(readIds(decodeReply(r).value)).toEqual(['1-0', '7-1']);
    expect(readIds(decodeReply(resp('*-1\n')).value)).toEqual([]);
  });
});

describe('streams: helpers', () => {
  it('quantile takes the nearest rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(xs, 0.5)).toBe(51);
    expect(quantile(xs, 0.99)).toBe(100);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('samples distinct indices below the bound, ascending', () => {
    const s = sampleIndices(1000, 50);
    expect(s).toHaveLength(50);
    expect(new Set(s).size).toBe(50);
    expect([...s].sort((a, b) => a - b)).toEqual(s);
    for (const i of s) expect(i >= 0 && i < 1000).toBe(true);
    expect(sampleIndices(3, 10)).toEqual([0, 1, 2]);
  });
});

describe('streams: variants', () => {
  it('runs every case on strata, and the big stream on strata at full size', () => {
    const full = resolveScenario(streams, streams.params.full);
    const names = full.variants.map((v) => v.name);
    for (const c of ['xadd', 'xadd-maxlen', 'xrange10', 'xrange100', 'xreadgroup-ack']) {
      expect(names).toContain(`strata-${c}`);
    }
    expect(names).toContain('strata-big-xrange100');
    expect(names).not.toContain('redis-big-xrange100');
    expect(full.variants.find((v) => v.name === 'strata-big-xrange100')!.higherIsBetter).toBe(
      false,
    );
    expect(streams.params.full.bigEntries).toBe(20_000_000);
    expect(streams.params.full.bigMemory).toBe(64 * 1024 * 1024);
  });
});
