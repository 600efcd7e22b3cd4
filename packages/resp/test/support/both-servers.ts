import Redis from 'ioredis';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
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
