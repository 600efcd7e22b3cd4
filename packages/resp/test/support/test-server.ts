import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCommand } from '@strata/protocol';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { StoreDatabasesOptions } from '../../src/server/keyspace.js';
import { RespServer, type RespServerOptions } from '../../src/server/resp-server.js';

/**
 * Small stores (16 KiB pages, 4 pages of memory), so that after a few
 * hundred keys most of them live on disk and commands go pending.
 */
export const SMALL_STORE = { memory: 64 * 1024, pageSize: 16 * 1024, indexBuckets: 1024 } as const;

export interface TestServer {
  server: RespServer;
  port: number;
  dir: string;
  stop(): Promise<void>;
}

export async function startServer(
  options: Omit<RespServerOptions, 'databases'> & {
    databases?: RespServerOptions['databases'];
    /** The collection cache's budget per database (default: half the log's memory, at least 64 KiB). */
    collectionMemory?: number;
  } = {},
): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'strata-resp-'));
  const { collectionMemory, ...rest } = options;
  const server = new RespServer({
    databases: {
      dir,
      store: { ...SMALL_STORE, checkpointOnClose: false },
      ...(collectionMemory !== undefined && { collectionMemory }),
    },
    ...rest,
  });
  const { port } = await server.listen(0);
  return {
    server,
    port,
    dir,
    async stop() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A test server and an ioredis client on it for the whole file: started
 * before the file's tests, stopped after them. Read `server` and `client`
 * inside tests (they are set by then).
 */
export function serverWithClient(): { readonly server: TestServer; readonly client: Redis } {
  let server: TestServer | null = null;
  let client: Redis | null = null;
  beforeAll(async () => {
    server = await startServer();
    client = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: true });
    await client.connect();
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });
  return {
    get server() {
      if (server === null) throw new Error('the server starts in beforeAll');
      return server;
    },
    get client() {
      if (client === null) throw new Error('the client connects in beforeAll');
      return client;
    },
  };
}

/** A raw connection: write bytes, read back exactly what the server sends. */
export class RawClient {
  readonly socket: Socket;
  private data = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => {
      this.data = Buffer.concat([this.data, d]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  write(bytes: string | Uint8Array): void {
    this.socket.write(bytes);
  }

  send(...argv: (string | Buffer)[]): void {
    this.socket.write(encodeCommand(argv));
  }

  /** Waits until `pred` holds for everything received (or the socket closed, or the timeout); returns it all. */
  async readUntil(pred: (s: string) => boolean, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.data.toString('latin1'))) {
      if (this.closed) break;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timeout; got ${JSON.stringify(this.data.toString('latin1'))}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.data.toString('latin1');
  }

  /**
   * Waits until as many bytes as `expected` has arrived (or the socket
   * closed), returns everything received and clears it. It asserts
   * nothing: the caller compares what it got.
   */
  async takeLengthOf(expected: string, timeoutMs = 5000): Promise<string> {
    const got = await this.readUntil((s) => s.length >= expected.length, timeoutMs);
    this.data = Buffer.alloc(0);
    return got;
  }

  async waitClosed(timeoutMs = 5000): Promise<void> {
    await this.readUntil(() => this.closed, timeoutMs);
  }

  take(): string {
    const s = this.data.toString('latin1');
    this.data = Buffer.alloc(0);
    return s;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A server on a directory of the test's and a client on it (`serversOnDirs`). */
export interface DirServer {
  readonly server: RespServer;
  readonly redis: Redis;
}

/**
 * Servers over directories a test names, one at a time, closed after each
 * test: `open(dir)` starts one (with `databases` options besides `dir`),
 * `restart(dir)` closes the current one and opens the directory again, as
 * a process restart would.
 */
export function serversOnDirs(databases: Omit<StoreDatabasesOptions, 'dir'>): {
  open(dir: string): Promise<DirServer>;
  restart(dir: string): Promise<DirServer>;
} {
  let running: DirServer | null = null;
  const close = async () => {
    running?.redis.disconnect();
    await running?.server.close();
    running = null;
  };
  afterEach(close);
  const open = async (dir: string): Promise<DirServer> => {
    const server = new RespServer({ databases: { dir, ...databases } });
    const { port } = await server.listen(0);
    const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
    await redis.connect();
    running = { server, redis };
    return running;
  };
  return {
    open,
    async restart(dir) {
      await close();
      return open(dir);
    },
  };
}
