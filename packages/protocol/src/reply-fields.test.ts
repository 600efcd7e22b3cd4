import { describe, expect, it } from 'vitest';
import { isNullReply, isSimpleReply, replyBulk, replyBulks, replyInteger } from './reply-fields.js';
import { ReplyWriter } from './reply-writer.js';

const written = (protocol: 2 | 3, write: (w: ReplyWriter) => void): Buffer => {
  const w = new ReplyWriter({ protocol });
  write(w);
  return w.flush() ?? Buffer.alloc(0);
};

describe('reply fields', () => {
  it('reads what ReplyWriter wrote, in both protocols', () => {
    for (const p of [2, 3] as const) {
      expect(isNullReply(written(p, (w) => w.null()))).toBe(true);
      expect(isNullReply(written(p, (w) => w.bulk(Buffer.from('-1'))))).toBe(false);
      expect(isSimpleReply(written(p, (w) => w.simple('OK')))).toBe(true);
      expect(replyInteger(written(p, (w) => w.integer(-42)))).toBe(-42);
      expect(replyInteger(written(p, (w) => w.simple('7')))).toBeNaN();
      expect(replyBulk(written(p, (w) => w.bulk(Buffer.from('a\r\nb'))))?.toString()).toBe(
        'a\r\nb',
      );
      expect(replyBulks(Buffer.from('*3\r\n$1\r\na\r\n$-1\r\n$2\r\nbc\r\n')).map(String)).toEqual([
        'a',
        'bc',
      ]);
    }
  });
});
