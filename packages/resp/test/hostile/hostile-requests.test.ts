import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
import { startServer, type TestServer } from '../support/test-server.js';
import { RequestConnection } from './request-connection.js';

/**
 * Issue 22's lesser defects, over real sockets: a connection closed whole
 * after a protocol error or an over-long inline line (it stayed half-open,
 * counted and reading), a rejected EXEC answered EXECABORT, the query buffer
 * limit's log line and counter, what a flood of arguments costs. Each
 * exchange runs against strata and, where redis-server 7 is installed,
 * against it too: the same answers.
 */

const MB = 1 << 20;
const redis = hasRedisServer();

interface Target {
  readonly name: string;
  port(): number;
}

/** A field of INFO as a number. */
async function infoField(port: number, section: string, field: string): Promise<number> {
  const c = await RequestConnection.open(port);
  try {
    const text = (await c.call(['INFO', section])).toString('latin1');
    const m = new RegExp(`\\r\\n${field}:(\\d+)`).exec(text);
    if (m === null) throw new Error(`no ${field} in INFO ${section}`);
    return Number(m[1]);
  } finally {
    c.close();
  }
}

/** Polls `read` until it returns `want` (or `timeoutMs` passes); the last value read. */
async function settlesAt(read: () => Promise<number>, want: number, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let got = await read();
  while (got !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    got = await read();
  }
  return got;
}

/**
 * A client that keeps its own side open whatever the server does (a
 * hostile one would): what it received, and whether the server ended.
 */
class StubbornClient {
  received = '';
  ended = false;
  failed = false;
  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.received += d.toString('latin1');
    });
    socket.on('end', () => {
      this.ended = true;
    });
    socket.on('error', () => {
      this.failed = true;
    });
  }

  static open(port: number): Promise<StubbornClient> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () =>
        resolve(new StubbornClient(s)),
      );
      s.once('error', reject);
    });
  }

  async waitEnded(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && !this.failed && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

const PROTOCOL_ERRORS: [string, string, string][] = [
  ['an argument that is no bulk', '*1\r\nx\r\n', "-ERR Protocol error: expected '$', got 'x'\r\n"],
  ['a count that is no number', '*abc\r\n', '-ERR Protocol error: invalid multibulk length\r\n'],
  ['unbalanced quotes', 'SET "a b\r\n', '-ERR Protocol error: unbalanced quotes in request\r\n'],
  ['QUIT', 'QUIT\r\n', '+OK\r\n'],
];

function suite(target: Target): void {
  test.each(PROTOCOL_ERRORS)(
    '%s: the reply, then the connection is closed whole (not half-open, not counted)',
    async (_what, bytes, reply) => {
      const port = target.port();
      const before = await infoField(port, 'clients', 'connected_clients');
      const c = await StubbornClient.open(port);
      try {
        c.socket.write(bytes);
        await c.waitEnded();
        expect(c.received).toBe(reply);
        expect(c.ended || c.failed).toBe(true);
        // The server let go of it though this side is still open.
        expect(await settlesAt(() => infoField(port, 'clients', 'connected_clients'), before)).toBe(
          before,
        );
      } finally {
        c.close();
      }
    },
  );

  test('an inline line with no end is not read past its limit: the connection is closed', async () => {
    const port = target.port();
    const c = await StubbornClient.open(port);
    let written = 0;
    try {
      // 64 MB with no newline, as fast as the server takes them.
      const block = Buffer.alloc(MB, 0x41);
      for (; written < 64 && !c.failed && !c.socket.destroyed; written++) {
        if (!c.socket.write(block)) {
          await new Promise<void>((r) => {
            const done = () => r();
            c.socket.once('drain', done);
            c.socket.once('close', done);
            c.socket.once('error', done);
          });
        }
      }
      await c.waitEnded();
      expect(c.ended || c.failed).toBe(true);
      // The reply, unless the reset of a socket closed with input unread overtook it.
      expect(['-ERR Protocol error: too big inline request\r\n', '']).toContain(c.received);
    } finally {
      c.close();
    }
    // The server stopped reading: what the sockets' buffers take, not 64 MB.
    expect(written).toBeLessThan(32);
  });

  test('EXEC refused (arity, ACL) answers EXECABORT with the reason and discards the transaction', async () => {
    const port = target.port();
    const admin = await RequestConnection.open(port);
    try {
      const calls = async (c: RequestConnection, ...cmds: string[][]) => {
        const out: string[] = [];
        for (const cmd of cmds) out.push((await c.call(cmd)).toString('latin1'));
        return out;
      };
      expect(
        await calls(admin, ['MULTI'], ['SET', 'x', '1'], ['EXEC', 'now'], ['EXEC'], ['GET', 'x']),
      ).toEqual([
        '+OK\r\n',
        '+QUEUED\r\n',
        "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command\r\n",
        '-ERR EXEC without MULTI\r\n',
        '$-1\r\n',
      ]);
      // Outside MULTI too, as Redis's rejectCommand does for EXEC.
      expect(await calls(admin, ['EXEC', 'x'])).toEqual([
        "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command\r\n",
      ]);
      // Other commands refused inside MULTI still flag it for EXEC.
      expect(await calls(admin, ['MULTI'], ['DISCARD', 'x'], ['EXEC'])).toEqual([
        '+OK\r\n',
        "-ERR wrong number of arguments for 'discard' command\r\n",
        '-EXECABORT Transaction discarded because of previous errors.\r\n',
      ]);
      await admin.call(['ACL', 'SETUSER', 'noexec', 'on', 'nopass', '+@all', '-exec', '~*']);
      const user = await RequestConnection.open(port);
      try {
        expect(
          await calls(user, ['AUTH', 'noexec', 'x'], ['MULTI'], ['SET', 'x', '2'], ['EXEC']),
        ).toEqual([
          '+OK\r\n',
          '+OK\r\n',
          '+QUEUED\r\n',
          "-EXECABORT Transaction discarded because of: NOPERM this user has no permissions to run the 'exec' command\r\n",
        ]);
      } finally {
        user.close();
        await admin.call(['ACL', 'DELUSER', 'noexec']);
      }
    } finally {
      admin.close();
    }
  });

  test('counts past 64 bits answer in Redis words (RPOP, SRANDMEMBER), and limits below Redis least are refused', async () => {
    const port = target.port();
    const c = await RequestConnection.open(port);
    try {
      const call = async (...argv: string[]) => (await c.call(argv)).toString('latin1');
      await call('DEL', 'L', 'S');
      await call('RPUSH', 'L', 'a');
      await call('SADD', 'S', 'a');
      expect(await call('RPOP', 'L', '9223372036854775808')).toBe(
        '-ERR value is out of range, must be positive\r\n',
      );
      expect(await call('SRANDMEMBER', 'S', '-9223372036854775808')).toBe(
        '-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n',
      );
      expect(await call('CONFIG', 'SET', 'client-query-buffer-limit', '1048575')).toBe(
        "-ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - argument must be between 1048576 and 9223372036854775807 inclusive\r\n",
      );
      await call('DEL', 'L', 'S');
    } finally {
      c.close();
    }
  });

  test('a client announcing 2^31-1 arguments and sending empty ones is not refused (the count is legal)', async () => {
    const port = target.port();
    const c = await StubbornClient.open(port);
    try {
      c.socket.write('*2147483647\r\n');
      c.socket.write('$0\r\n\r\n'.repeat(10_000));
      const probe = await RequestConnection.open(port);
      expect((await probe.call(['PING'])).toString()).toBe('+PONG\r\n');
      probe.close();
      expect(c.received).toBe('');
      expect(c.ended).toBe(false);
    } finally {
      c.close();
    }
  });
}

describe('strata: hostile requests', () => {
  let s: TestServer;
  const log: string[] = [];
  beforeAll(async () => {
    s = await startServer({ log: (level, message) => log.push(`${level} ${message}`) });
  });
  afterAll(async () => {
    await s.stop();
  });
  suite({ name: 'strata', port: () => s.port });

  test("client-query-buffer-limit: the client is dropped, Redis's line logged, the drop counted", async () => {
    const admin = await RequestConnection.open(s.port);
    try {
      await admin.call(['CONFIG', 'SET', 'client-query-buffer-limit', '1mb']);
      const before = await infoField(s.port, 'stats', 'client_query_buffer_limit_disconnections');
      const c = await StubbornClient.open(s.port);
      c.socket.write('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4000000\r\n');
      c.socket.write(Buffer.alloc(2 * MB, 0x66));
      await c.waitEnded();
      c.close();
      expect(c.received).toBe('');
      expect(await infoField(s.port, 'stats', 'client_query_buffer_limit_disconnections')).toBe(
        before + 1,
      );
      const line = log.find((l) => l.includes('Closing client that reached max query buffer'));
      expect(line).toMatch(
        /^warning Closing client that reached max query buffer length: id=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ .* \(qbuf initial bytes: "f{64}"\)$/,
      );
    } finally {
      await admin.call(['CONFIG', 'SET', 'client-query-buffer-limit', '1gb']);
      admin.close();
    }
  });

  test('what arguments cost counts toward the limit: a flood of empty ones is closed at it', async () => {
    const admin = await RequestConnection.open(s.port);
    try {
      // CLIENT LIST shows it: argv-mem grows with the arguments, qbuf is the unparsed input.
      const c = await StubbornClient.open(s.port);
      c.socket.write(`*2147483647\r\n${'$0\r\n\r\n'.repeat(1000)}`);
      let list = '';
      for (let i = 0; i < 200 && !/argv-mem=16000 /.test(list); i++) {
        list = (await admin.call(['CLIENT', 'LIST'])).toString('latin1');
      }
      expect(list).toMatch(/ qbuf=0 qbuf-free=0 argv-mem=16000 /);
      // 16 bytes an empty argument (its slot): 100,000 of them pass 1 MB.
      await admin.call(['CONFIG', 'SET', 'client-query-buffer-limit', '1mb']);
      c.socket.write('$0\r\n\r\n'.repeat(100_000));
      await c.waitEnded();
      c.close();
      expect(c.ended || c.failed).toBe(true);
      expect(c.received).toBe('');
      expect((await admin.call(['PING'])).toString()).toBe('+PONG\r\n');
    } finally {
      await admin.call(['CONFIG', 'SET', 'client-query-buffer-limit', '1gb']);
      admin.close();
    }
  });
});

describe.skipIf(!redis)('redis-server 7: the same answers', () => {
  let r: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    r = await startRedis();
  });
  afterAll(() => r?.stop());
  suite({ name: 'redis', port: () => r.port });
});
