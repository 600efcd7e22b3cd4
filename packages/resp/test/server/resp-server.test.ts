import { Socket } from 'node:net';
import { encodeCommand } from '@strata/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { CommandDefinition } from '../../src/server/command-table.js';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

/** A command that stays pending until the test releases it: a stand-in for a slow disk. */
function gatedCommand() {
  const waiting: (() => void)[] = [];
  const def: CommandDefinition = {
    name: 'slow',
    arity: 1,
    flags: [],
    firstKey: 0,
    lastKey: 0,
    step: 0,
    acl: [],
    group: 'server',
    since: '0.0.0',
    complexity: 'O(1)',
    summary: 'Test: replies when released.',
    handler(c) {
      return new Promise<void>((resolve) => {
        waiting.push(() => {
          c.reply.simple('SLOW-DONE');
          resolve();
        });
      });
    },
  };
  return {
    def,
    waiting: () => waiting.length,
    release() {
      const w = waiting.shift();
      if (w === undefined) throw new Error('nothing waiting');
      w();
    },
  };
}

const gate = gatedCommand();
let t: TestServer;
const opened: RawClient[] = [];

async function client(port = t.port): Promise<RawClient> {
  const c = await RawClient.connect(port);
  opened.push(c);
  return c;
}

beforeAll(async () => {
  t = await startServer({ commands: [gate.def] });
});
afterEach(() => {
  for (const c of opened.splice(0)) c.close();
});
afterAll(async () => {
  await t.stop();
});

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe('pipelining', () => {
  test('replies come in request order, memory and disk alike', async () => {
    const c = await client();
    // Enough keys that the first ones are on disk by the end.
    const load: Buffer[] = [];
    for (let i = 0; i < 2000; i++) load.push(encodeCommand(['SET', `p:${i}`, `v${i}`]));
    c.write(Buffer.concat(load));
    await c.readUntil((s) => s.length === 2000 * 5);
    c.take();
    const cmds: Buffer[] = [];
    const expected: string[] = [];
    for (let i = 0; i < 400; i++) {
      const k = (i * 7919) % 2000;
      cmds.push(encodeCommand(['GET', `p:${k}`]), encodeCommand(['PING']));
      expected.push(`$${`v${k}`.length}\r\nv${k}\r\n`, '+PONG\r\n');
    }
    c.write(Buffer.concat(cmds));
    const want = expected.join('');
    expect(await c.readUntil((s) => s.length >= want.length)).toBe(want);
  });

  test('a request split at every byte gives the same replies', async () => {
    const c = await client();
    const stream = Buffer.concat([
      encodeCommand(['SET', 'split', 'a\r\nb']),
      Buffer.from('GET split\r\n'),
      encodeCommand(['ECHO', '']),
      encodeCommand(['GET', 'p:1']),
    ]);
    for (const byte of stream) {
      c.write(Buffer.from([byte]));
      await new Promise((r) => setImmediate(r));
    }
    const want = '+OK\r\n$4\r\na\r\nb\r\n$0\r\n\r\n$2\r\nv1\r\n';
    expect(await c.readUntil((s) => s.length >= want.length)).toBe(want);
  });

  test('random splits of a long stream', async () => {
    const c = await client();
    const parts: Buffer[] = [];
    let want = '';
    for (let i = 0; i < 300; i++) {
      const v = 'x'.repeat(i % 97);
      parts.push(encodeCommand(['SET', `r:${i}`, v]), encodeCommand(['GET', `r:${i}`]));
      want += `+OK\r\n$${v.length}\r\n${v}\r\n`;
    }
    const all = Buffer.concat(parts);
    let seed = 42;
    for (let at = 0; at < all.length; ) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const n = 1 + (seed % 200);
      c.write(all.subarray(at, at + n));
      at += n;
    }
    expect(await c.readUntil((s) => s.length >= want.length)).toBe(want);
  });

  test('one socket write per batch of replies', async () => {
    // Count the server-side writes by wrapping the original.
    const orig = Socket.prototype.write;
    let serverWrites = 0;
    Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
      if (this.localPort === t.port) serverWrites++;
      return orig.apply(this, args);
    } as Socket['write'];
    try {
      const c = await client();
      const batch = Buffer.concat(
        Array.from({ length: 100 }, (_, i) => encodeCommand(['ECHO', `m${i}`])),
      );
      c.write(batch);
      const want = Array.from({ length: 100 }, (_, i) => `$${`m${i}`.length}\r\nm${i}\r\n`).join(
        '',
      );
      expect(await c.readUntil((s) => s.length >= want.length)).toBe(want);
      // One chunk from the socket may arrive as several reads, but never one write per reply.
      expect(serverWrites).toBeGreaterThan(0);
      expect(serverWrites).toBeLessThanOrEqual(3);
    } finally {
      Socket.prototype.write = orig;
    }
  });
});

describe('pending commands', () => {
  test('hold their own connection, not others', async () => {
    const a = await client();
    const b = await client();
    a.write(
      Buffer.concat([
        encodeCommand(['PING', 'before']),
        encodeCommand(['SLOW']),
        encodeCommand(['PING', 'after']),
      ]),
    );
    await until(() => gate.waiting() === 1);
    // The reply before the pending command is out already.
    expect(await a.readUntil((s) => s.length >= 12)).toBe('$6\r\nbefore\r\n');
    b.send('PING');
    expect(await b.takeLengthOf('+PONG\r\n')).toBe('+PONG\r\n');
    gate.release();
    expect(await a.readUntil((s) => s.length >= 35)).toBe(
      '$6\r\nbefore\r\n+SLOW-DONE\r\n$5\r\nafter\r\n',
    );
  });

  test('EXEC waits for other clients commands on the disk, and holds everyone while it runs', async () => {
    const a = await client();
    const b = await client();
    const c3 = await client();
    a.send('SLOW');
    await until(() => gate.waiting() === 1);
    b.write(
      Buffer.concat([
        encodeCommand(['MULTI']),
        encodeCommand(['SET', 'tx', '1']),
        encodeCommand(['SLOW']),
        encodeCommand(['GET', 'tx']),
        encodeCommand(['EXEC']),
      ]),
    );
    expect(await b.readUntil((s) => s.length >= 5 + 27)).toBe(
      '+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n',
    );
    b.take();
    await new Promise((r) => setTimeout(r, 20));
    // EXEC has not started: A's command is still on the "disk".
    expect(gate.waiting()).toBe(1);
    gate.release();
    expect(await a.takeLengthOf('+SLOW-DONE\r\n')).toBe('+SLOW-DONE\r\n');
    await until(() => gate.waiting() === 1);
    // EXEC is inside its transaction now: C's write waits for it.
    c3.send('SET', 'tx', 'from-c');
    await new Promise((r) => setTimeout(r, 20));
    expect(c3.take()).toBe('');
    gate.release();
    expect(await b.readUntil((s) => s.length >= 28)).toBe('*3\r\n+OK\r\n+SLOW-DONE\r\n$1\r\n1\r\n');
    expect(await c3.takeLengthOf('+OK\r\n')).toBe('+OK\r\n');
  });
});

describe('protocol errors close the connection after the replies before them', () => {
  test.each([
    ['*1\r\n$x\r\n', '-ERR Protocol error: invalid bulk length\r\n'],
    ['*abc\r\n', '-ERR Protocol error: invalid multibulk length\r\n'],
    ['*1\r\n+x\r\n', "-ERR Protocol error: expected '$', got '+'\r\n"],
    ['SET "a b\r\n', '-ERR Protocol error: unbalanced quotes in request\r\n'],
  ])('%j', async (bad, reply) => {
    const c = await client();
    c.write(Buffer.concat([encodeCommand(['PING']), Buffer.from(bad)]));
    await c.waitClosed();
    expect(c.take()).toBe(`+PONG\r\n${reply}`);
  });

  test('too big inline request', async () => {
    const c = await client();
    c.write('x'.repeat(70 * 1024));
    await c.waitClosed();
    expect(c.take()).toBe('-ERR Protocol error: too big inline request\r\n');
  });
});

test('QUIT replies then closes; RESET resets', async () => {
  const c = await client();
  c.write(
    Buffer.concat([
      encodeCommand(['SELECT', '2']),
      encodeCommand(['CLIENT', 'SETNAME', 'x']),
      encodeCommand(['RESET']),
      encodeCommand(['CLIENT', 'GETNAME']),
      encodeCommand(['QUIT']),
      encodeCommand(['PING']),
    ]),
  );
  await c.waitClosed();
  expect(c.take()).toBe('+OK\r\n+OK\r\n+RESET\r\n$-1\r\n+OK\r\n');
});

test('CLIENT KILL ID closes the other connection; CLIENT LIST shows both', async () => {
  const a = await client();
  const b = await client();
  b.send('CLIENT', 'ID');
  const idReply = await b.readUntil((s) => s.endsWith('\r\n'));
  const id = Number(idReply.slice(1, -2));
  b.take();
  a.send('CLIENT', 'LIST');
  const list = await a.readUntil((s) => s.length > 10 && s.endsWith('\n\r\n'));
  expect(list).toContain(`id=${id} `);
  a.take();
  a.send('CLIENT', 'KILL', 'ID', String(id));
  expect(await a.takeLengthOf(':1\r\n')).toBe(':1\r\n');
  await b.waitClosed();
});

test('FLUSHDB and FLUSHALL drop keys on disk and in memory', async () => {
  const c = await client();
  c.send('SELECT', '5');
  const load: Buffer[] = [];
  for (let i = 0; i < 1500; i++) load.push(encodeCommand(['SET', `f:${i}`, `v${i}`]));
  c.write(Buffer.concat(load));
  await c.readUntil((s) => s.length === 5 + 1500 * 5);
  c.take();
  c.write(
    Buffer.concat([
      encodeCommand(['FLUSHDB']),
      encodeCommand(['GET', 'f:1']),
      encodeCommand(['GET', 'f:1499']),
      encodeCommand(['SET', 'f:1', 'again']),
      encodeCommand(['GET', 'f:1']),
      encodeCommand(['FLUSHALL', 'SYNC']),
      encodeCommand(['GET', 'f:1']),
      encodeCommand(['FLUSHDB', 'later']),
    ]),
  );
  const want = '+OK\r\n$-1\r\n$-1\r\n+OK\r\n$5\r\nagain\r\n+OK\r\n$-1\r\n-ERR syntax error\r\n';
  expect(await c.readUntil((s) => s.length >= want.length)).toBe(want);
});

describe('limits', () => {
  test('maxclients', async () => {
    const s = await startServer({ maxclients: 1 });
    try {
      const a = await RawClient.connect(s.port);
      const b = await RawClient.connect(s.port);
      await b.waitClosed();
      expect(b.take()).toBe('-ERR max number of clients reached\r\n');
      a.send('PING');
      expect(await a.takeLengthOf('+PONG\r\n')).toBe('+PONG\r\n');
      a.close();
    } finally {
      await s.stop();
    }
  });

  test('client output buffer limit disconnects', async () => {
    // Reading pauses while a client's replies do not drain, so only one
    // batch can outgrow the limit: 1000 GETs of a 4000-byte value in memory.
    const s = await startServer({ outputBufferLimit: 1 << 20 });
    try {
      const a = await RawClient.connect(s.port);
      a.send('SET', 'big', 'x'.repeat(4000));
      expect(await a.takeLengthOf('+OK\r\n')).toBe('+OK\r\n');
      a.socket.pause();
      a.write(Buffer.concat(Array.from({ length: 1000 }, () => encodeCommand(['GET', 'big']))));
      await until(() => s.server.clientCount === 0);
      a.socket.resume();
      await a.waitClosed();
    } finally {
      await s.stop();
    }
  });

  test('proto-max-bulk-len', async () => {
    const s = await startServer({ maxBulkLength: 100 });
    try {
      const a = await RawClient.connect(s.port);
      a.write('*2\r\n$3\r\nGET\r\n$101\r\n');
      await a.waitClosed();
      expect(a.take()).toBe('-ERR Protocol error: invalid bulk length\r\n');
    } finally {
      await s.stop();
    }
  });

  test('binds to loopback by default', () => {
    expect(t.server.address().host).toBe('127.0.0.1');
  });
});

describe('requirepass', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ requirepass: 'sesame' });
  });
  afterAll(async () => {
    await s.stop();
  });

  test('NOAUTH until AUTH; WRONGPASS; then commands run', async () => {
    const c = await client(s.port);
    c.write(
      Buffer.concat([
        encodeCommand(['GET', 'a']),
        encodeCommand(['NOPE']),
        encodeCommand(['AUTH', 'wrong']),
        encodeCommand(['AUTH', 'bob', 'sesame']),
        encodeCommand(['HELLO', '3']),
        encodeCommand(['AUTH', 'sesame']),
        encodeCommand(['SET', 'a', '1']),
        encodeCommand(['AUTH', 'default', 'sesame']),
        encodeCommand(['GET', 'a']),
      ]),
    );
    const want =
      '-NOAUTH Authentication required.\r\n' +
      "-ERR unknown command 'NOPE', with args beginning with: \r\n" +
      '-WRONGPASS invalid username-password pair or user is disabled.\r\n' +
      '-WRONGPASS invalid username-password pair or user is disabled.\r\n' +
      '-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n' +
      '+OK\r\n+OK\r\n+OK\r\n$1\r\n1\r\n';
    expect(await c.readUntil((x) => x.length >= want.length)).toBe(want);
  });

  test('HELLO 3 AUTH authenticates and switches protocol', async () => {
    const c = await client(s.port);
    c.send('HELLO', '3', 'AUTH', 'default', 'sesame', 'SETNAME', 'h');
    const r = await c.readUntil((x) => x.includes('modules'));
    expect(r.startsWith('%7\r\n$6\r\nserver\r\n')).toBe(true);
    expect(r).toContain('$5\r\nproto\r\n:3\r\n');
    c.take();
    c.send('CLIENT', 'GETNAME');
    expect(await c.readUntil((x) => x.length >= 7)).toBe('$1\r\nh\r\n');
  });

  test('an anonymous client may not announce big requests', async () => {
    const c = await client(s.port);
    c.write('*11\r\n');
    await c.waitClosed();
    expect(c.take()).toBe('-ERR Protocol error: unauthenticated multibulk length\r\n');
  });
});

test('EXEC keeps other clients out through a command that takes the gate itself', async () => {
  const a = await client();
  const b = await client();
  a.write(
    Buffer.concat([
      encodeCommand(['SET', 'g:src', 'v']),
      encodeCommand(['MULTI']),
      encodeCommand(['RENAME', 'g:src', 'g:dst']),
      encodeCommand(['SLOW']),
      encodeCommand(['GET', 'g:dst']),
      encodeCommand(['EXEC']),
    ]),
  );
  await until(() => gate.waiting() === 1);
  b.send('SET', 'g:dst', 'from-b');
  await new Promise((r) => setTimeout(r, 20));
  expect(b.take()).toBe('');
  gate.release();
  const want =
    '+OK\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n+OK\r\n+SLOW-DONE\r\n$1\r\nv\r\n';
  expect(await a.readUntil((s) => s.length >= want.length)).toBe(want);
  expect(await b.takeLengthOf('+OK\r\n')).toBe('+OK\r\n');
});
