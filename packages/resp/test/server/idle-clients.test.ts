import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * Redis's `timeout`: idle clients are closed, except those idle by design
 * (subscribed, blocked, MONITOR). The sweep runs once a second, so a
 * 1-second timeout closes an idle client within about 2 seconds.
 */
let t: TestServer;
let admin: Redis;
beforeAll(async () => {
  t = await startServer();
  admin = new Redis({ port: t.port, host: '127.0.0.1' });
});
afterAll(async () => {
  admin.disconnect();
  await t.stop();
});

const connect = () =>
  new Redis({
    port: t.port,
    host: '127.0.0.1',
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('timeout', () => {
  test('CONFIG SET timeout closes idle clients, and spares subscribed, blocked and monitoring ones', async () => {
    expect(await admin.config('GET', 'timeout')).toEqual(['timeout', '0']);
    const idle = connect();
    const busy = connect();
    const subscriber = connect();
    const blocked = connect();
    const source = connect();
    // ioredis's monitor() opens a connection of its own for MONITOR.
    const monitor = await source.monitor();
    source.disconnect();
    await Promise.all([idle.ping(), busy.ping(), subscriber.subscribe('ch')]);
    const popped = blocked.blpop('idle-clients:list', 0);
    await sleep(100);
    const idleClosed = once(idle, 'end');
    const ended = new Set<string>();
    const spared = { busy, subscriber, blocked, monitor };
    for (const [name, c] of Object.entries(spared)) c.on('end', () => ended.add(name));
    await admin.config('SET', 'timeout', '1');
    // `busy` talks every 300 ms; `admin` too: neither is idle.
    const talk = setInterval(() => {
      busy.ping().catch(() => {});
      admin.ping().catch(() => {});
    }, 300);
    try {
      await idleClosed;
      await sleep(2500);
      expect([...ended]).toEqual([]);
      await admin.rpush('idle-clients:list', 'x');
      expect(await popped).toEqual(['idle-clients:list', 'x']);
    } finally {
      clearInterval(talk);
      await admin.config('SET', 'timeout', '0');
      for (const c of [idle, busy, subscriber, blocked, monitor]) c.disconnect();
    }
  }, 20_000);

  test('tcp-keepalive is read back as set (new connections take it)', async () => {
    expect(await admin.config('GET', 'tcp-keepalive')).toEqual(['tcp-keepalive', '300']);
    await admin.config('SET', 'tcp-keepalive', '60');
    expect(await admin.config('GET', 'tcp-keepalive')).toEqual(['tcp-keepalive', '60']);
    const c = connect();
    expect(await c.ping()).toBe('PONG');
    c.disconnect();
    await admin.config('SET', 'tcp-keepalive', '300');
  });
});
