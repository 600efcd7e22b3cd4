import { type ChildProcess, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { BasicClientSideCache, createClient } from 'redis';
import { io as connectSocketIo, type Socket } from 'socket.io-client';
import { describe, expect, test } from 'vitest';
import { runCli, StrataProcess, serverForFile, tempDir } from './strata-process.js';

/**
 * Pub/Sub through the libraries Node programs use, against a real
 * strata-server process: ioredis, node-redis, and Socket.IO's Redis
 * adapter with two Socket.IO servers in two processes.
 */
const server = serverForFile();

function ioredis(): Redis {
  return new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
}

/** Resolves with the first `n` events `on` reports. */
function collect<T>(n: number, on: (push: (v: T) => void) => void): Promise<T[]> {
  return new Promise((resolve) => {
    const got: T[] = [];
    on((v) => {
      got.push(v);
      if (got.length === n) resolve(got);
    });
  });
}

describe('ioredis', () => {
  test('subscribe, psubscribe, ssubscribe: messages arrive with their channel and pattern', async () => {
    const sub = ioredis();
    const pub = ioredis();
    try {
      expect(await sub.subscribe('news', 'alerts')).toBe(2);
      expect(await sub.psubscribe('user:*')).toBe(3);
      expect(await sub.ssubscribe('shard:a')).toBe(1);
      const messages = collect<string[]>(2, (push) =>
        sub.on('message', (ch: string, m: string) => push([ch, m])),
      );
      const pmessages = collect<string[]>(1, (push) =>
        sub.on('pmessage', (p: string, ch: string, m: string) => push([p, ch, m])),
      );
      const smessages = collect<string[]>(1, (push) =>
        sub.on('smessage', (ch: string, m: string) => push([ch, m])),
      );
      expect(await pub.publish('news', 'n1')).toBe(1);
      expect(await pub.publish('alerts', 'a1')).toBe(1);
      expect(await pub.publish('user:7', 'u7')).toBe(1);
      expect(await pub.spublish('shard:a', 's1')).toBe(1);
      expect(await messages).toEqual([
        ['news', 'n1'],
        ['alerts', 'a1'],
      ]);
      expect(await pmessages).toEqual([['user:*', 'user:7', 'u7']]);
      expect(await smessages).toEqual([['shard:a', 's1']]);
      expect(await pub.pubsub('NUMSUB', 'news', 'none')).toEqual(['news', 1, 'none', 0]);
      expect(await sub.unsubscribe('news')).toBe(2);
      expect(await pub.publish('news', 'gone')).toBe(0);
    } finally {
      sub.disconnect();
      pub.disconnect();
    }
  });
  // ioredis speaks RESP2 only: RESP3 pushes are node-redis's below.
});

describe('node-redis', () => {
  test('subscribe, pSubscribe and sSubscribe listeners on a duplicated client', async () => {
    const client = createClient({ socket: { port: server.port, host: '127.0.0.1' } });
    await client.connect();
    const sub = client.duplicate();
    await sub.connect();
    try {
      const got: string[] = [];
      const three = new Promise<void>((resolve) => {
        const push = (s: string) => {
          got.push(s);
          if (got.length === 3) resolve();
        };
        void sub.subscribe('orders', (m, ch) => push(`${ch}:${m}`));
        void sub.pSubscribe('job:*', (m, ch) => push(`${ch}:${m}`));
        void sub.sSubscribe('sharded', (m, ch) => push(`${ch}:${m}`));
      });
      // The subscriptions are acknowledged before the publishes count them.
      for (;;) {
        const [, n] = (await client.sendCommand(['PUBSUB', 'NUMSUB', 'orders'])) as [
          string,
          number,
        ];
        const patterns = (await client.sendCommand(['PUBSUB', 'NUMPAT'])) as number;
        const shard = (await client.sendCommand(['PUBSUB', 'SHARDNUMSUB', 'sharded'])) as [
          string,
          number,
        ];
        if (n === 1 && patterns === 1 && shard[1] === 1) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await client.publish('orders', 'o1')).toBe(1);
      expect(await client.publish('job:9', 'done')).toBe(1);
      expect(await client.sPublish('sharded', 's1')).toBe(1);
      await three;
      expect(got).toEqual(['orders:o1', 'job:9:done', 'sharded:s1']);
      await sub.unsubscribe('orders');
      expect(await client.publish('orders', 'o2')).toBe(0);
    } finally {
      await sub.close();
      await client.close();
    }
  });

  test('a RESP3 client receives pushes (node-redis RESP: 3)', async () => {
    const client = createClient({ RESP: 3, socket: { port: server.port, host: '127.0.0.1' } });
    await client.connect();
    const sub = client.duplicate();
    await sub.connect();
    try {
      const message = new Promise<string>((resolve) => {
        void sub.subscribe('resp3-channel', (m) => resolve(m));
      });
      for (;;) {
        const [, n] = (await client.sendCommand(['PUBSUB', 'NUMSUB', 'resp3-channel'])) as [
          string,
          number,
        ];
        if (n === 1) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await client.publish('resp3-channel', 'pushed')).toBe(1);
      expect(await message).toBe('pushed');
    } finally {
      await sub.close();
      await client.close();
    }
  });
});

describe('node-redis client-side cache (RESP3, CLIENT TRACKING)', () => {
  test('a repeated GET is served from the cache until another client writes the key; a flush empties it', async () => {
    const socket = { port: server.port, host: '127.0.0.1' };
    const cache = new BasicClientSideCache({ ttl: 0, maxEntries: 0, evictPolicy: 'LRU' });
    const client = createClient({ RESP: 3, clientSideCache: cache, socket });
    const writer = createClient({ socket });
    await Promise.all([client.connect(), writer.connect()]);
    const until = async (f: () => boolean) => {
      for (let i = 0; i < 500 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(f()).toBe(true);
    };
    try {
      await writer.set('csc:a', 'one');
      expect(await client.get('csc:a')).toBe('one');
      expect(await client.get('csc:a')).toBe('one');
      expect(cache.stats().hitCount).toBe(1);
      expect(cache.size()).toBe(1);
      // The server's invalidation push drops the entry; the next GET reads the new value.
      await writer.set('csc:a', 'two');
      await until(() => cache.size() === 0);
      expect(await client.get('csc:a')).toBe('two');
      expect(await client.get('csc:a')).toBe('two');
      expect(cache.stats().hitCount).toBe(2);
      // A flush invalidates everything (a null invalidation).
      expect(await client.get('csc:b')).toBeNull();
      await until(() => cache.size() === 2);
      await writer.flushAll();
      await until(() => cache.size() === 0);
      expect(await client.get('csc:a')).toBeNull();
    } finally {
      await client.close();
      await writer.close();
    }
  });
});

describe('notify-keyspace-events at start (--notify-keyspace-events, or the config file)', () => {
  test('the flag turns events on: CONFIG GET shows it, a SET publishes its keyspace event', async () => {
    const own = await tempDir();
    const p = await StrataProcess.start([
      '--port',
      '0',
      '--dir',
      own.path,
      '--notify-keyspace-events',
      'KEA',
    ]);
    const sub = new Redis({ port: p.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    const r = new Redis({ port: p.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    try {
      expect(await r.config('GET', 'notify-keyspace-events')).toEqual([
        'notify-keyspace-events',
        'AKE',
      ]);
      const event = new Promise<string[]>((resolve) =>
        sub.on('pmessage', (_p: string, ch: string, m: string) => resolve([ch, m])),
      );
      await sub.psubscribe('__keyevent@0__:*');
      await r.set('flagged', '1');
      expect(await event).toEqual(['__keyevent@0__:set', 'flagged']);
    } finally {
      sub.disconnect();
      r.disconnect();
      p.process.child.kill('SIGKILL');
      await p.process.exited;
      await own.remove();
    }
  });

  test("a letter that is no event class stops the start with Redis's words", async () => {
    const own = await tempDir();
    try {
      const out = await runCli([
        '--port',
        '0',
        '--dir',
        own.path,
        '--notify-keyspace-events',
        'KEq',
      ]);
      expect(out.code).not.toBe(0);
      expect(out.stdout + out.stderr).toContain(
        "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.",
      );
    } finally {
      await own.remove();
    }
  });
});

/** A Socket.IO server process on the Redis adapter; resolves with its port. */
async function socketIoNode(
  kind: 'classic' | 'sharded',
): Promise<{ child: ChildProcess; port: number }> {
  const fixture = new URL('./fixtures/socket-io-node.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [fixture, String(server.port), kind], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('exit', (code) => reject(new Error(`socket.io node exited ${code}: ${out}`)));
  });
  return { child, port };
}

function socketIoClient(port: number): Promise<Socket> {
  const s = connectSocketIo(`http://127.0.0.1:${port}`, { transports: ['websocket'] });
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

describe.each(['classic', 'sharded'] as const)('@socket.io/redis-adapter (%s)', (kind) => {
  test('two Socket.IO servers in two processes: a broadcast and a room emit from one reach a client of the other', async () => {
    const a = await socketIoNode(kind);
    const b = await socketIoNode(kind);
    const clients: Socket[] = [];
    try {
      const onA = await socketIoClient(a.port);
      const onB = await socketIoClient(b.port);
      clients.push(onA, onB);
      expect(await onB.emitWithAck('join', 'room-1')).toBe('joined');
      const heard = new Promise<string>((resolve) => onB.once('heard', resolve));
      const room = new Promise<string>((resolve) => onB.once('room', resolve));
      onA.emit('shout', 'hello');
      expect(await heard).toBe(`hello (via ${a.child.pid})`);
      onA.emit('to-room', 'room-1', 'for the room');
      expect(await room).toBe('for the room');
      // fetchSockets asks every server through request/response channels.
      expect(await onA.timeout(10_000).emitWithAck('count')).toBe(2);
    } finally {
      for (const c of clients) c.disconnect();
      a.child.kill();
      b.child.kill();
    }
  });
});
