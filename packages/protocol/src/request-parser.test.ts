import { describe, expect, it } from 'vitest';
import { encodeCommand } from './encode-command.js';
import { DEFAULT_PROTO_MAX_BULK_LEN, PROTO_INLINE_MAX_SIZE } from './limits.js';
import type { ProtocolErrorCode } from './protocol-error.js';
import {
  ARGUMENT_OBJECT_BYTES,
  ARGUMENT_SLOT_BYTES,
  type ParsedCommand,
  type ParseResult,
  RequestParser,
  type RequestParserOptions,
} from './request-parser.js';

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

interface Outcome {
  /** Each command's arguments, as latin1 strings. */
  commands: string[][];
  /** The protocol error's message, if the stream ended in one. */
  error?: string;
  code?: ProtocolErrorCode;
}

/** Feed `chunks` one by one, draining commands after each, as a server does. */
function run(chunks: readonly Uint8Array[], options?: RequestParserOptions): Outcome {
  const parser = new RequestParser(options);
  const outcome: Outcome = { commands: [] };
  for (const chunk of chunks) {
    parser.feed(chunk);
    for (;;) {
      const r = parser.next();
      if (r.kind === 'need-more') break;
      if (r.kind === 'error') {
        outcome.error = r.message;
        outcome.code = r.code;
        expect(r.reply.toString('latin1')).toBe(`-${r.message}\r\n`);
        return outcome;
      }
      outcome.commands.push(r.argv.map((a) => a.toString('latin1')));
    }
  }
  return outcome;
}

/** `stream` cut at the given offsets. */
function cut(stream: Buffer, offsets: readonly number[]): Buffer[] {
  const sorted = [...offsets].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const at of sorted) {
    if (at > from) chunks.push(stream.subarray(from, at));
    from = Math.max(from, at);
  }
  chunks.push(stream.subarray(from));
  return chunks;
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random pipeline of multibulk and inline commands, and the argv each must give. */
function randomStream(rand: () => number, count: number, maxArg: number) {
  const parts: Buffer[] = [];
  const expected: string[][] = [];
  const pick = (s: string) => s[Math.floor(rand() * s.length)]!;
  for (let c = 0; c < count; c++) {
    if (rand() < 0.7) {
      const argc = 1 + Math.floor(rand() * 4);
      const argv: string[] = [];
      for (let i = 0; i < argc; i++) {
        const len = Math.floor(rand() * maxArg);
        let arg = '';
        // Bytes that would confuse a lax parser: CR, LF, NUL, '$', '*'.
        for (let j = 0; j < len; j++) arg += pick('ab\r\n\0$*"\' \xff');
        argv.push(arg);
      }
      parts.push(encodeCommand(argv.map(latin1)));
      expected.push(argv);
    } else {
      const words = ['GET', 'key', 'a1', 'zz9'].slice(0, 1 + Math.floor(rand() * 4));
      let line = words.join(rand() < 0.5 ? ' ' : ' \t ');
      const argv = [...words];
      if (rand() < 0.5) {
        line += ' "q\\n\\x41 \'x\'"';
        argv.push("q\nA 'x'");
      }
      if (rand() < 0.3) {
        // Blank lines between commands are skipped.
        line = `\r\n  ${line}`;
      }
      parts.push(latin1(line + (rand() < 0.5 ? '\r\n' : '\n')));
      expected.push(argv);
    }
  }
  return { stream: Buffer.concat(parts), expected };
}

describe('RequestParser: commands', () => {
  it('parses a multibulk command, binary safe, with views into the chunk', () => {
    const chunk = encodeCommand(['SET', 'key', Buffer.from([0, 13, 10, 0xff])]);
    const parser = new RequestParser();
    parser.feed(chunk);
    const r = parser.next() as ParsedCommand;
    expect(r.kind).toBe('command');
    expect(r.inline).toBe(false);
    expect(r.argv.map((a) => a.toString('latin1'))).toEqual(['SET', 'key', '\0\r\n\xff']);
    // The arguments are views; the name may be a cached copy (shared between commands).
    for (const arg of r.argv.slice(1)) expect(arg.buffer).toBe(chunk.buffer);
    expect(parser.next().kind).toBe('need-more');
    expect(parser.bufferedBytes).toBe(0);
  });

  it('hands out one Buffer for a command name that repeats, and never mixes names up', () => {
    const names = ['GET', 'SET', 'get', 'GET', 'SETEX', 'SET', 'DEL', 'GET'];
    const extra = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'];
    const all = [...names, ...extra, ...names];
    const stream = Buffer.concat(all.map((n) => encodeCommand([n, 'k'])));
    const parser = new RequestParser();
    parser.feed(stream);
    const got: Buffer[] = [];
    for (;;) {
      const argv = parser.take();
      if (argv === null) break;
      expect(argv[1]!.toString()).toBe('k');
      got.push(argv[0]!);
    }
    expect(parser.error).toBeNull();
    expect(got.map((b) => b.toString('latin1'))).toEqual(all);
    // Within the first 8 names: the same bytes give the same Buffer, other bytes another.
    expect(got[3]).toBe(got[0]);
    expect(got[5]).toBe(got[1]);
    expect(got[2]).not.toBe(got[0]);
    // Shared names are copies: they do not keep the chunk they came from.
    const name = got[0]!;
    const inStream =
      name.buffer === stream.buffer &&
      name.byteOffset >= stream.byteOffset &&
      name.byteOffset < stream.byteOffset + stream.length;
    expect(inStream).toBe(false);
  });

  it('hands out one shared Buffer per byte value for one-byte arguments, never mixing bytes up', () => {
    const bytes = Array.from({ length: 256 }, (_, i) => i);
    const stream = Buffer.concat([
      ...bytes.map((b) => encodeCommand(['XADD', 'key', Buffer.of(b), 'ab'])),
      ...bytes.map((b) => encodeCommand(['XADD', 'key', Buffer.of(b), 'ab'])),
    ]);
    const parser = new RequestParser();
    parser.feed(stream);
    const got: Buffer[][] = [];
    for (;;) {
      const argv = parser.take();
      if (argv === null) break;
      got.push([...argv]);
    }
    expect(parser.error).toBeNull();
    expect(got).toHaveLength(512);
    for (let i = 0; i < 512; i++) {
      const argv = got[i]!;
      expect([...argv[2]!]).toEqual([i % 256]);
      expect(argv[1]!.toString()).toBe('key');
      expect(argv[3]!.toString()).toBe('ab');
      // The same byte again: the same Buffer; a longer argument stays a view of the chunk.
      expect(argv[2]).toBe(got[i % 256]![2]);
      expect(argv[3]!.buffer).toBe(stream.buffer);
    }
  });

  it('parses into a recycled arguments array of the same length, a new one otherwise', () => {
    const parser = new RequestParser();
    parser.feed(
      Buffer.concat([
        encodeCommand(['GET', 'a']),
        encodeCommand(['GET', 'b']),
        encodeCommand(['SET', 'c', 'v']),
        encodeCommand(['GET', 'd']),
      ]),
    );
    const first = parser.take()!;
    parser.recycle(first);
    const second = parser.take()!;
    expect(second).toBe(first);
    expect(second.map((a) => a.toString())).toEqual(['GET', 'b']);
    parser.recycle(second);
    const third = parser.take()!;
    expect(third).not.toBe(second);
    expect(third.map((a) => a.toString())).toEqual(['SET', 'c', 'v']);
    // The spare waited for a command of its length; then it is gone.
    const fourth = parser.take()!;
    expect(fourth).toBe(second);
    expect(fourth.map((a) => a.toString())).toEqual(['GET', 'd']);
    parser.feed(encodeCommand(['GET', 'e']));
    const fifth = parser.take()!;
    expect(fifth).not.toBe(fourth);
    expect(fifth.map((a) => a.toString())).toEqual(['GET', 'e']);
  });

  it('keeps several recycled arrays per length (a batch parsed ahead hands back many)', () => {
    const parser = new RequestParser();
    const gets = Array.from({ length: 6 }, (_, i) => encodeCommand(['GET', `k${i}`]));
    parser.feed(Buffer.concat([...gets.slice(0, 3), encodeCommand(['SET', 'x', 'y'])]));
    const batch = [parser.take()!, parser.take()!, parser.take()!];
    const set = parser.take()!;
    for (const argv of batch) parser.recycle(argv);
    parser.recycle(set);
    parser.feed(Buffer.concat([...gets.slice(3), encodeCommand(['SET', 'z', 'w'])]));
    const again = [parser.take()!, parser.take()!, parser.take()!];
    expect(new Set(again)).toEqual(new Set(batch));
    expect(again.map((a) => a[1]!.toString())).toEqual(['k3', 'k4', 'k5']);
    const set2 = parser.take()!;
    expect(set2).toBe(set);
    expect(set2.map((a) => a.toString())).toEqual(['SET', 'z', 'w']);
  });

  it('parses later commands of other argument lengths into recycled arrays; arrays kept are untouched', () => {
    const parser = new RequestParser();
    const long = 'v'.repeat(100);
    parser.feed(
      Buffer.concat([
        encodeCommand(['SET', 'k1', long]),
        encodeCommand(['SET', 'k2', 'x']),
        encodeCommand(['GET', 'kept']),
      ]),
    );
    const a = parser.take()!;
    const b = parser.take()!;
    const kept = parser.take()!;
    parser.recycle(a);
    parser.recycle(b);
    const rounds = [
      ['SET', 'key-3', 'y'],
      ['SET', 'k4', long.toUpperCase()],
      ['SET', 'key-5', 'z'],
      ['SET', 'k6', 'w'],
    ];
    for (const cmd of rounds) {
      parser.feed(encodeCommand(cmd));
      const argv = parser.take()!;
      expect(argv.map((x) => x.toString())).toEqual(cmd);
      parser.recycle(argv);
    }
    // The GET not handed back still holds its own key.
    expect(kept.map((x) => x.toString())).toEqual(['GET', 'kept']);
  });

  it('take() returns the arguments, null when it needs more, null and error when invalid', () => {
    const parser = new RequestParser();
    parser.feed(Buffer.from('*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n*1\r\n$4\r\nPI'));
    expect(parser.take()?.map((a) => a.toString())).toEqual(['ECHO', 'hi']);
    expect(parser.take()).toBeNull();
    expect(parser.error).toBeNull();
    parser.feed(Buffer.from('NG\r\nPING x\r\n*1\r\nx\r\n'));
    expect(parser.take()?.map((a) => a.toString())).toEqual(['PING']);
    expect(parser.take()?.map((a) => a.toString())).toEqual(['PING', 'x']);
    expect(parser.take()).toBeNull();
    expect(parser.error?.message).toBe("ERR Protocol error: expected '$', got 'x'");
    expect(parser.next()).toBe(parser.error);
  });

  it('parses inline commands with Redis quoting', () => {
    const r = run([latin1('SET k "a b\\x21" \'c\'\r\nPING\nECHO  x \r\n')]);
    expect(r).toEqual({ commands: [['SET', 'k', 'a b!', 'c'], ['PING'], ['ECHO', 'x']] });
  });

  it('gives pipelined commands in order, several per chunk', () => {
    const stream = Buffer.concat([
      encodeCommand(['SET', 'k1', 'xyzk']),
      latin1('GET k1\r\n'),
      encodeCommand(['PING']),
    ]);
    expect(run([stream]).commands).toEqual([['SET', 'k1', 'xyzk'], ['GET', 'k1'], ['PING']]);
  });

  it('skips empty requests, as Redis resets the client for them', () => {
    const stream = latin1('*0\r\n*-1\r\n\r\n\n   \t \r\n*-9223372036854775808\r\nPING\r\n');
    expect(run([stream]).commands).toEqual([['PING']]);
  });

  it('skips the two bytes after a bulk and after a count line unread, as Redis does', () => {
    expect(run([latin1('*1\r\n$4\r\nPINGxy*1\rX$4\r\nECHO\r\n')]).commands).toEqual([
      ['PING'],
      ['ECHO'],
    ]);
  });

  it('accepts Uint8Array chunks', () => {
    const bytes = new Uint8Array(encodeCommand(['PING']));
    expect(run([bytes]).commands).toEqual([['PING']]);
  });

  it('gives the commands before a protocol error first', () => {
    const r = run([latin1('PING\r\n*1\r\n$4\r\nECHO\r\n*1\r\nx\r\nPING\r\n')]);
    expect(r.commands).toEqual([['PING'], ['ECHO']]);
    expect(r.error).toBe("ERR Protocol error: expected '$', got 'x'");
  });
});

describe('RequestParser: any split gives the same commands', () => {
  const rand = prng(7);
  const { stream, expected } = randomStream(rand, 40, 12);

  it('at every single split point', () => {
    expect(run([stream]).commands).toEqual(expected);
    for (let at = 1; at < stream.length; at++) {
      const r = run(cut(stream, [at]));
      if (r.error !== undefined || r.commands.length !== expected.length) {
        throw new Error(`split at ${at}: ${JSON.stringify(r).slice(0, 200)}`);
      }
      expect(r.commands).toEqual(expected);
    }
  });

  it('one byte at a time', () => {
    expect(
      run(
        cut(
          stream,
          Array.from({ length: stream.length }, (_, i) => i),
        ),
      ).commands,
    ).toEqual(expected);
  });

  it('at random split points, with big arguments', () => {
    const big = randomStream(prng(11), 30, 40_000);
    for (let round = 0; round < 60; round++) {
      const n = 1 + Math.floor(rand() * 40);
      const offsets = Array.from({ length: n }, () => Math.floor(rand() * big.stream.length));
      expect(run(cut(big.stream, offsets)).commands).toEqual(big.expected);
    }
  });

  it('copies a bulk only when it spans chunks', () => {
    const stream = encodeCommand(['SET', 'key', 'value']);
    const splitAt = stream.indexOf('value') + 2;
    const first = stream.subarray(0, splitAt);
    const parser = new RequestParser();
    parser.feed(first);
    expect(parser.next().kind).toBe('need-more');
    parser.feed(stream.subarray(splitAt));
    const r = parser.next() as ParsedCommand;
    expect(r.argv.map(String)).toEqual(['SET', 'key', 'value']);
    expect(r.argv[1]!.buffer).toBe(stream.buffer);
    expect(r.argv[2]!.byteOffset === stream.byteOffset + splitAt - 2).toBe(false);
    // The copy is its own memory: changing the chunk does not change it.
    stream[splitAt - 2] = 0x56;
    expect(r.argv[2]!.toString()).toBe('value');
  });
});

/** [what, input, error message] */
const invalid: ReadonlyArray<readonly [string, string, string]> = [
  ['a count that is not a number', '*abc\r\n', 'ERR Protocol error: invalid multibulk length'],
  ['a count with a plus sign', '*+1\r\n', 'ERR Protocol error: invalid multibulk length'],
  ['a count with a leading zero', '*01\r\n', 'ERR Protocol error: invalid multibulk length'],
  ['a count with a space', '*1 \r\n', 'ERR Protocol error: invalid multibulk length'],
  ['an empty count', '*\r\n', 'ERR Protocol error: invalid multibulk length'],
  ['a count over INT_MAX', '*2147483648\r\n', 'ERR Protocol error: invalid multibulk length'],
  [
    'a count past 64 bits',
    '*-9223372036854775809\r\n',
    'ERR Protocol error: invalid multibulk length',
  ],
  ['a bare argument', '*1\r\nPING\r\n', "ERR Protocol error: expected '$', got 'P'"],
  ['an empty argument line', '*1\r\n\r\n', "ERR Protocol error: expected '$', got ' '"],
  ['LF where $ belongs', '*1\r\n\n\r\n', "ERR Protocol error: expected '$', got ' '"],
  [
    'a second argument that is not a bulk',
    '*2\r\n$1\r\na\r\n:1\r\n',
    "ERR Protocol error: expected '$', got ':'",
  ],
  ['a negative bulk length', '*1\r\n$-1\r\n', 'ERR Protocol error: invalid bulk length'],
  ['a bulk length that is not a number', '*1\r\n$x\r\n', 'ERR Protocol error: invalid bulk length'],
  ['an empty bulk length', '*1\r\n$\r\n', 'ERR Protocol error: invalid bulk length'],
  [
    'a bulk over proto-max-bulk-len',
    `*1\r\n$${DEFAULT_PROTO_MAX_BULK_LEN + 1}\r\n`,
    'ERR Protocol error: invalid bulk length',
  ],
  [
    'a bulk length past 64 bits',
    '*1\r\n$18446744073709551616\r\n',
    'ERR Protocol error: invalid bulk length',
  ],
  ['unbalanced double quotes', 'ECHO "a\n', 'ERR Protocol error: unbalanced quotes in request'],
  ['unbalanced single quotes', "ECHO 'a\r\n", 'ERR Protocol error: unbalanced quotes in request'],
  [
    'text after a closing double quote',
    'ECHO "a"x\n',
    'ERR Protocol error: unbalanced quotes in request',
  ],
  [
    'text after a closing single quote',
    "ECHO 'a'x\n",
    'ERR Protocol error: unbalanced quotes in request',
  ],
  [
    'an escaped closing double quote',
    'ECHO "a\\"\n',
    'ERR Protocol error: unbalanced quotes in request',
  ],
  [
    'an escaped closing single quote',
    "ECHO 'a\\'\n",
    'ERR Protocol error: unbalanced quotes in request',
  ],
];

describe('RequestParser: protocol errors, in Redis words', () => {
  for (const [what, input, message] of invalid) {
    it(`${what}: ${message}`, () => {
      const stream = latin1(input);
      expect(run([stream]).error).toBe(message);
      // The same error wherever the input is cut.
      for (let at = 1; at < stream.length; at++) {
        expect(run(cut(stream, [at])).error, `split at ${at}`).toBe(message);
      }
    });
  }

  it('quotes the byte it got exactly, even outside ASCII', () => {
    const parser = new RequestParser();
    parser.feed(latin1('*1\r\n\xff\r\n'));
    const r = parser.next();
    expect(r.kind).toBe('error');
    if (r.kind !== 'error') return;
    expect(r.code).toBe('ERR_PROTO_EXPECTED_DOLLAR');
    expect([...r.reply]).toEqual([...latin1("-ERR Protocol error: expected '$', got '\xff'\r\n")]);
  });

  it('accepts the largest counts and lengths it must', () => {
    expect(run([latin1('*2147483647\r\n')])).toEqual({ commands: [] });
    expect(run([latin1(`*1\r\n$${DEFAULT_PROTO_MAX_BULK_LEN}\r\n`)])).toEqual({ commands: [] });
  });

  it('applies a configured proto-max-bulk-len', () => {
    const stream = encodeCommand(['SET', 'k', 'x'.repeat(2000)]);
    expect(run([stream], { maxBulkLength: 1999 }).error).toBe(
      'ERR Protocol error: invalid bulk length',
    );
    expect(run([stream], { maxBulkLength: 2000 }).commands).toHaveLength(1);
    const parser = new RequestParser({ maxBulkLength: 1999 });
    parser.maxBulkLength = 2000;
    parser.feed(stream);
    expect(parser.next().kind).toBe('command');
  });

  it('stops for good after an error', () => {
    const parser = new RequestParser();
    parser.feed(latin1('*x\r\n'));
    const error = parser.next();
    parser.feed(encodeCommand(['PING']));
    expect(parser.next()).toBe(error);
    expect(parser.bufferedBytes).toBe(0);
  });
});

describe('RequestParser: lines without an end', () => {
  const noEnd = (first: string, fill: string, n: number) => latin1(first + fill.repeat(n));

  it('too big inline request past 64 KB without a newline', () => {
    expect(run([noEnd('', 'x', PROTO_INLINE_MAX_SIZE)])).toEqual({ commands: [] });
    expect(run([noEnd('', 'x', PROTO_INLINE_MAX_SIZE + 1)]).error).toBe(
      'ERR Protocol error: too big inline request',
    );
  });

  it('too big mbulk count string past 64 KB without a \\r', () => {
    expect(run([noEnd('*', '1', PROTO_INLINE_MAX_SIZE - 1)])).toEqual({ commands: [] });
    expect(run([noEnd('*', '1', PROTO_INLINE_MAX_SIZE)]).error).toBe(
      'ERR Protocol error: too big mbulk count string',
    );
  });

  it('too big bulk count string past 64 KB without a \\r', () => {
    const head = '*1\r\n$';
    expect(run([noEnd(head, '1', PROTO_INLINE_MAX_SIZE - 1)])).toEqual({ commands: [] });
    expect(run([noEnd(head, '1', PROTO_INLINE_MAX_SIZE)]).error).toBe(
      'ERR Protocol error: too big bulk count string',
    );
  });

  it('counts what arrives in many chunks toward the limit', () => {
    const chunks = Array.from({ length: 65 }, () => latin1('x'.repeat(1024)));
    expect(run(chunks).error).toBe('ERR Protocol error: too big inline request');
    const counts = [latin1('*'), ...Array.from({ length: 64 }, () => latin1('1'.repeat(1024)))];
    expect(run(counts).error).toBe('ERR Protocol error: too big mbulk count string');
  });

  it('lets a line longer than 64 KB through when its end is already buffered', () => {
    // Redis searches the whole query buffer: a terminator found is no error,
    // however far, and the long count is then simply invalid.
    const long = noEnd('*', '0', PROTO_INLINE_MAX_SIZE);
    expect(run([Buffer.concat([long, latin1('\r')])])).toEqual({ commands: [] });
    expect(run([Buffer.concat([long, latin1('\r\n')])]).error).toBe(
      'ERR Protocol error: invalid multibulk length',
    );
    const inline = latin1(`ECHO ${'y'.repeat(PROTO_INLINE_MAX_SIZE)}\r\n`);
    expect(run([inline]).commands[0]![1]!.length).toBe(PROTO_INLINE_MAX_SIZE);
  });

  it('never ends a line after a 0 byte, as strchr stops there', () => {
    expect(run([latin1('PING\0\r\n')])).toEqual({ commands: [] });
    expect(run([latin1('*1\r\n$4\0\r\nPING\r\n')])).toEqual({ commands: [] });
    const pad = 'A\r\n'.repeat(PROTO_INLINE_MAX_SIZE / 3);
    expect(run([latin1(`PING\0\n${pad}`)]).error).toBe(
      'ERR Protocol error: too big inline request',
    );
    expect(run([latin1(`*1\r\n$4\0\r\n${pad}`)]).error).toBe(
      'ERR Protocol error: too big bulk count string',
    );
    // The same when the bytes come in pieces.
    const pieces = cut(latin1(`*1\r\n$4\0\r\n${pad}`), [3, 7, 8, 100, 40_000]);
    expect(run(pieces).error).toBe('ERR Protocol error: too big bulk count string');
  });
});

describe('RequestParser: clients that have not authenticated', () => {
  const auth = { authRequired: true };

  it('refuses more than 10 arguments and bulks over 16 KB', () => {
    expect(run([latin1('*11\r\n')], auth).error).toBe(
      'ERR Protocol error: unauthenticated multibulk length',
    );
    expect(run([latin1('*1\r\n$16385\r\n')], auth).error).toBe(
      'ERR Protocol error: unauthenticated bulk length',
    );
    const ten = encodeCommand(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']);
    expect(run([ten], auth).commands).toHaveLength(1);
    expect(run([encodeCommand(['x'.repeat(16384)])], auth).commands).toHaveLength(1);
  });

  it('reports an invalid length as invalid first', () => {
    expect(run([latin1('*3000000000\r\n')], auth).error).toBe(
      'ERR Protocol error: invalid multibulk length',
    );
    expect(run([latin1('*1\r\n$-1\r\n')], auth).error).toBe(
      'ERR Protocol error: invalid bulk length',
    );
  });

  it('puts no cap on inline commands', () => {
    expect(run([latin1('a b c d e f g h i j k l\r\n')], auth).commands[0]).toHaveLength(12);
  });

  it('lifts the caps once the client has authenticated', () => {
    const parser = new RequestParser(auth);
    parser.feed(encodeCommand(['AUTH', 'pw']));
    expect(parser.next().kind).toBe('command');
    parser.authRequired = false;
    parser.feed(encodeCommand(['MSET', 'a', '1', 'b', '2', 'c', '3', 'd', '4', 'e', '5']));
    parser.feed(encodeCommand(['SET', 'k', 'v'.repeat(16385)]));
    expect(parser.next().kind).toBe('command');
    expect(parser.next().kind).toBe('command');
  });
});

/** What an argument costs beyond its bytes while its command is still arriving. */
const ARGUMENT = ARGUMENT_SLOT_BYTES + ARGUMENT_OBJECT_BYTES;

describe('RequestParser: memory', () => {
  it('reserves nothing for a huge announced bulk, holding only what arrives', () => {
    const before = process.memoryUsage().arrayBuffers;
    const parsers: RequestParser[] = [];
    for (let i = 0; i < 8; i++) {
      const parser = new RequestParser();
      parser.feed(latin1(`*2\r\n$3\r\nSET\r\n$${DEFAULT_PROTO_MAX_BULK_LEN}\r\n`));
      parser.feed(Buffer.alloc(1024, 0x61));
      expect(parser.next().kind).toBe('need-more');
      expect(parser.bufferedBytes).toBe(ARGUMENT + 3 + 1024);
      parsers.push(parser);
    }
    // Eight 512 MB bulks announced; a few KB held.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    expect(parsers).toHaveLength(8);
  });

  it('assembles a bulk fed in many chunks once, at its exact size', () => {
    const value = Buffer.alloc(1_000_000, 0x62);
    const stream = encodeCommand(['SET', 'k', value]);
    const parser = new RequestParser();
    let result: ParsedCommand | undefined;
    for (let at = 0; at < stream.length; at += 65536) {
      parser.feed(stream.subarray(at, at + 65536));
      const r = parser.next();
      if (r.kind === 'command') result = r;
      else expect(r.kind).toBe('need-more');
      if (result === undefined) {
        expect(parser.bufferedBytes).toBeLessThanOrEqual(at + 65536 + 2 * ARGUMENT);
      }
    }
    const arg = result?.argv[2] ?? Buffer.alloc(0);
    expect(arg.equals(value)).toBe(true);
    expect(arg.buffer.byteLength).toBe(value.length);
    expect(parser.bufferedBytes).toBe(0);
  });

  it('reports the bytes it holds: unparsed input and the arguments so far', () => {
    const parser = new RequestParser();
    parser.feed(latin1('*2\r\n$3\r\nGET\r\n$3\r\nke'));
    expect(parser.next().kind).toBe('need-more');
    expect(parser.bufferedBytes).toBe(ARGUMENT + 3 + 2);
    expect(parser.argvMemory).toBe(ARGUMENT + 3);
    parser.feed(latin1('y\r\nPIN'));
    expect(parser.next().kind).toBe('command');
    expect(parser.next().kind).toBe('need-more');
    expect(parser.bufferedBytes).toBe(3);
  });
});

describe('RequestParser: hostile sizes (issue 22)', () => {
  it('gives every empty argument one shared Buffer: a flood of them costs their slots only', () => {
    const parser = new RequestParser();
    parser.feed(latin1('*2147483647\r\n'));
    const empties = latin1('$0\r\n\r\n'.repeat(10_000));
    for (let i = 0; i < 10; i++) {
      parser.feed(Buffer.from(empties));
      expect(parser.next().kind).toBe('need-more');
    }
    // 100,000 arguments: no Buffer each, and none keeps the chunks they came in.
    expect(parser.argvMemory).toBe(100_000 * ARGUMENT_SLOT_BYTES);
    expect(parser.bufferedBytes).toBe(100_000 * ARGUMENT_SLOT_BYTES);

    const small = new RequestParser();
    const chunks = ['*4\r\n$0\r\n\r\n', '$0\r\n', '\r\n$0\r\n\r\n$', '0\r\n\r\n'].map(latin1);
    let got: ParseResult = { kind: 'need-more' };
    for (const c of chunks) {
      small.feed(c);
      got = small.next();
    }
    if (got.kind !== 'command') throw new Error(got.kind);
    expect(got.argv).toHaveLength(4);
    for (const arg of got.argv) {
      expect(arg.length).toBe(0);
      expect(arg).toBe(got.argv[0]);
      for (const c of chunks) expect(arg.buffer).not.toBe(c.buffer);
    }
  });

  it('counts what the arguments so far cost, beyond their bytes', () => {
    const parser = new RequestParser();
    parser.feed(latin1('*2147483647\r\n'));
    parser.feed(latin1('$1\r\na\r\n'.repeat(1000)));
    expect(parser.next().kind).toBe('need-more');
    expect(parser.argvMemory).toBe(1000 * (1 + ARGUMENT_SLOT_BYTES + ARGUMENT_OBJECT_BYTES));
  });

  it('gathers a big bulk out of each chunk as it comes: no fed chunk is held until the end', () => {
    const value = Buffer.alloc(3_000_000);
    for (let i = 0; i < value.length; i++) value[i] = (i * 7) & 0xff;
    const stream = encodeCommand(['SET', 'k', value]);
    const parser = new RequestParser();
    let result: ParseResult = { kind: 'need-more' };
    for (let at = 0; at < stream.length; at += 100_000) {
      const chunk = Buffer.from(stream.subarray(at, at + 100_000));
      parser.feed(chunk);
      result = parser.next();
      // Once next() has returned, the parser holds no byte of this chunk past the bulk's start.
      if (at > 100) chunk.fill(0);
    }
    if (result.kind !== 'command') throw new Error(result.kind);
    expect(result.argv[2]!.equals(value)).toBe(true);
    expect(result.argv[2]!.buffer.byteLength).toBe(value.length);
  });

  it('refuses a command with more arguments than it can hold, in Redis words', () => {
    const parser = new RequestParser({ maxArguments: 100 });
    parser.feed(latin1(`*101\r\n${'$0\r\n\r\n'.repeat(100)}`));
    expect(parser.next().kind).toBe('need-more');
    parser.feed(latin1('$0\r\n\r\n'));
    expect(parser.next()).toMatchObject({
      kind: 'error',
      reply: latin1('-ERR Protocol error: invalid multibulk length\r\n'),
    });
    const fine = new RequestParser({ maxArguments: 100 });
    fine.feed(encodeCommand(Array.from({ length: 100 }, () => '')));
    expect(fine.next().kind).toBe('command');
  });
});

describe('RequestParser: idle', () => {
  it('is idle only between requests, never inside one or after an error', () => {
    const parser = new RequestParser();
    expect(parser.idle).toBe(true);
    // Inside a multibulk with nothing buffered: the count line is read, its arguments are not.
    parser.feed(latin1('*2\r\n'));
    expect(parser.next().kind).toBe('need-more');
    expect(parser.bufferedBytes).toBe(0);
    expect(parser.idle).toBe(false);
    parser.feed(latin1('$4\r\nECHO\r\n$1\r\nx\r\n'));
    expect(parser.next().kind).toBe('command');
    expect(parser.idle).toBe(true);
    // A count line whose \r was the last byte: the byte after it is still owed.
    parser.feed(latin1('*1\r'));
    expect(parser.next().kind).toBe('need-more');
    expect(parser.idle).toBe(false);
    parser.feed(latin1('\n$4\r\nPING\r\nhalf an inline'));
    expect(parser.next().kind).toBe('command');
    expect(parser.next().kind).toBe('need-more');
    expect(parser.idle).toBe(false);
    parser.feed(latin1(' line\n'));
    expect(parser.next().kind).toBe('command');
    expect(parser.idle).toBe(true);
    parser.feed(latin1('*x\r\n'));
    expect(parser.next().kind).toBe('error');
    expect(parser.idle).toBe(false);
  });
});

describe('RequestParser: a command whole in one chunk (fast path) answers as a split one', () => {
  /** Near-valid multibulk requests: each piece may be bent into something odd or invalid. */
  function oddStream(rand: () => number, requests: number): Buffer {
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const parts: string[] = [];
    for (let r = 0; r < requests; r++) {
      const argc = Math.floor(rand() * 4) + 1;
      const count =
        rand() < 0.85 ? String(argc) : pick(['0', '-1', '01', '+2', '', 'x', '1025', '2 ']);
      parts.push(`*${count}${rand() < 0.95 ? '\r\n' : pick(['\rX', '\r', '\n'])}`);
      for (let a = 0; a < argc; a++) {
        const value = 'v'.repeat(Math.floor(rand() * 6));
        const len =
          rand() < 0.85
            ? String(value.length)
            : pick(['00', '-1', '01', ' 1', '', '99999999999', '7']);
        const dollar = rand() < 0.97 ? '$' : pick([':', '\0', 'x']);
        const lineEnd = rand() < 0.95 ? '\r\n' : pick(['\r\0', '\r', '\0\r\n']);
        const tail = rand() < 0.95 ? '\r\n' : pick(['ab', '\r', '']);
        parts.push(`${dollar}${len}${lineEnd}${value}${tail}`);
      }
      if (rand() < 0.05) parts.push(pick(['PING\r\n', '\r\n', 'SET "a b" c\n']));
    }
    return latin1(parts.join(''));
  }

  const options: RequestParserOptions[] = [{}, { maxBulkLength: 3 }, { authRequired: true }];
  for (const [i, opts] of options.entries()) {
    it(`gives the same commands and error whole, byte by byte and at random splits (${JSON.stringify(opts)})`, () => {
      for (let seed = 1; seed <= 300; seed++) {
        const rand = prng(seed * 7 + i);
        const stream = oddStream(rand, 12);
        const whole = run([stream], opts);
        const bytes = run(
          Array.from({ length: stream.length }, (_, k) => stream.subarray(k, k + 1)),
          opts,
        );
        expect(whole).toEqual(bytes);
        const offsets = Array.from({ length: 4 }, () => Math.floor(rand() * stream.length));
        expect(run(cut(stream, offsets), opts)).toEqual(bytes);
      }
    });
  }

  it('takes views of the chunk for a whole command, and copes with several in one chunk', () => {
    const stream = Buffer.concat([
      encodeCommand(['SET', 'k1', 'v'.repeat(100)]),
      encodeCommand(['GET', 'k1']),
      encodeCommand(['SET', 'k2', '']),
    ]);
    const parser = new RequestParser();
    parser.feed(stream);
    const set = parser.next() as ParsedCommand;
    expect(set.argv.map((a) => a.toString())).toEqual(['SET', 'k1', 'v'.repeat(100)]);
    expect(set.argv[2]!.buffer).toBe(stream.buffer);
    expect((parser.next() as ParsedCommand).argv.map((a) => a.toString())).toEqual(['GET', 'k1']);
    expect((parser.next() as ParsedCommand).argv.map((a) => a.toString())).toEqual([
      'SET',
      'k2',
      '',
    ]);
    expect(parser.next().kind).toBe('need-more');
    expect(parser.bufferedBytes).toBe(0);
    expect(parser.idle).toBe(true);
  });
});
