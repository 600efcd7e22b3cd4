import { describe, expect, test } from 'vitest';
import { bothServers, useTarget } from '../support/both-servers.js';
import { RawClient } from '../support/test-server.js';

/**
 * `expired` events from active expiry: keys nobody touches after their
 * expiry passes are published once each, whether their records are in
 * memory or on the device (strata's test server holds 64 KiB of memory: the
 * filler pushes the first keys out), the same as redis-server does.
 */
const targets = bothServers('active expiry events');

describe.each(targets)('active expiry on %s', (_name, start) => {
  const t = useTarget(start);

  test('every key with a passed expiry is published as expired once, untouched, in memory or on disk', async () => {
    const r = t.redis;
    const listener = await RawClient.connect(t.port);
    try {
      await r.config('SET', 'notify-keyspace-events', 'Ex');
      listener.send('subscribe', '__keyevent@0__:expired');
      await listener.readUntil((s) => s.endsWith(':1\r\n'));
      listener.take();
      const early = Array.from({ length: 20 }, (_, i) => `ax:early:${i}`);
      for (const k of early) await r.set(k, 'v', 'PX', 400);
      // Filler after them: their records leave memory (strata); no expiry on it.
      const fill: string[] = [];
      for (let i = 0; i < 3000; i++) fill.push(`ax:fill:${i}`, 'x'.repeat(20));
      await r.mset(...fill);
      const late = Array.from({ length: 20 }, (_, i) => `ax:late:${i}`);
      for (const k of late) await r.set(k, 'v', 'PX', 300);
      const expected = [...early, ...late].sort();
      await listener.readUntil(
        (s) => (s.match(/\$7\r\nmessage\r\n/g)?.length ?? 0) >= expected.length,
        10_000,
      );
      const got = listener.take();
      const keys = [...got.matchAll(/\$\d+\r\n(ax:[a-z]+:\d+)\r\n/g)].map((m) => m[1]!).sort();
      expect(keys).toEqual(expected);
      // Nothing twice: a later count or lookup of them publishes nothing more.
      expect(await r.exists(...expected)).toBe(0);
      expect(await r.dbsize()).toBe(3000);
      await new Promise((res) => setTimeout(res, 300));
      expect(listener.take()).toBe('');
      await r.config('SET', 'notify-keyspace-events', '');
    } finally {
      listener.close();
    }
  }, 30_000);
});
