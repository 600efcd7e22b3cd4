import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RespServer } from '../../src/server/resp-server.js';
import { SMALL_STORE, startServer, type TestServer } from './test-server.js';

/**
 * What the collection command tests share: a server per describe, a
 * temporary directory, a server reopened on the same directory (restart
 * tests), and waiting for clients to be blocked.
 */

export interface OpenServer {
  readonly server: RespServer;
  readonly redis: Redis;
}

/** A server on `dir` with small stores (collections go to disk) and a connected ioredis client. */
export async function openOnDir(dir: string): Promise<OpenServer> {
  const server = new RespServer({ databases: { dir, store: SMALL_STORE } });
  const { port } = await server.listen(0);
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  await redis.connect();
  return { server, redis };
}

/** INFO's blocked_clients, as `r` sees it. */
export async function blocked(r: Redis): Promise<number> {
  const info = await r.info('clients');
  return Number(/blocked_clients:(\d+)/.exec(info)![1]);
}

/** Polls `cond` every 10 ms until it holds; fails after `timeoutMs`. */
export async function until(cond: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A server (startServer's) for the tests of the enclosing describe: started before them, stopped after. */
export function useServer(): () => TestServer {
  let t: TestServer | undefined;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => {
    await t?.stop();
  });
  return () => t!;
}

/** A temporary directory for the tests of the enclosing describe, removed after them. */
export function useTempDir(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return () => dir!;
}
