import { describe, expect, it } from 'vitest';
import { encodeCommand, ReplyReader, ReplyWriter, RequestParser } from './index.js';

// The README's example, as it is written there.
describe('README example', () => {
  it('parses requests, writes replies and counts them', () => {
    const parser = new RequestParser();
    parser.feed(encodeCommand(['SET', 'k', 'v']));
    parser.feed(Buffer.from('PING\r\n'));
    expect(parser.take()?.map(String)).toEqual(['SET', 'k', 'v']);
    expect(parser.take()?.map(String)).toEqual(['PING']);

    const w = new ReplyWriter({ protocol: 3 });
    w.simple('OK').map(1).bulk('proto').integer(3);
    const bytes = w.flush()!;
    expect(bytes.toString()).toBe('+OK\r\n%1\r\n$5\r\nproto\r\n:3\r\n');

    const reader = new ReplyReader();
    expect(reader.feed(bytes)).toBe(2);
    expect(reader.count).toBe(2);
  });
});
