import { createServer, type Socket } from 'node:net';
import type { Database } from './database.js';

export interface ServeOptions {
  /** Default 6379; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1 (exposing a database is a choice). */
  readonly host?: string;
}

/** A database served over RESP. */
export interface Served {
  readonly host: string;
  readonly port: number;
  /** Stops listening and drops this listener's clients; the database stays open. */
  close(): Promise<void>;
}

/**
 * Serves `db` over the Redis protocol in this process: redis-cli and every
 * Redis client see the same databases the embedded calls use, through the
 * same RespServer (its checks, protected mode, command log).
 */
export async function serve<V, K extends 'utf8' | 'buffer'>(
  db: Database<V, K>,
  options: ServeOptions = {},
): Promise<Served> {
  const sockets = new Set<Socket>();
  const listener = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    db.server.accept(socket);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen({ port: options.port ?? 6379, host: options.host ?? '127.0.0.1' }, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  const a = listener.address();
  if (a === null || typeof a === 'string') throw new Error('the listener has no TCP address');
  return {
    host: a.address,
    port: a.port,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
