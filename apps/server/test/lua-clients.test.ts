import Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { describe, expect, test } from 'vitest';
import { serverForFile } from './strata-process.js';

/**
 * Libraries built on Lua scripts, against a real strata-server process:
 * rate-limiter-flexible's RateLimiterRedis (its consume script), and a
 * Redlock-style lock (SET NX PX, released by the compare-and-delete script
 * the Redlock algorithm specifies).
 */
const server = serverForFile();

function ioredis(): Redis {
  return new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
}

describe('Lua-based libraries', () => {
  test('rate-limiter-flexible: 5 points per second, the 6th is refused, then allowed again', async () => {
    const r = ioredis();
    try {
      const limiter = new RateLimiterRedis({
        storeClient: r,
        points: 5,
        duration: 1,
        keyPrefix: 'rl',
      });
      for (let i = 0; i < 5; i++) {
        const res = await limiter.consume('user-1');
        expect(res.remainingPoints).toBe(4 - i);
      }
      const refused = await limiter.consume('user-1').then(
        () => null,
        (e: { remainingPoints: number; msBeforeNext: number }) => e,
      );
      expect(refused).not.toBeNull();
      expect(refused!.remainingPoints).toBe(0);
      expect(refused!.msBeforeNext).toBeGreaterThan(0);
      expect(refused!.msBeforeNext).toBeLessThanOrEqual(1000);
      // Another key has its own points.
      expect((await limiter.consume('user-2')).remainingPoints).toBe(4);
      await new Promise((resolve) => setTimeout(resolve, refused!.msBeforeNext + 50));
      expect((await limiter.consume('user-1')).remainingPoints).toBe(4);
    } finally {
      r.disconnect();
    }
  });

  test('a Redlock-style lock: one holder at a time, released only by its holder', async () => {
    const UNLOCK = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;
    const a = ioredis();
    const b = ioredis();
    try {
      expect(await a.set('lock:res', 'token-a', 'PX', 10_000, 'NX')).toBe('OK');
      expect(await b.set('lock:res', 'token-b', 'PX', 10_000, 'NX')).toBeNull();
      // b cannot release a's lock; a can.
      expect(await b.eval(UNLOCK, 1, 'lock:res', 'token-b')).toBe(0);
      expect(await a.get('lock:res')).toBe('token-a');
      expect(await a.eval(UNLOCK, 1, 'lock:res', 'token-a')).toBe(1);
      expect(await b.set('lock:res', 'token-b', 'PX', 10_000, 'NX')).toBe('OK');
      // Many contenders at once: exactly one wins.
      const clients = Array.from({ length: 10 }, ioredis);
      try {
        await b.eval(UNLOCK, 1, 'lock:res', 'token-b');
        const wins = await Promise.all(
          clients.map((c, i) => c.set('lock:race', `t${i}`, 'PX', 10_000, 'NX')),
        );
        expect(wins.filter((w) => w === 'OK')).toHaveLength(1);
      } finally {
        for (const c of clients) c.disconnect();
      }
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});
