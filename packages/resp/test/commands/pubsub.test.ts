import type Redis from 'ioredis';
import { describe, expect, test } from 'vitest';
import {
  bothServers,
  clientFields,
  connectRedis,
  rawClientId,
  useTarget,
} from '../support/both-servers.js';
import { RawClient, startServer } from '../support/test-server.js';

/**
 * Pub/Sub behaviour that transcripts cannot hold byte for byte (client ids,
 * limits, disconnects), checked the same way against strata and, when it is
 * installed, a live redis-server.
 */
const targets = bothServers('pub/sub behaviour');

async function infoField(r: Redis, name: string): Promise<string | undefined> {
  const info = await r.info('stats');
  return info.match(new RegExp(`^${name}:(.*?)\\r?$`, 'm'))?.[1];
}

async function outputLimits(r: Redis): Promise<string> {
  const reply = (await r.config('GET', 'client-output-buffer-limit')) as string[];
  return reply[1]!;
}

/** Waits until `f` holds (the server closes a client asynchronously). */
async function eventually(f: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A subscriber on a raw socket: its id, read before it entered the pub/sub context. */
async function subscriber(
  port: number,
  ...commands: string[][]
): Promise<{ raw: RawClient; id: number }> {
  const raw = await RawClient.connect(port);
  const id = await rawClientId(raw);
  let frames = 0;
  for (const argv of commands) {
    raw.send(...argv);
    frames += argv.length - 1;
  }
  // Each subscription answers one frame ending in its count.
  await raw.readUntil((s) => (s.match(/\r\n:\d+\r\n/g)?.length ?? 0) >= frames);
  raw.take();
  return { raw, id };
}

describe.each(targets)('pub/sub on %s', (_name, start) => {
  const t = useTarget(start);

  test('CLIENT LIST counts sub=, psub=, ssub= and flags P; INFO counts channels, patterns, shard channels; a close drops them', async () => {
    const s = await subscriber(
      t.port,
      ['subscribe', 'cl:a', 'cl:b'],
      ['psubscribe', 'cl:*'],
      ['ssubscribe', 'cl:s'],
    );
    const f = await clientFields(t.redis, s.id);
    expect(f).toMatchObject({ sub: '2', psub: '1', ssub: '1', flags: 'P' });
    expect(await infoField(t.redis, 'pubsub_channels')).toBe('2');
    expect(await infoField(t.redis, 'pubsub_patterns')).toBe('1');
    expect(await infoField(t.redis, 'pubsubshard_channels')).toBe('1');
    s.raw.close();
    await eventually(async () => (await infoField(t.redis, 'pubsub_channels')) === '0');
    expect(await infoField(t.redis, 'pubsub_patterns')).toBe('0');
    expect(await infoField(t.redis, 'pubsubshard_channels')).toBe('0');
    expect(await t.redis.call('pubsub', 'numsub', 'cl:a')).toEqual(['cl:a', 0]);
  });

  test('CONFIG GET and SET client-output-buffer-limit, class by class', async () => {
    const before = await t.redis.config('GET', 'client-output-buffer-limit');
    expect(before).toEqual([
      'client-output-buffer-limit',
      'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60',
    ]);
    expect(await t.redis.config('SET', 'client-output-buffer-limit', 'pubsub 1mb 512kb 10')).toBe(
      'OK',
    );
    expect(await outputLimits(t.redis)).toBe(
      'normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 10',
    );
    await expect(t.redis.config('SET', 'client-output-buffer-limit', 'pubsub 1mb')).rejects.toThrow(
      "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Wrong number of arguments in buffer limit configuration.",
    );
    await expect(
      t.redis.config('SET', 'client-output-buffer-limit', 'bogus 1 1 1'),
    ).rejects.toThrow('Invalid client class specified in buffer limit configuration.');
    await expect(
      t.redis.config('SET', 'client-output-buffer-limit', 'pubsub 1x 1 1'),
    ).rejects.toThrow('Error in hard, soft or soft_seconds setting in buffer limit configuration.');
    expect(
      await t.redis.config('SET', 'client-output-buffer-limit', 'pubsub 33554432 8388608 60'),
    ).toBe('OK');
    expect(await outputLimits(t.redis)).toBe(
      'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60',
    );
  });

  test('a subscriber that never reads is dropped at the pubsub hard limit; publishers and other clients go on', async () => {
    await t.redis.config('SET', 'client-output-buffer-limit', 'pubsub 1mb 0 0');
    try {
      const s = await subscriber(t.port, ['subscribe', 'slow:a']);
      s.raw.socket.pause();
      const other = await connectRedis(t.port);
      const message = 'x'.repeat(64 * 1024);
      let lastCount = -1;
      // Far more than the kernel's socket buffers hold: the output buffer must pass 1 MB.
      for (let batch = 0; batch < 40 && lastCount !== 0; batch++) {
        const p = t.redis.pipeline();
        for (let i = 0; i < 16; i++) p.publish('slow:a', message);
        const results = await p.exec();
        lastCount = results!.at(-1)![1] as number;
        expect(await other.ping()).toBe('PONG');
      }
      await eventually(async () => (await clientFields(t.redis, s.id)) === null);
      expect(await t.redis.call('pubsub', 'numsub', 'slow:a')).toEqual(['slow:a', 0]);
      expect(await t.redis.publish('slow:a', 'after')).toBe(0);
      other.disconnect();
      s.raw.close();
    } finally {
      await t.redis.config('SET', 'client-output-buffer-limit', 'pubsub 33554432 8388608 60');
    }
  });

  test('over the soft limit for longer than its seconds, a subscriber is dropped', async () => {
    await t.redis.config('SET', 'client-output-buffer-limit', 'pubsub 0 256kb 1');
    try {
      const s = await subscriber(t.port, ['subscribe', 'soft:a']);
      s.raw.socket.pause();
      const message = 'y'.repeat(64 * 1024);
      const publishMany = async (n: number) => {
        const p = t.redis.pipeline();
        for (let i = 0; i < n; i++) p.publish('soft:a', message);
        const results = await p.exec();
        return results!.at(-1)![1] as number;
      };
      // Past the kernel's buffers and the soft limit; still subscribed.
      expect(await publishMany(400)).toBe(1);
      expect(await clientFields(t.redis, s.id)).not.toBeNull();
      await new Promise((res) => setTimeout(res, 2500));
      await publishMany(4);
      await eventually(async () => (await clientFields(t.redis, s.id)) === null);
      s.raw.close();
    } finally {
      await t.redis.config('SET', 'client-output-buffer-limit', 'pubsub 33554432 8388608 60');
    }
  });

  test('one client on 100k channels and 10k patterns: every frame answered, others served, all dropped at close', async () => {
    const raw = await RawClient.connect(t.port);
    for (let base = 0; base < 100_000; base += 10_000) {
      raw.send('subscribe', ...Array.from({ length: 10_000 }, (_, i) => `big:${base + i}`));
    }
    raw.send('psubscribe', ...Array.from({ length: 10_000 }, (_, i) => `bigp:${i}:*`));
    await raw.readUntil((s) => s.endsWith('\r\n:110000\r\n'), 60_000);
    raw.take();
    expect(await t.redis.ping()).toBe('PONG');
    expect(await t.redis.call('pubsub', 'numsub', 'big:0', 'big:99999', 'big:100000')).toEqual([
      'big:0',
      1,
      'big:99999',
      1,
      'big:100000',
      0,
    ]);
    expect(await t.redis.call('pubsub', 'numpat')).toBe(10_000);
    // A publish walks every pattern, as Redis does.
    expect(await t.redis.publish('bigp:42:x', 'm')).toBe(1);
    expect(await t.redis.publish('big:7', 'm')).toBe(1);
    raw.close();
    await eventually(async () => (await t.redis.call('pubsub', 'numpat')) === 0);
    expect(((await t.redis.call('pubsub', 'channels', 'big:*')) as string[]).length).toBe(0);
  }, 120_000);
});

describe('pushes a client causes itself (strata)', () => {
  test('follow the reply of the command that caused them: PUBLISH to oneself, keyspace events of one’s own writes', async () => {
    const t = await startServer();
    try {
      const raw = await RawClient.connect(t.port);
      raw.send('hello', '3');
      await raw.readUntil((s) => s.includes('modules'));
      raw.take();
      raw.send('config', 'set', 'notify-keyspace-events', 'K$');
      raw.send('subscribe', 'self');
      raw.send('psubscribe', '__keyspace@0__:*');
      await raw.readUntil((s) => s.endsWith(':2\r\n'));
      raw.take();
      raw.send('publish', 'self', 'hi');
      expect(await raw.readUntil((s) => s.endsWith('hi\r\n'))).toBe(
        ':1\r\n>3\r\n$7\r\nmessage\r\n$4\r\nself\r\n$2\r\nhi\r\n',
      );
      raw.take();
      raw.send('set', 'own', 'v');
      expect(await raw.readUntil((s) => s.endsWith('set\r\n'))).toBe(
        '+OK\r\n>4\r\n$8\r\npmessage\r\n$16\r\n__keyspace@0__:*\r\n$18\r\n__keyspace@0__:own\r\n$3\r\nset\r\n',
      );
      raw.close();
    } finally {
      await t.stop();
    }
  });
});
