import { describe, expect, it } from 'vitest';
import type { RespVersion } from './limits.js';
import { ReplyEncodingError, ReplyWriter } from './reply-writer.js';

/** What `write` puts on the wire for one protocol, as a latin1 string. */
function wire(protocol: RespVersion, write: (w: ReplyWriter) => void): string {
  const w = new ReplyWriter({ protocol });
  write(w);
  return w.flush()?.toString('latin1') ?? '';
}

/** [name, writes, RESP2 bytes, RESP3 bytes], each written by hand from the RESP spec. */
const cases: ReadonlyArray<readonly [string, (w: ReplyWriter) => void, string, string]> = [
  ['simple string', (w) => w.simple('OK'), '+OK\r\n', '+OK\r\n'],
  ['simple string, one line', (w) => w.simple('a\r\nb'), '+a  b\r\n', '+a  b\r\n'],
  ['simple string bytes', (w) => w.simple(Buffer.from('PONG')), '+PONG\r\n', '+PONG\r\n'],
  [
    'error',
    (w) => w.error('ERR unknown command'),
    '-ERR unknown command\r\n',
    '-ERR unknown command\r\n',
  ],
  [
    'error with its code',
    (w) => w.error('WRONGTYPE Operation against a key holding the wrong kind of value'),
    '-WRONGTYPE Operation against a key holding the wrong kind of value\r\n',
    '-WRONGTYPE Operation against a key holding the wrong kind of value\r\n',
  ],
  ['error, one line', (w) => w.error('ERR a\nb'), '-ERR a b\r\n', '-ERR a b\r\n'],
  ['integer 0', (w) => w.integer(0), ':0\r\n', ':0\r\n'],
  ['integer -1', (w) => w.integer(-1), ':-1\r\n', ':-1\r\n'],
  ['integer 10', (w) => w.integer(10), ':10\r\n', ':10\r\n'],
  [
    'integers around the two-digit fast path',
    (w) => w.integer(9).integer(99).integer(100).integer(-99),
    ':9\r\n:99\r\n:100\r\n:-99\r\n',
    ':9\r\n:99\r\n:100\r\n:-99\r\n',
  ],
  [
    'latin1 bulk strings, short (char by char) and long (encoded), any byte',
    (w) => w.bulkLatin1('\xff\x00\r\n').bulkLatin1('x'.repeat(70)).bulkLatin1(''),
    `$4\r\n\xff\x00\r\n\r\n$70\r\n${'x'.repeat(70)}\r\n$0\r\n\r\n`,
    `$4\r\n\xff\x00\r\n\r\n$70\r\n${'x'.repeat(70)}\r\n$0\r\n\r\n`,
  ],
  [
    'integer, largest safe',
    (w) => w.integer(Number.MAX_SAFE_INTEGER),
    ':9007199254740991\r\n',
    ':9007199254740991\r\n',
  ],
  [
    'integer, 64-bit bigint',
    (w) => w.integer(-(2n ** 63n)).integer(2n ** 63n - 1n),
    ':-9223372036854775808\r\n:9223372036854775807\r\n',
    ':-9223372036854775808\r\n:9223372036854775807\r\n',
  ],
  ['bulk string', (w) => w.bulk('hello'), '$5\r\nhello\r\n', '$5\r\nhello\r\n'],
  ['empty bulk string', (w) => w.bulk(''), '$0\r\n\r\n', '$0\r\n\r\n'],
  [
    'binary bulk string',
    (w) => w.bulk(Buffer.from([0, 13, 10, 255])),
    '$4\r\n\0\r\n\xff\r\n',
    '$4\r\n\0\r\n\xff\r\n',
  ],
  ['UTF-8 bulk string', (w) => w.bulk('é'), '$2\r\n\xc3\xa9\r\n', '$2\r\n\xc3\xa9\r\n'],
  ['null', (w) => w.null(), '$-1\r\n', '_\r\n'],
  ['null array', (w) => w.nullArray(), '*-1\r\n', '_\r\n'],
  ['empty array', (w) => w.array(0), '*0\r\n', '*0\r\n'],
  [
    'array',
    (w) => w.array(3).bulk('a').integer(1).null(),
    '*3\r\n$1\r\na\r\n:1\r\n$-1\r\n',
    '*3\r\n$1\r\na\r\n:1\r\n_\r\n',
  ],
  [
    'nested array',
    (w) => w.array(2).array(1).simple('x').array(0),
    '*2\r\n*1\r\n+x\r\n*0\r\n',
    '*2\r\n*1\r\n+x\r\n*0\r\n',
  ],
  [
    'map',
    (w) => w.map(2).bulk('a').integer(1).bulk('b').integer(2),
    '*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n',
    '%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n',
  ],
  [
    'set',
    (w) => w.set(2).bulk('x').bulk('y'),
    '*2\r\n$1\r\nx\r\n$1\r\ny\r\n',
    '~2\r\n$1\r\nx\r\n$1\r\ny\r\n',
  ],
  [
    'push',
    (w) => w.push(3).bulk('message').bulk('ch').bulk('hi'),
    '*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n',
    '>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n',
  ],
  ['double', (w) => w.double(3.14), '$18\r\n3.1400000000000001\r\n', ',3.1400000000000001\r\n'],
  ['integral double', (w) => w.double(10), '$2\r\n10\r\n', ',10\r\n'],
  ['double inf', (w) => w.double(Number.NEGATIVE_INFINITY), '$4\r\n-inf\r\n', ',-inf\r\n'],
  ['double nan', (w) => w.double(Number.NaN), '$3\r\nnan\r\n', ',nan\r\n'],
  [
    'double exponent',
    (w) => w.double(1e-7),
    '$22\r\n9.9999999999999995e-08\r\n',
    ',9.9999999999999995e-08\r\n',
  ],
  ['boolean true', (w) => w.boolean(true), ':1\r\n', '#t\r\n'],
  ['boolean false', (w) => w.boolean(false), ':0\r\n', '#f\r\n'],
  [
    'big number',
    (w) => w.bigNumber(3492890328409238509324850943850943825024385n),
    '$43\r\n3492890328409238509324850943850943825024385\r\n',
    '(3492890328409238509324850943850943825024385\r\n',
  ],
  ['negative big number', (w) => w.bigNumber('-12'), '$3\r\n-12\r\n', '(-12\r\n'],
  [
    'verbatim string',
    (w) => w.verbatim('Some string'),
    '$11\r\nSome string\r\n',
    '=15\r\ntxt:Some string\r\n',
  ],
  [
    'verbatim string, short format padded',
    (w) => w.verbatim('# x', 'md'),
    '$3\r\n# x\r\n',
    '=7\r\nmd :# x\r\n',
  ],
  [
    'raw bytes',
    (w) => w.raw(Buffer.from('-ERR Protocol error: invalid bulk length\r\n')),
    '-ERR Protocol error: invalid bulk length\r\n',
    '-ERR Protocol error: invalid bulk length\r\n',
  ],
];

describe('ReplyWriter: byte-exact replies', () => {
  for (const [name, write, resp2, resp3] of cases) {
    it(name, () => {
      expect(wire(2, write)).toBe(resp2);
      expect(wire(3, write)).toBe(resp3);
    });
  }

  it('switches protocol between replies (HELLO)', () => {
    const w = new ReplyWriter();
    w.null();
    w.protocol = 3;
    w.null();
    expect(w.flush()!.toString()).toBe('$-1\r\n_\r\n');
  });

  it('bulkJoined writes two numbers and a separator as the bulk string of their text', () => {
    const w = new ReplyWriter();
    for (const [a, b] of [
      [0, 0],
      [9, 10],
      [1733200000000, 42],
      [Number.MAX_SAFE_INTEGER, 99],
    ] as const) {
      w.bulkJoined(a, 0x2d, b);
      const text = `${a}-${b}`;
      expect(w.flush()!.toString()).toBe(`$${text.length}\r\n${text}\r\n`);
    }
    // The digits of every size, at the 8-digit split and the 2^53 end, as integers too.
    for (let v = 1; v <= Number.MAX_SAFE_INTEGER; v = v * 10 + 7) {
      for (const n of [v - 1, v, 99_999_999, 100_000_000, 100_000_001, Number.MAX_SAFE_INTEGER]) {
        w.bulkJoined(n, 0x2d, n);
        w.integer(n);
        w.integer(-n);
        expect(w.flush()!.toString()).toBe(
          `$${2 * String(n).length + 1}\r\n${n}-${n}\r\n:${n}\r\n:${-n}\r\n`.replace(':-0', ':0'),
        );
      }
    }
    // The first number again, then shorter, then longer (its digits are kept between calls).
    for (const [a, b] of [
      [1733200000000, 1],
      [1733200000000, 2],
      [5, 3],
      [1733200000000, 4],
      [1733200000001, 5],
      [0, 6],
    ] as const) {
      w.bulkJoined(a, 0x2d, b);
      expect(w.flush()!.toString()).toBe(`$${`${a}-${b}`.length}\r\n${a}-${b}\r\n`);
    }
    expect(() => w.bulkJoined(2 ** 53, 0x2d, 0)).toThrow(ReplyEncodingError);
    expect(() => w.bulkJoined(1, 0x2d, -1)).toThrow(ReplyEncodingError);
    expect(() => w.bulkJoined(1.5, 0x2d, 0)).toThrow(ReplyEncodingError);
    expect(w.pendingBytes).toBe(0);
  });

  it('refuses what RESP cannot carry', () => {
    const w = new ReplyWriter();
    expect(() => w.integer(1.5)).toThrow(ReplyEncodingError);
    expect(() => w.integer(2 ** 53)).toThrow(ReplyEncodingError);
    expect(() => w.integer(2n ** 63n)).toThrow(ReplyEncodingError);
    expect(() => w.array(-1)).toThrow(ReplyEncodingError);
    expect(() => w.bigNumber('1.5')).toThrow(ReplyEncodingError);
    expect(w.pendingBytes).toBe(0);
  });
});

describe('ReplyWriter: one chunk per batch', () => {
  it('hands out a batch of replies as one chunk', () => {
    const w = new ReplyWriter();
    expect(w.flush()).toBeNull();
    w.simple('OK').bulk('v').integer(3);
    expect(w.pendingBytes).toBe(16);
    expect(w.flush()!.toString()).toBe('+OK\r\n$1\r\nv\r\n:3\r\n');
    expect(w.flush()).toBeNull();
    expect(w.pendingBytes).toBe(0);
  });

  it('never writes over a chunk it handed out', () => {
    const w = new ReplyWriter({ initialCapacity: 64 });
    w.bulk('first');
    const first = w.flush()!;
    for (let i = 0; i < 1000; i++) w.integer(i);
    const second = w.flush()!;
    w.bulk('x'.repeat(10_000));
    const third = w.flush()!;
    expect(first.toString()).toBe('$5\r\nfirst\r\n');
    expect(second.toString()).toBe(Array.from({ length: 1000 }, (_, i) => `:${i}\r\n`).join(''));
    expect(third.toString()).toBe(`$10000\r\n${'x'.repeat(10_000)}\r\n`);
  });

  it('grows by doubling for a big batch and writes small replies in place', () => {
    const w = new ReplyWriter({ initialCapacity: 64 });
    const value = Buffer.alloc(100_000, 0x61);
    w.array(2).bulk(value).bulk(value);
    const chunk = w.flush()!;
    expect(chunk.length).toBe(4 + 2 * (9 + 100_000 + 2));
    expect(chunk.buffer.byteLength).toBe(64 * 2 ** 12);
    // Small replies after it reuse the same buffer: no allocation.
    w.simple('OK');
    expect(w.flush()!.buffer).toBe(chunk.buffer);
  });

  it('writes from its start again once told its chunks have left (reuse)', () => {
    const w = new ReplyWriter({ initialCapacity: 64 });
    w.simple('one');
    const one = w.flush()!;
    w.reuse();
    w.simple('two');
    const two = w.flush()!;
    expect(two.buffer).toBe(one.buffer);
    expect(two.byteOffset).toBe(one.byteOffset);
    expect(two.toString()).toBe('+two\r\n');
    expect(w.position).toBe(12);
    // Not while a reply is pending: it stays where it is.
    w.simple('p');
    w.reuse();
    const p = w.flush()!;
    expect(p.toString()).toBe('+p\r\n');
    expect(p.byteOffset).toBe(two.byteOffset + two.length);
    // Not a buffer grown for a large reply: the next small one gets a first-size buffer.
    w.bulk('x'.repeat(200));
    const big = w.flush()!;
    w.reuse();
    w.bulk('x'.repeat(60));
    const after = w.flush()!;
    expect(big.buffer.byteLength).toBe(256);
    expect(after.buffer).not.toBe(big.buffer);
    expect(after.buffer.byteLength).toBe(64 * 2);
  });

  it('discards what was not flushed', () => {
    const w = new ReplyWriter();
    w.simple('kept');
    const kept = w.flush()!;
    w.simple('dropped');
    w.discard();
    expect(w.pendingBytes).toBe(0);
    expect(w.flush()).toBeNull();
    expect(kept.toString()).toBe('+kept\r\n');
  });
});
