import Redis from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
import type { RawClient } from './test-server.js';
import { startServer } from './test-server.js';

/**
 * For behaviour checked the same way against strata and a live
 * redis-server (when installed; else strata only, with a warning): the
 * servers to `describe.each` over, and the ioredis and CLIENT LIST helpers
 * such tests share.
 */
export interface Target {
  port: number;
  stop(): Promise<void> | void;
}

export function bothServers(what: string): [string, () => Promise<Target>][] {
  const targets: [string, () => Promise<Target>][] = [['strata', () => startServer()]];
  if (hasRedisServer()) targets.push(['redis', startRedis]);
  else console.warn(`redis-server is not installed: ${what} is checked on strata only`);
  return targets;
}

export function connectRedis(port: number): Promise<Redis> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  return r.connect().then(() => r);
}

/** The fields of the CLIENT LIST line of client `id`, or null when it is gone. */
export async function clientFields(r: Redis, id: number): Promise<Record<string, string> | null> {
  const list = (await r.call('client', 'list')) as string;
  const line = list.split('\n').find((l) => l.startsWith(`id=${id} `));
  if (line === undefined) return null;
  return Object.fromEntries(line.split(' ').map((f) => f.split('=', 2) as [string, string]));
}

/**
 * Starts `start`'s server before the suite, with an ioredis connection to
 * it, and stops both after; read `port` and `redis` inside the tests.
 */
export function useTarget(start: () => Promise<Target>): {
  readonly port: number;
  readonly redis: Redis;
} {
  let target: Target | null = null;
  let redis: Redis | null = null;
  beforeAll(async () => {
    target = await start();
    redis = await connectRedis(target.port);
  });
  afterAll(async () => {
    redis?.disconnect();
    await target?.stop();
  });
  return {
    get port() {
      return target!.port;
    },
    get redis() {
      return redis!;
    },
  };
}

/** The client id of a raw connection (CLIENT ID), read while it still answers plain replies. */
export async function rawClientId(raw: RawClient): Promise<number> {
  raw.send('client', 'id');
  const reply = await raw.readUntil((s) => s.endsWith('\r\n'));
  raw.take();
  return Number(reply.slice(1, -2));
}
