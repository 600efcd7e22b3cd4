import { describe, expect, it } from 'vitest';
import { MalformedReplyError, ReplyReader, replyEnd } from './reply-reader.js';

describe('replyEnd / ReplyReader', () => {
  it('finds where nested RESP3 replies end, and waits for a split one', () => {
    const r = Buffer.from('%1\r\n+a\r\n*2\r\n$3\r\nxyz\r\n_\r\n|1\r\n+k\r\n:1\r\n#t\r\n');
    const first = replyEnd(r, 0);
    expect(r.subarray(0, first).toString()).toBe('%1\r\n+a\r\n*2\r\n$3\r\nxyz\r\n_\r\n');
    expect(replyEnd(r, first)).toBe(r.length); // an attribute belongs to the value after it
    for (let cut = 1; cut < first; cut++) expect(replyEnd(r.subarray(0, cut), 0)).toBe(-1);
  });

  it('counts replies fed in pieces and keeps the last', () => {
    const seen: string[] = [];
    const reader = new ReplyReader((reply) => seen.push(reply.toString()));
    const stream = Buffer.from(':1\r\n$5\r\nhello\r\n-ERR no\r\n');
    let n = 0;
    for (let i = 0; i < stream.length; i += 3) n += reader.feed(stream.subarray(i, i + 3));
    expect(n).toBe(3);
    expect(seen).toEqual([':1\r\n', '$5\r\nhello\r\n', '-ERR no\r\n']);
    expect(reader.last.toString()).toBe('-ERR no\r\n');
    expect(reader.partialBytes).toBe(0);
  });

  it('throws a coded error on bytes that are not a reply', () => {
    expect(() => replyEnd(Buffer.from('?x\r\n'), 0)).toThrow(MalformedReplyError);
    try {
      replyEnd(Buffer.from('$3\r\nabcd\r\n'), 0);
    } catch (e) {
      expect((e as MalformedReplyError).code).toBe('ERR_MALFORMED_REPLY');
    }
  });
});
