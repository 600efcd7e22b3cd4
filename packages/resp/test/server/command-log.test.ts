import { mkdtemp, rm } from 'node:fs/promises';
import { connect, Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCommand } from '@strata/protocol';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { PROTECTED_MODE_REPLY } from '../../src/errors.js';
import type { CommandLog } from '../../src/server/command-log.js';
import { RespServer } from '../../src/server/resp-server.js';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

/** A CommandLog that records what it is given, as strings. */
class RecordingLog implements CommandLog {
  readonly entries: { db: number; argv: string[] }[] = [];
  /** When set: append returns a promise that settles only when the test says so. */
  deferred: { resolve: () => void; reject: (e: Error) => void }[] | null = null;

  append(db: number, argv: readonly Buffer[]): Promise<void> | undefined {
    this.entries.push({ db, argv: argv.map((b) => b.toString()) });
    const d = this.deferred;
    if (d === null) return undefined;
    return new Promise<void>((resolve, reject) => d.push({ resolve, reject }));
  }

  take(): string[] {
    const out = this.entries.map((e) => `${e.db} ${e.argv.join(' ')}`);
    this.entries.length = 0;
    return out;
  }
}

let t: TestServer | null = null;
let redis: Redis | null = null;
afterEach(async () => {
  redis?.disconnect();
  redis = null;
  await t?.stop();
  t = null;
});

async function start(log: CommandLog): Promise<Redis> {
  t = await startServer({ commandLog: log });
  redis = new Redis({ port: t.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
  return redis;
}

const abs = (s: string): number => Number(s.split(' ').at(-1));

describe('CommandLog', () => {
  test('write commands are logged in their replay form; reads and no-op writes are not', async () => {
    const log = new RecordingLog();
    const r = await start(log);
    const before = Date.now();
    await r.set('a', '1');
    await r.get('a');
    await r.set('a', '2', 'EX', 100);
    await r.set('a', '3', 'NX'); // a exists: nothing written
    await r.set('b', '1', 'NX', 'GET'); // written
    await r.set('b', '2', 'NX', 'GET'); // not written
    await r.setex('c', 10, 'x');
    await r.incrbyfloat('n', '1.5');
    await r.incrbyfloat('n', '1.5');
    await r.del('nothing');
    await r.del('c');
    await r.expire('a', 50);
    await r.expire('missing', 50);
    await r.expire('b', -1); // deletes b
    await r.getex('n', 'PX', 5000);
    await r.getdel('n');
    await r.select(3);
    await r.incr('counter');
    await r.call('SET', 'k', 'v', 'GET', 'XX');
    await r.set('k', 'v', 'KEEPTTL');
    await expect(r.incr('k')).rejects.toThrow('not an integer');
    const after = Date.now();
    const got = log.take();
    expect(got.map((s) => s.replace(/ \d{13}$/, ' <ms>'))).toEqual([
      '0 SET a 1',
      '0 SET a 2 PXAT <ms>',
      '0 SET b 1',
      '0 SET c x PXAT <ms>',
      '0 SET n 1.5 KEEPTTL',
      '0 SET n 3 KEEPTTL',
      '0 del c',
      '0 PEXPIREAT a <ms>',
      '0 DEL b',
      '0 PEXPIREAT n <ms>',
      '0 DEL n',
      '3 incr counter',
      '3 SET k v KEEPTTL',
    ]);
    const within = (ms: number, lo: number, hi: number) => {
      expect(ms).toBeGreaterThanOrEqual(before + lo);
      expect(ms).toBeLessThanOrEqual(after + hi);
    };
    within(abs(got[1]!), 100_000, 100_000);
    within(abs(got[3]!), 10_000, 10_000);
    within(abs(got[7]!), 50_000, 50_000);
    within(abs(got[9]!), 5000, 5000);
  });

  test('MULTI/EXEC is logged as MULTI, its writes, EXEC; a read-only one is not', async () => {
    const log = new RecordingLog();
    const r = await start(log);
    await r.multi().get('x').exec();
    await r.multi().set('x', '1').get('x').incr('y').exec();
    expect(log.take()).toEqual(['0 MULTI', '0 SET x 1', '0 incr y', '0 EXEC']);
  });

  test('an always-style log holds replies until the append settles, in request order', async () => {
    const log = new RecordingLog();
    log.deferred = [];
    const r = await start(log);
    const raw = await RawClient.connect(t!.port);
    try {
      // One chunk: both SETs are appended before anything is sent.
      raw.write(
        Buffer.concat([
          encodeCommand(['SET', 'a', '1']),
          encodeCommand(['GET', 'a']),
          encodeCommand(['SET', 'b', '2']),
        ]),
      );
      await waitFor(() => log.entries.length === 2);
      // Another connection sees the write, once it is durable: its reply waits too.
      let other: string | null | undefined;
      const read = r.get('a').then((v) => {
        other = v;
      });
      await sleep(30);
      expect(raw.take()).toBe('');
      log.deferred[0]!.resolve();
      await sleep(30);
      // The GET and the second SET come after the first: all wait for the second append.
      expect(raw.take()).toBe('');
      expect(other).toBeUndefined();
      log.deferred[1]!.resolve();
      expect(await raw.takeLengthOf('+OK\r\n$1\r\n1\r\n+OK\r\n')).toBe('+OK\r\n$1\r\n1\r\n+OK\r\n');
      await read;
      expect(other).toBe('1');
    } finally {
      raw.close();
    }
  });

  test('QUIT after a write whose append is pending: both replies, then the close', async () => {
    const log = new RecordingLog();
    log.deferred = [];
    await start(log);
    const raw = await RawClient.connect(t!.port);
    raw.write(Buffer.concat([encodeCommand(['SET', 'q', '1']), encodeCommand(['QUIT'])]));
    await waitFor(() => log.entries.length === 1);
    await sleep(20);
    expect(raw.take()).toBe('');
    log.deferred[0]!.resolve();
    await raw.waitClosed();
    expect(raw.take()).toBe('+OK\r\n+OK\r\n');
  });

  test('through ioredis: replies wait for their appends and stay in order', async () => {
    const log = new RecordingLog();
    log.deferred = [];
    const r = await start(log);
    const order: string[] = [];
    const all = Promise.all([
      r.set('a', '1').then((v) => order.push(`set ${v}`)),
      r.incr('n').then((v) => order.push(`incr ${v}`)),
      r.get('a').then((v) => order.push(`get ${v}`)),
      r.append('a', 'x').then((v) => order.push(`append ${v}`)),
    ]);
    await waitFor(() => log.entries.length >= 1);
    await sleep(30);
    expect(order).toEqual([]);
    // Settle appends late, as they arrive.
    const timer = setInterval(() => {
      for (const d of log.deferred!.splice(0)) d.resolve();
    }, 10);
    try {
      await all;
    } finally {
      clearInterval(timer);
    }
    expect(order).toEqual(['set OK', 'incr 1', 'get 1', 'append 2']);
    expect(log.take()).toEqual(['0 SET a 1', '0 incr n', '0 append a x']);
  });

  test("another client's reply that could show a write waits for that write's append (appendfsync always: no read of what a crash can take away)", async () => {
    const log = new RecordingLog();
    log.deferred = [];
    const r = await start(log);
    const reader = new Redis({ port: t!.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    try {
      expect(await reader.get('a')).toBeNull();
      const write = r.set('a', '1');
      await waitFor(() => log.entries.length === 1);
      let read: string | null | undefined;
      const got = reader.get('a').then((v) => {
        read = v;
      });
      await sleep(30);
      // The GET ran and saw the value: its reply waits for the sync.
      expect(read).toBeUndefined();
      for (const d of log.deferred.splice(0)) d.resolve();
      await Promise.all([write, got]);
      expect(read).toBe('1');
      // Nothing pending: replies go at once.
      expect(await reader.get('a')).toBe('1');
      // A failed append (NOTPERSISTED: applied in memory) releases the readers too.
      const failing = r.set('b', '2').catch((e: Error) => e.message);
      await waitFor(() => log.entries.length === 2);
      const readB = reader.get('b');
      log.deferred[0]!.reject(new Error('EIO: i/o error, write'));
      expect(await failing).toMatch(/^NOTPERSISTED /);
      expect(await readB).toBe('2');
    } finally {
      reader.disconnect();
    }
  });

  test('a write held for its append is released once: its own sync barrier does not hold the reply again (one pause of reading, not two)', async () => {
    const log = new RecordingLog();
    log.deferred = [];
    const r = await start(log);
    await r.ping();
    const port = t!.port;
    let pauses = 0;
    const pause = Socket.prototype.pause;
    const spy = vi.spyOn(Socket.prototype, 'pause').mockImplementation(function (this: Socket) {
      // The server's side of the connection (ioredis's never pauses).
      if (this.localPort === port) pauses++;
      return pause.call(this);
    });
    try {
      const write = r.set('a', '1');
      await waitFor(() => log.entries.length === 1);
      expect(pauses).toBe(1);
      log.deferred.splice(0)[0]!.resolve();
      expect(await write).toBe('OK');
      expect(pauses).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });

  test('a rejected append turns that reply into NOTPERSISTED (it ran: applied, not durable); the replies around it stay', async () => {
    const log = new RecordingLog();
    log.deferred = [];
    const r = await start(log);
    const pipe = r.pipeline().set('a', '1').set('b', '2').get('a').set('c', '3');
    const done = pipe.exec();
    await waitFor(() => log.entries.length === 3);
    log.deferred[0]!.resolve();
    log.deferred[1]!.reject(new Error('EIO: i/o error, write'));
    log.deferred[2]!.resolve();
    const res = await done;
    expect(res![0]).toEqual([null, 'OK']);
    expect(String(res![1]![0])).toContain(
      'NOTPERSISTED The command was applied in memory but could not be written to the AOF file: EIO: i/o error, write. Do not retry it.',
    );
    // Applied: a read sees it.
    expect(await r.get('b')).toBe('2');
    expect(res![2]).toEqual([null, '1']);
    expect(res![3]).toEqual([null, 'OK']);
  });

  test('beforeReplies runs after a turn’s appends and before any of its replies leave (everysec: a crash takes nothing acknowledged)', async () => {
    // What the log had been asked to write out when each reply arrived.
    const written: string[] = [];
    let appended: string[] = [];
    const log: CommandLog = {
      append(_db, argv) {
        appended.push(argv.map((b) => b.toString()).join(' '));
        return undefined;
      },
      beforeReplies() {
        written.push(...appended);
        appended = [];
      },
    };
    const r = await start(log);
    const reader = new Redis({ port: t!.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    try {
      for (let round = 0; round < 20; round++) {
        // A read on another connection in the same turns: its reply is held with the writes'.
        const writes = Array.from({ length: 8 }, (_, i) =>
          r.set(`k${i}`, String(round)).then(() => written.includes(`SET k${i} ${round}`)),
        );
        const read = reader.get('k0');
        expect(await Promise.all(writes)).toEqual(writes.map(() => true));
        await read;
      }
    } finally {
      reader.disconnect();
    }
  });

  test('RespServer.execute replays without logging; errors reject with the Redis text', async () => {
    const log = new RecordingLog();
    const r = await start(log);
    const s = t!.server;
    await s.execute(0, [Buffer.from('SET'), Buffer.from('r'), Buffer.from('1')]);
    await s.execute(2, [Buffer.from('MULTI')]);
    await s.execute(2, [Buffer.from('INCRBY'), Buffer.from('n'), Buffer.from('5')]);
    await s.execute(2, [Buffer.from('EXEC')]);
    await expect(s.execute(0, [Buffer.from('NOSUCH')])).rejects.toThrow(
      "ERR unknown command 'NOSUCH', with args beginning with: ",
    );
    expect(log.take()).toEqual([]);
    expect(await r.get('r')).toBe('1');
    await r.select(2);
    expect(await r.get('n')).toBe('5');
  });
});

describe('setWriteError', () => {
  test('writes and PING get MISCONF, reads work, and writes come back once cleared', async () => {
    const log = new RecordingLog();
    const r = await start(log);
    await r.set('a', '1');
    t!.server.setWriteError('Errors writing to the AOF file: No space left on device');
    const misconf = 'MISCONF Errors writing to the AOF file: No space left on device';
    await expect(r.set('a', '2')).rejects.toThrow(misconf);
    await expect(r.incr('n')).rejects.toThrow(misconf);
    await expect(r.ping()).rejects.toThrow(misconf);
    expect(await r.get('a')).toBe('1');
    expect(await r.exists('a')).toBe(1);
    // Inside MULTI the write is refused when queued: EXEC aborts.
    const m = await r
      .multi()
      .set('a', '3')
      .exec()
      .catch((e: Error) => e);
    expect(String(m)).toContain('EXECABORT');
    t!.server.setWriteError(null);
    expect(await r.set('a', '4')).toBe('OK');
    expect(await r.ping()).toBe('PONG');
    expect(log.take()).toEqual(['0 SET a 1', '0 SET a 4']);
  });

  test('an EXEC whose queue has a write is aborted when the error comes after queueing', async () => {
    const r = await start(new RecordingLog());
    const raw = await RawClient.connect(t!.port);
    try {
      raw.send('MULTI');
      raw.send('SET', 'k', 'v');
      await raw.takeLengthOf('+OK\r\n+QUEUED\r\n');
      t!.server.setWriteError('MISCONF Errors writing to the AOF file: EIO');
      raw.send('EXEC');
      expect(await raw.takeLengthOf('-EXECABORT')).toBe(
        '-EXECABORT Transaction discarded because of: MISCONF Errors writing to the AOF file: EIO\r\n',
      );
      expect(await r.exists('k')).toBe(0);
    } finally {
      raw.close();
    }
  });
});

describe('protected mode', () => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

  test.skipIf(external === undefined)(
    'a non-loopback client without requirepass is refused with Redis’s message (needs a non-loopback IPv4 address)',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'strata-resp-protected-'));
      const server = new RespServer({ databases: { dir } });
      const { port } = await server.listen(0, '0.0.0.0');
      try {
        const refused = await readAll(port, external!, null);
        expect(refused.text).toBe(PROTECTED_MODE_REPLY);
        expect(refused.closed).toBe(true);
        // Loopback clients are served.
        const local = await RawClient.connect(port);
        local.send('PING');
        expect(await local.takeLengthOf('+PONG\r\n')).toBe('+PONG\r\n');
        local.close();
        // With protected mode off the external client is served too.
        const admin = await RawClient.connect(port);
        admin.send('CONFIG', 'SET', 'protected-mode', 'no');
        expect(await admin.takeLengthOf('+OK\r\n')).toBe('+OK\r\n');
        admin.close();
        const served = await readAll(port, external!, encodeCommand(['PING']));
        expect(served.text).toBe('+PONG\r\n');
      } finally {
        await server.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  if (external === undefined) {
    test('protected mode over a non-loopback address', () => {
      console.warn('skipped: this machine has no non-loopback IPv4 address');
    });
  }
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitFor(pred: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(5);
  }
}

/**
 * Connects to `host:port`, sends `request` (if any) and reads until the
 * server closes or 300 ms pass with a reply: what arrived and whether it closed.
 */
function readAll(
  port: number,
  host: string,
  request: Buffer | null,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, host);
    let text = '';
    let timer: NodeJS.Timeout | null = null;
    const done = (closed: boolean) => {
      if (timer !== null) clearTimeout(timer);
      s.destroy();
      resolve({ text, closed });
    };
    s.on('connect', () => {
      if (request !== null) s.write(request);
    });
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => done(false), 300);
    });
    s.on('end', () => done(true));
    s.on('error', reject);
  });
}

describe('command time', () => {
  test("relative expiries count from the store's clock, and the log gets the same millisecond", async () => {
    // A store clock far from the wall clock (as in an AOF replay) that moves on every read.
    let ms = Date.now() + 1_000_000_000;
    const clock = () => (ms += 3);
    const dir = await mkdtemp(join(tmpdir(), 'strata-resp-clock-'));
    const log = new RecordingLog();
    t = await startServer({
      commandLog: log,
      databases: {
        dir,
        store: { memory: 64 * 1024, pageSize: 16 * 1024, indexBuckets: 1024, clock },
      },
    });
    redis = new Redis({ port: t.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    const r = redis;
    await r.set('a', '1', 'PX', 5000);
    await r.setex('b', 5, '1');
    await r.set('c', '1');
    await r.getex('c', 'PX', 5000);
    await r.set('d', '1');
    await r.pexpire('d', 5000);
    const logged = log.take().filter((e) => /PXAT|PEXPIREAT/i.test(e));
    expect(logged).toHaveLength(4);
    for (const [key, line] of [
      ['a', logged[0]],
      ['b', logged[1]],
      ['c', logged[2]],
      ['d', logged[3]],
    ] as const) {
      // Alive by the store's clock (the wall clock is a billion ms behind it)...
      const at = await r.pexpiretime(key);
      expect(at).toBeGreaterThan(ms - 10);
      // ...and the replay form names exactly the expiry the key got.
      expect(abs(line!)).toBe(at);
    }
    await rm(dir, { recursive: true, force: true });
  });
});
