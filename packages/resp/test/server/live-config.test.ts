import { Store } from '@strata/hlog';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, test } from 'vitest';
import type { AppParameter } from '../../src/commands/server/app-parameter.js';
import { dynamicHz, expiryRate } from '../../src/server/expiry-pace.js';
import { startServer, type TestServer } from '../support/test-server.js';

let t: TestServer | null = null;
let client: Redis | null = null;
afterEach(async () => {
  client?.disconnect();
  client = null;
  await t?.stop();
  t = null;
});

async function connect(options: Parameters<typeof startServer>[0] = {}): Promise<Redis> {
  t = await startServer(options);
  client = new Redis({ port: t.port, host: '127.0.0.1', lazyConnect: true });
  await client.connect();
  return client;
}

function storeOf(db: number): Store {
  const store = t!.server.keyspace.get(db);
  if (!(store instanceof Store)) throw new Error(`database ${db} is not open`);
  return store;
}

describe('hz and active-expire-effort pace the expiry cycle', () => {
  test("Redis's scaling: hz slices a second, +25% of the buckets a step of effort", () => {
    expect(expiryRate(10, 1)).toEqual({ intervalMs: 100, buckets: 1024 });
    expect(expiryRate(500, 10)).toEqual({ intervalMs: 2, buckets: 3328 });
    expect(expiryRate(1, 5)).toEqual({ intervalMs: 1000, buckets: 2048 });
  });

  test('CONFIG SET changes every open store, and the ones opened later', async () => {
    const c = await connect();
    await c.set('k', 'v');
    expect(storeOf(0).expiryRate).toEqual({ intervalMs: 100, buckets: 1024 });
    expect(await c.config('SET', 'hz', '50')).toBe('OK');
    expect(storeOf(0).expiryRate).toEqual({ intervalMs: 20, buckets: 1024 });
    expect(await c.config('SET', 'active-expire-effort', '3')).toBe('OK');
    expect(storeOf(0).expiryRate).toEqual({ intervalMs: 20, buckets: 1536 });
    // Redis clamps hz to 500: so does the rate.
    expect(await c.config('SET', 'hz', '100000')).toBe('OK');
    expect(await c.config('GET', 'hz')).toEqual(['hz', '500']);
    expect(storeOf(0).expiryRate).toEqual({ intervalMs: 2, buckets: 1536 });
    await c.select(3);
    await c.set('k', 'v');
    expect(storeOf(3).expiryRate).toEqual({ intervalMs: 2, buckets: 1536 });
    // The cycle still runs: a key with a TTL goes without being read.
    await c.set('gone', 'v', 'PX', 5);
    const deadline = Date.now() + 10_000;
    while ((await c.dbsize()) > 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await c.dbsize()).toBe(1);
  });
});

describe('dynamic-hz', () => {
  test("Redis's rule: hz doubles while more than 200 clients share a tick, at most 500", () => {
    expect(dynamicHz(10, 2000)).toBe(10);
    expect(dynamicHz(10, 2001)).toBe(20);
    expect(dynamicHz(1, 201)).toBe(2);
    expect(dynamicHz(1, 1000)).toBe(8);
    expect(dynamicHz(300, 1_000_000)).toBe(500);
  });

  test('many clients raise the expiry pace while dynamic-hz is yes; INFO server says so', async () => {
    const c = await connect();
    await c.set('k', 'v');
    expect(await c.config('SET', 'hz', '1')).toBe('OK');
    expect(storeOf(0).expiryRate).toEqual({ intervalMs: 1000, buckets: 1024 });
    const more: Redis[] = [];
    try {
      // 201 and more clients on hz 1: two ticks a second.
      for (let i = 0; i < 210; i++) {
        const x = new Redis({ port: t!.port, host: '127.0.0.1', lazyConnect: true });
        await x.connect();
        more.push(x);
      }
      expect(await c.info('server')).toMatch(/\r\nhz:2\r\nconfigured_hz:1\r\n/);
      expect(storeOf(0).expiryRate).toEqual({ intervalMs: 500, buckets: 1024 });
      expect(await c.config('SET', 'dynamic-hz', 'no')).toBe('OK');
      expect(await c.info('server')).toMatch(/\r\nhz:1\r\nconfigured_hz:1\r\n/);
      expect(storeOf(0).expiryRate).toEqual({ intervalMs: 1000, buckets: 1024 });
      expect(await c.config('SET', 'dynamic-hz', 'yes')).toBe('OK');
      expect(storeOf(0).expiryRate).toEqual({ intervalMs: 500, buckets: 1024 });
    } finally {
      for (const x of more) x.disconnect();
    }
    // The clients gone, the pace goes back.
    const deadline = Date.now() + 10_000;
    while (storeOf(0).expiryRate?.intervalMs !== 1000 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(storeOf(0).expiryRate).toEqual({ intervalMs: 1000, buckets: 1024 });
  });
});

describe("an app's parameters (RespServerOptions.appParameters)", () => {
  function appSave(calls: string[], refuse: string | null): AppParameter {
    let value = '3600 1';
    return {
      get: () => value,
      set(text) {
        calls.push(text);
        if (refuse !== null && text === refuse) return 'Unable to apply it. Check server logs.';
        value = text;
        return undefined;
      },
    };
  }

  test('CONFIG GET reads the app, CONFIG SET hands it the value as checked and printed', async () => {
    const calls: string[] = [];
    const c = await connect({ appParameters: { save: appSave(calls, null) } });
    expect(await c.config('GET', 'save')).toEqual(['save', '3600 1']);
    expect(await c.config('SET', 'save', '060 +10')).toBe('OK');
    // A value unchanged is not applied again, as Redis's apply functions.
    expect(await c.config('SET', 'save', '60 10')).toBe('OK');
    expect(calls).toEqual(['60 10']);
    expect(await c.config('GET', 'save')).toEqual(['save', '60 10']);
    // A value Redis refuses never reaches the app.
    await expect(c.config('SET', 'save', '60')).rejects.toThrow(
      "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters",
    );
    expect(calls).toEqual(['60 10']);
  });

  test("an app's failure undoes the parameters set before it in the same CONFIG SET", async () => {
    const calls: string[] = [];
    const c = await connect({ appParameters: { save: appSave(calls, '1 1') } });
    await expect(
      c.config('SET', 'slowlog-max-len', '7', 'save', '1 1', 'maxmemory-samples', '9'),
    ).rejects.toThrow(
      "ERR CONFIG SET failed (possibly related to argument 'save') - Unable to apply it. Check server logs.",
    );
    expect(await c.config('GET', 'slowlog-max-len')).toEqual(['slowlog-max-len', '128']);
    expect(await c.config('GET', 'maxmemory-samples')).toEqual(['maxmemory-samples', '5']);
    expect(await c.config('GET', 'save')).toEqual(['save', '3600 1']);
  });
});
