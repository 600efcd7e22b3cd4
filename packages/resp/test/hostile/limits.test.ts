import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { encodeCommand } from '@strata/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';
import { RequestConnection } from './request-connection.js';

/**
 * Redis's limits, over real sockets: what a client may announce, send and
 * leave unread, with Redis's words and Redis's closes. Where redis-server 7
 * is installed, each exchange is also run against it and must match.
 */

const MB = 1 << 20;
const redis = hasRedisServer();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes of Buffers/ArrayBuffers allocated (a reserved but untouched buffer counts, unlike RSS). */
function bufferBytes(): number {
  gc();
  return process.memoryUsage().arrayBuffers;
}

interface Exchange {
  readonly reply: string;
  readonly closed: boolean;
}

/** Sends `bytes` on a new connection; the reply and whether the server closed it (or left it open). */
async function exchange(port: number, bytes: string | Buffer, settleMs = 300): Promise<Exchange> {
  const c = await RawClient.connect(port);
  try {
    c.write(bytes);
    try {
      await c.waitClosed(settleMs);
    } catch {
      // Still open: what it sent so far is the answer.
    }
    return { reply: c.take(), closed: c.closed };
  } finally {
    c.close();
  }
}

const CASES: [string, string | Buffer, Exchange][] = [
  [
    'a bulk over proto-max-bulk-len (512 MB)',
    '*1\r\n$536870913\r\n',
    { reply: '-ERR Protocol error: invalid bulk length\r\n', closed: true },
  ],
  [
    'a negative bulk length',
    '*1\r\n$-1\r\n',
    { reply: '-ERR Protocol error: invalid bulk length\r\n', closed: true },
  ],
  [
    'a multibulk count over 2^31-1',
    '*2147483648\r\n',
    { reply: '-ERR Protocol error: invalid multibulk length\r\n', closed: true },
  ],
  [
    'a count that is no number',
    '*1x\r\n',
    { reply: '-ERR Protocol error: invalid multibulk length\r\n', closed: true },
  ],
  [
    'an array where a bulk string must be',
    '*3\r\n$3\r\nSET\r\n*1\r\n',
    { reply: "-ERR Protocol error: expected '$', got '*'\r\n", closed: true },
  ],
  [
    'an inline request over 64 KiB without a newline',
    'x'.repeat(64 * 1024 + 1),
    { reply: '-ERR Protocol error: too big inline request\r\n', closed: true },
  ],
  [
    'a multibulk count line over 64 KiB',
    `*${'1'.repeat(64 * 1024 + 1)}`,
    { reply: '-ERR Protocol error: too big mbulk count string\r\n', closed: true },
  ],
  [
    'a bulk length line over 64 KiB',
    `*1\r\n$${'9'.repeat(64 * 1024 + 1)}`,
    { reply: '-ERR Protocol error: too big bulk count string\r\n', closed: true },
  ],
  [
    'unbalanced quotes inline',
    'SET "a b\r\n',
    { reply: '-ERR Protocol error: unbalanced quotes in request\r\n', closed: true },
  ],
  [
    'an inline command just under 64 KiB',
    `ECHO ${'y'.repeat(60_000)}\r\n`,
    { reply: `$60000\r\n${'y'.repeat(60_000)}\r\n`, closed: false },
  ],
  [
    'the largest bulk, announced and begun',
    '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870912\r\nabc',
    { reply: '', closed: false },
  ],
  ['the largest multibulk count, announced', '*2147483647\r\n', { reply: '', closed: false }],
  [
    'a zero or negative count: nothing to run',
    '*0\r\n*-1\r\nPING\r\n',
    { reply: '+PONG\r\n', closed: false },
  ],
];

describe('protocol limits, in Redis words, closing where Redis closes', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s.stop();
  });

  test.each(CASES)('%s', async (_what, bytes, want) => {
    expect(await exchange(s.port, bytes)).toEqual(want);
    // The server is fine afterwards.
    const c = await RequestConnection.open(s.port);
    expect((await c.call(['PING'])).toString()).toBe('+PONG\r\n');
    c.close();
  });

  test("a configured proto-max-bulk-len, and Redis's least (1mb) for it", async () => {
    const c = await RequestConnection.open(s.port);
    try {
      // Below 1mb every RESP command of any size would soon fail: Redis refuses it.
      const refused =
        "-ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between 1048576 and 9223372036854775807 inclusive\r\n";
      expect((await c.call(['CONFIG', 'SET', 'proto-max-bulk-len', '1'])).toString()).toBe(refused);
      expect((await c.call(['CONFIG', 'SET', 'proto-max-bulk-len', '1048575'])).toString()).toBe(
        refused,
      );
      expect((await c.call(['CONFIG', 'GET', 'proto-max-bulk-len'])).toString()).toContain(
        `$9\r\n${512 * MB}\r\n`,
      );
      expect((await c.call(['CONFIG', 'SET', 'proto-max-bulk-len', '1mb'])).toString()).toBe(
        '+OK\r\n',
      );
      expect(await exchange(s.port, `*2\r\n$4\r\nECHO\r\n$${MB + 1}\r\n`)).toEqual({
        reply: '-ERR Protocol error: invalid bulk length\r\n',
        closed: true,
      });
      const ok = await c.call(['ECHO', 'z'.repeat(MB)]);
      expect(ok.length).toBe(MB + 12); // $1048576\r\n ... \r\n
    } finally {
      await c.call(['CONFIG', 'SET', 'proto-max-bulk-len', String(512 * MB)]);
      c.close();
    }
  });
});

describe('announced sizes reserve nothing: buffers grow with the bytes that arrive', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s.stop();
  });

  test('eight clients announcing a 512 MB bulk and sending a few bytes', async () => {
    const before = bufferBytes();
    const clients: RawClient[] = [];
    for (let i = 0; i < 8; i++) {
      const c = await RawClient.connect(s.port);
      c.write(`*3\r\n$3\r\nSET\r\n$2\r\nk${i}\r\n$536870912\r\n${'a'.repeat(100)}`);
      clients.push(c);
    }
    // Every announcement has reached the server: a PING behind them is answered.
    const probe = await RawClient.connect(s.port);
    probe.send('PING');
    expect(await probe.takeLengthOf('+PONG\r\n')).toBe('+PONG\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const afterAnnounce = bufferBytes();
    // Reserving them would be 4 GB.
    expect(afterAnnounce - before).toBeLessThan(32 * MB);

    // 16 MB of the first bulk: the server holds about what came.
    const piece = Buffer.alloc(64 * 1024, 0x62);
    for (let i = 0; i < 256; i++) clients[0]!.write(piece);
    await new Promise<void>((r) => clients[0]!.socket.write('', () => r()));
    await new Promise((r) => setTimeout(r, 200));
    const afterData = bufferBytes();
    expect(afterData - afterAnnounce).toBeLessThan(16 * MB + 32 * MB);
    for (const c of clients) expect(c.closed).toBe(false);

    for (const c of clients) c.close();
    probe.close();
    const deadline = Date.now() + 5000;
    while (s.server.clientCount > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // What the clients sent is released with them (sockets and their
    // buffers go over a few ticks and GCs).
    let held = bufferBytes() - before;
    for (let i = 0; i < 40 && held >= 8 * MB; i++) {
      await new Promise((r) => setTimeout(r, 50));
      held = bufferBytes() - before;
    }
    expect(held).toBeLessThan(8 * MB);
  });
});

describe('client-query-buffer-limit', () => {
  test('a client holding more unrun request bytes than the limit is dropped; others are not', async () => {
    const s = await startServer({ queryBufferLimit: MB });
    try {
      // Many complete commands at once: they run as they come, nothing piles up.
      const fine = await RawClient.connect(s.port);
      const sets = Buffer.concat(
        Array.from({ length: 20_000 }, (_, i) =>
          encodeCommand(['SET', `q:${i % 50}`, 'v'.repeat(100)]),
        ),
      );
      fine.write(sets);
      await fine.readUntil((x) => x.length >= 20_000 * 5, 20_000);
      // One bulk just under the limit arrives whole.
      fine.write(encodeCommand(['ECHO', Buffer.alloc(MB - 100, 0x65)]));
      await fine.readUntil((x) => x.length >= 20_000 * 5 + MB - 100, 20_000);
      expect(fine.closed).toBe(false);
      // A bulk that may be 4 MB, but the client may only have 1 MB waiting.
      const big = await RawClient.connect(s.port);
      big.write('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4000000\r\n');
      for (let i = 0; i < 32; i++) big.write(Buffer.alloc(64 * 1024, 0x66));
      await big.waitClosed(10_000);
      expect(big.take()).toBe('');
      fine.take();
      fine.send('PING');
      expect(await fine.takeLengthOf('+PONG\r\n')).toBe('+PONG\r\n');
      fine.close();
    } finally {
      await s.stop();
    }
  });
});

describe('clients that do not read', () => {
  test('the output buffer limit disconnects a client pipelining GETs of a big value', async () => {
    const s = await startServer({ outputBufferLimit: 4 * MB });
    try {
      const a = await RawClient.connect(s.port);
      a.send('SET', 'big', Buffer.alloc(MB, 0x63));
      expect(await a.takeLengthOf('+OK\r\n')).toBe('+OK\r\n');
      // Pushed to disk by other writes: each GET goes pending, one reply at a time.
      const fill: Buffer[] = [];
      for (let i = 0; i < 400; i++) fill.push(encodeCommand(['SET', `fill:${i}`, 'v'.repeat(500)]));
      a.write(Buffer.concat(fill));
      await a.readUntil((x) => x.length >= 400 * 5);
      a.take();
      a.send('CLIENT', 'ID');
      const id = (await a.readUntil((x) => x.endsWith('\r\n'))).slice(1, -2);
      a.socket.pause();
      a.write(Buffer.concat(Array.from({ length: 200 }, () => encodeCommand(['GET', 'big']))));
      const other = await RequestConnection.open(s.port);
      const deadline = Date.now() + 10_000;
      let listed = true;
      while (listed && Date.now() < deadline) {
        const list = (await other.call(['CLIENT', 'LIST'])).toString();
        listed = list.includes(`id=${id} `);
        if (listed) await new Promise((r) => setTimeout(r, 50));
      }
      expect(listed).toBe(false);
      expect((await other.call(['PING'])).toString()).toBe('+PONG\r\n');
      other.close();
      a.close();
    } finally {
      await s.stop();
    }
  });

  test('with no limit, such a client stops being read: the server holds about one batch, not the pipeline', async () => {
    const s = await startServer();
    try {
      const a = await RawClient.connect(s.port);
      const value = Buffer.alloc(256 * 1024, 0x64);
      a.send('SET', 'big', value);
      expect(await a.takeLengthOf('+OK\r\n')).toBe('+OK\r\n');
      const before = bufferBytes();
      a.socket.pause();
      // 4000 GETs of 256 KB: 1 GB of replies if the server made them all.
      const gets = Buffer.concat(Array.from({ length: 4000 }, () => encodeCommand(['GET', 'big'])));
      a.write(gets);
      const other = await RequestConnection.open(s.port);
      for (let i = 0; i < 10; i++) {
        expect((await other.call(['PING'])).toString()).toBe('+PONG\r\n');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(bufferBytes() - before).toBeLessThan(64 * MB);
      other.close();
      a.close();
    } finally {
      await s.stop();
    }
  });
});

/**
 * A connection that never ends its side. `probe()` writes to it: once the
 * server has let go of its socket, that write is reset, and the promise
 * resolves with what the connection received.
 */
function halfOpenConnection(port: number): Promise<{ probe(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    let got = '';
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      const closed = new Promise<string>((done) => s.on('close', () => done(got)));
      resolve({
        probe() {
          // The first write after the server let go meets its reset; the next one fails.
          const timer = setInterval(() => s.write(encodeCommand(['PING'])), 50);
          return closed.finally(() => clearInterval(timer));
        },
      });
    });
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
    });
    s.on('error', () => undefined);
    s.once('error', reject);
  });
}

describe('maxclients', () => {
  test('over maxclients a connection gets Redis error and is closed; a freed slot is reused', async () => {
    const s = await startServer({ maxclients: 3 });
    try {
      const held = [
        await RawClient.connect(s.port),
        await RawClient.connect(s.port),
        await RawClient.connect(s.port),
      ];
      for (let i = 0; i < 5; i++) {
        expect(await exchange(s.port, encodeCommand(['PING']))).toEqual({
          reply: '-ERR max number of clients reached\r\n',
          closed: true,
        });
      }
      // A refused client that keeps its side open, and one that resets: the
      // server lets go of both (stop() below waits for every socket).
      const halfOpen = await halfOpenConnection(s.port);
      const reset = await RawClient.connect(s.port);
      reset.socket.resetAndDestroy();
      await new Promise((r) => setTimeout(r, 1500));
      expect(await halfOpen.probe()).toBe('-ERR max number of clients reached\r\n');
      held[0]!.send('PING');
      expect(await held[0]!.takeLengthOf('+PONG\r\n')).toBe('+PONG\r\n');
      held[0]!.close();
      const deadline = Date.now() + 5000;
      while (s.server.clientCount > 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await exchange(s.port, encodeCommand(['PING']), 100)).toEqual({
        reply: '+PONG\r\n',
        closed: false,
      });
      for (const c of held) c.close();
    } finally {
      await s.stop();
    }
  });
});

describe('clients that have not authenticated (requirepass)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ requirepass: 'sesame' });
  });
  afterAll(async () => {
    await s.stop();
  });

  test.each([
    ['*11\r\n', '-ERR Protocol error: unauthenticated multibulk length\r\n'],
    ['*2\r\n$4\r\nAUTH\r\n$16385\r\n', '-ERR Protocol error: unauthenticated bulk length\r\n'],
  ])('%j', async (bytes, reply) => {
    expect(await exchange(s.port, bytes)).toEqual({ reply, closed: true });
  });
});

describe.skipIf(!redis)('redis-server 7 gives the same answers', () => {
  let r: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    r = await startRedis();
  });
  afterAll(() => r?.stop());

  test.each(CASES)('%s', async (_what, bytes, want) => {
    expect(await exchange(r.port, bytes)).toEqual(want);
  });

  test('maxclients and the unauthenticated caps', async () => {
    const admin = await RequestConnection.open(r.port);
    try {
      await admin.call(['CONFIG', 'SET', 'maxclients', '2']);
      const other = await RawClient.connect(r.port);
      expect(await exchange(r.port, encodeCommand(['PING']))).toEqual({
        reply: '-ERR max number of clients reached\r\n',
        closed: true,
      });
      other.close();
      await new Promise((x) => setTimeout(x, 100));
      await admin.call(['CONFIG', 'SET', 'maxclients', '100', 'requirepass', 'sesame']);
      expect(await exchange(r.port, '*11\r\n')).toEqual({
        reply: '-ERR Protocol error: unauthenticated multibulk length\r\n',
        closed: true,
      });
      expect(await exchange(r.port, '*2\r\n$4\r\nAUTH\r\n$16385\r\n')).toEqual({
        reply: '-ERR Protocol error: unauthenticated bulk length\r\n',
        closed: true,
      });
    } finally {
      admin.close();
    }
  });
});
