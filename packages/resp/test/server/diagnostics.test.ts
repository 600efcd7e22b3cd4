import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CommandLog } from '../../src/server/command-log.js';
import { HISTOGRAM_BUCKETS_US, histogramBucket } from '../../src/server/latency-histogram.js';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

/**
 * What the diagnostics compat cases cannot compare with Redis 7.0: values
 * that depend on time, commands that go to disk (with the small test
 * stores most keys live there), CLIENT NO-TOUCH (Redis 7.2), the expiries
 * CLIENT PAUSE holds, and CLIENT REPLY over held replies.
 */
let t: TestServer;
let r: Redis;
beforeAll(async () => {
  t = await startServer();
  r = new Redis({ port: t.port, host: '127.0.0.1', lazyConnect: true });
  await r.connect();
});
afterAll(async () => {
  r.disconnect();
  await t.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fills the store past its memory, so the first keys are read from the device. */
async function keysOnDisk(prefix: string): Promise<void> {
  const pipe = r.pipeline();
  for (let i = 0; i < 3000; i++) pipe.set(`${prefix}${i}`, `value-${i}-${'x'.repeat(40)}`);
  await pipe.exec();
}

describe('LATENCY HISTOGRAM buckets', () => {
  // Redis's HDR histogram (1 µs to 1 s, 2 significant digits, in ns) reported by
  // powers of two from 1024 ns: each the highest value of the bin the power is in.
  const highest = (k: number) => {
    const power = 1024 * 2 ** k;
    const binWidth = power < 131_072 ? 512 : power / 128;
    return power + binWidth - 1;
  };

  test('are the highest values of the bins of 1024 ns · 2^k, in µs', () => {
    expect(HISTOGRAM_BUCKETS_US).toEqual(
      Array.from({ length: 21 }, (_, k) => Math.floor(highest(k) / 1000)),
    );
  });

  test('a call of n µs counts in the first bucket whose bin holds n · 1000 ns', () => {
    for (let us = 0; us <= 1_200_000; us++) {
      const ns = Math.min(Math.max(us, 1), 1_000_000) * 1000;
      let k = 0;
      while (ns > highest(k)) k++;
      if (histogramBucket(us) !== k)
        expect({ us, bucket: histogramBucket(us) }).toEqual({ us, bucket: k });
    }
  });
});

describe('per-command time', () => {
  test('INFO commandstats sums each command’s µs; a command on disk counts once it settled', async () => {
    await keysOnDisk('ct:');
    await r.config('RESETSTAT');
    const gets = r.pipeline();
    for (let i = 0; i < 200; i++) gets.get(`ct:${i}`);
    await gets.exec();
    const info = (await r.info('commandstats')) as string;
    const line =
      /cmdstat_get:calls=(\d+),usec=(\d+),usec_per_call=([\d.]+),rejected_calls=0,failed_calls=0/.exec(
        info,
      );
    expect(line).not.toBeNull();
    const [, calls, usec, perCall] = line!;
    expect(Number(calls)).toBe(200);
    expect(Number(usec)).toBeGreaterThan(0);
    // Printed to two decimals: the same rounding, not a tolerance (38.195 prints 38.20).
    expect(perCall).toBe((Number(usec) / 200).toFixed(2));
    const histogram = (await r.call('latency', 'histogram', 'get')) as [string, unknown[]];
    expect(histogram[0]).toBe('get');
    expect(histogram[1]).toEqual(['calls', 200, 'histogram_usec', expect.any(Array)]);
  });

  test('SLOWLOG logs a command that went to disk once it settled, with its disk time', async () => {
    await keysOnDisk('cs:');
    await r.config('SET', 'slowlog-log-slower-than', '0');
    await r.slowlog('RESET');
    expect(await r.get('cs:0')).toMatch(/^value-0-/);
    const [entry] = (await r.slowlog('GET', '1')) as [
      number,
      number,
      number,
      string[],
      string,
      string,
    ][];
    await r.config('SET', 'slowlog-log-slower-than', '10000');
    expect(entry![3]).toEqual(['get', 'cs:0']);
    expect(entry![2]).toBeGreaterThanOrEqual(0);
    expect(Math.abs(entry![1] - Date.now() / 1000)).toBeLessThan(5);
  });
});

describe('CLIENT NO-TOUCH (Redis 7.2)', () => {
  test('ON, OFF, errors; CLIENT LIST flag T; RESET turns it off', async () => {
    const c = await RawClient.connect(t.port);
    try {
      const ask = async (...argv: string[]) => {
        c.send(...argv);
        return c.takeLengthOf('+OK\r\n');
      };
      expect(await ask('client', 'no-touch', 'on')).toBe('+OK\r\n');
      c.send('client', 'info');
      expect(await c.readUntil((s) => s.endsWith('\n\r\n'))).toContain(' flags=T ');
      c.take();
      expect(await ask('client', 'no-touch', 'maybe')).toBe('-ERR syntax error\r\n');
      c.send('client', 'no-touch');
      expect(await c.readUntil((s) => s.endsWith('\r\n'))).toBe(
        "-ERR wrong number of arguments for 'client|no-touch' command\r\n",
      );
      c.take();
      expect(await ask('reset')).toBe('+RESET\r\n');
      c.send('client', 'info');
      expect(await c.readUntil((s) => s.endsWith('\n\r\n'))).toContain(' flags=N ');
    } finally {
      c.close();
    }
  });
});

describe('CLIENT LIST flags of MONITOR and CLIENT PAUSE', () => {
  test('O for a monitor, b for a client held by a pause', async () => {
    const m = await RawClient.connect(t.port);
    const held = await RawClient.connect(t.port);
    try {
      m.send('monitor');
      await m.readUntil((s) => s.startsWith('+OK\r\n'));
      await r.client('PAUSE', '2000', 'WRITE');
      held.send('set', 'fl:k', 'v');
      await sleep(50);
      const list = (await r.client('LIST')) as string;
      expect(list).toMatch(/ flags=O .* cmd=monitor /);
      expect(list).toMatch(/ flags=b .* cmd=set /);
      await r.client('UNPAUSE');
      expect(await held.readUntil((s) => s === '+OK\r\n')).toBe('+OK\r\n');
    } finally {
      m.close();
      held.close();
    }
  });
});

describe('CLIENT PAUSE holds expiries', () => {
  test('a key that expires while paused is announced once the pause ends', async () => {
    await r.config('SET', 'notify-keyspace-events', 'Ex');
    const sub = new Redis({ port: t.port, host: '127.0.0.1' });
    const events: string[] = [];
    await sub.subscribe('__keyevent@0__:expired');
    sub.on('message', (_channel, key: string) => events.push(key));
    try {
      const expiredBefore = Number(
        /expired_keys:(\d+)/.exec((await r.info('stats')) as string)![1],
      );
      await r.set('px:k', 'v', 'PX', 30);
      await r.client('PAUSE', '1500', 'WRITE');
      await sleep(400);
      // Read while paused: gone for the reader, as in Redis, but not announced yet.
      expect(await r.get('px:k')).toBeNull();
      expect(events).toEqual([]);
      const during = Number(/expired_keys:(\d+)/.exec((await r.info('stats')) as string)![1]);
      expect(during).toBe(expiredBefore);
      await r.client('UNPAUSE');
      for (let i = 0; i < 50 && events.length === 0; i++) await sleep(20);
      expect(events).toEqual(['px:k']);
    } finally {
      sub.disconnect();
      await r.config('SET', 'notify-keyspace-events', '');
    }
  });
});

describe('CLIENT REPLY over replies that wait', () => {
  test('a skipped command that went to disk sends nothing, the next one its reply', async () => {
    await keysOnDisk('rs:');
    const c = await RawClient.connect(t.port);
    try {
      c.send('client', 'reply', 'skip');
      c.send('get', 'rs:1');
      c.send('get', 'rs:2');
      const got = await c.readUntil((s) => s.endsWith('\r\n') && s.includes('value-2'));
      expect(got).toBe(`$${'value-2-'.length + 40}\r\nvalue-2-${'x'.repeat(40)}\r\n`);
    } finally {
      c.close();
    }
  });

  test('a write whose command-log append fails under OFF sends no MISCONF', async () => {
    let fail = true;
    const log: CommandLog = {
      append: () => (fail ? Promise.reject(new Error('disk full')) : undefined),
    };
    const s = await startServer({ commandLog: log });
    const c = await RawClient.connect(s.port);
    try {
      c.send('client', 'reply', 'off');
      c.send('set', 'k', 'v');
      c.send('client', 'reply', 'on');
      expect(await c.readUntil((x) => x.length >= 5)).toBe('+OK\r\n');
      fail = false;
      c.take();
      c.send('set', 'k', 'w');
      expect(await c.readUntil((x) => x.length >= 5)).toBe('+OK\r\n');
    } finally {
      c.close();
      await s.stop();
    }
  });
});
