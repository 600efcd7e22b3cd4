import { Socket } from 'node:net';
import { StrataError } from '@strata/io';
import { replyEnd } from '@strata/protocol';
import type { ServerState } from '../../server/server-state.js';
import { serverSlot } from '../family.js';

/**
 * MIGRATE's connections to its targets, as cluster.c keeps them: one per
 * `host:port`, reused by later MIGRATEs, closed after 10 s unused
 * (MIGRATE_SOCKET_CACHE_TTL), at most 64 (one dropped at random to make
 * room). Unlike Redis's blocking reads and writes, these are the event
 * loop's: a MIGRATE waits for its target without holding other clients, so
 * MIGRATEs from several clients to one target take turns on its connection
 * (`use`).
 */

const CACHE_TTL_MS = 10_000;
const CACHE_ITEMS = 64;
/** Redis writes the command buffer in chunks of 64 KiB, each under the timeout. */
const WRITE_CHUNK = 64 * 1024;

export type MigrateSocketErrorCode =
  /** connect, write or read did not finish within the timeout. */
  | 'ERR_MIGRATE_TIMEOUT'
  /** The connection failed or was closed. */
  | 'ERR_MIGRATE_IO';

export class MigrateSocketError extends StrataError<MigrateSocketErrorCode> {}

/** A connection to a MIGRATE target, reading its replies a line at a time. */
export class MigrateConnection {
  /** The database SELECTed last, -1 when not known (Redis's last_dbid). */
  lastDb = -1;
  lastUse = Date.now();
  private pending: Buffer = Buffer.alloc(0);
  private failure: MigrateSocketError | null = null;
  private wake: (() => void) | null = null;
  private turn: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly name: string,
    private readonly socket: Socket,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
      this.poke();
    });
    const gone = (e?: Error) => {
      this.failure ??= new MigrateSocketError('ERR_MIGRATE_IO', e?.message ?? 'connection closed');
      this.poke();
    };
    socket.on('error', gone);
    socket.on('close', () => gone());
  }

  /**
   * Connects to `host:port`, as Redis's connBlockingConnect: a name that
   * does not resolve fails here (MIGRATE's `connecting` IOERR); a refused or
   * timed-out connect gives a connection that has failed, so that, as in
   * Redis, the first write is what fails (`writing`, retried once unless
   * it timed out).
   */
  static connect(
    name: string,
    host: string,
    port: number,
    timeoutMs: number,
  ): Promise<MigrateConnection> {
    return new Promise((resolve, reject) => {
      const socket = new Socket();
      const failed = (e: MigrateSocketError) => {
        const conn = new MigrateConnection(name, socket);
        conn.failure = e;
        socket.destroy();
        resolve(conn);
      };
      const timer = setTimeout(
        () => failed(new MigrateSocketError('ERR_MIGRATE_TIMEOUT', 'connect timed out')),
        timeoutMs,
      );
      socket.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.syscall === 'getaddrinfo') {
          socket.destroy();
          reject(new MigrateSocketError('ERR_MIGRATE_IO', e.message));
        } else failed(new MigrateSocketError('ERR_MIGRATE_IO', e.message));
      });
      if (port <= 0 || port > 65535) {
        // C's connect takes the port as 16 bits; Node refuses: a failed connect either way.
        clearTimeout(timer);
        failed(new MigrateSocketError('ERR_MIGRATE_IO', `port ${port} is out of range`));
        return;
      }
      socket.connect({ host, port }, () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        // A cached connection keeps no process alive.
        socket.unref();
        resolve(new MigrateConnection(name, socket));
      });
    });
  }

  /** Runs `fn` once the MIGRATEs before it on this connection are done. */
  use<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turn.then(fn, fn);
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** Writes `bytes` in 64 KiB chunks, each within `timeoutMs`. */
  async write(bytes: Buffer, timeoutMs: number): Promise<void> {
    for (let at = 0; at < bytes.length; at += WRITE_CHUNK) {
      const chunk = bytes.subarray(at, Math.min(bytes.length, at + WRITE_CHUNK));
      await this.within(timeoutMs, 'write', (done) => {
        if (this.failure !== null) return done(this.failure);
        this.socket.write(chunk, (e) =>
          done(e ? new MigrateSocketError('ERR_MIGRATE_IO', e.message) : null),
        );
      });
    }
  }

  /**
   * The next reply's first line, without its CRLF (`+OK`, `-ERR ...`), as
   * connSyncReadLine reads it; the whole reply is consumed.
   */
  async readLine(timeoutMs: number): Promise<string> {
    for (;;) {
      let end: number;
      try {
        end = replyEnd(this.pending, 0);
      } catch {
        throw new MigrateSocketError('ERR_MIGRATE_IO', 'the target sent a malformed reply');
      }
      if (end > 0) {
        const line = this.pending.toString('latin1', 0, this.pending.indexOf('\r\n'));
        this.pending = this.pending.subarray(end);
        return line;
      }
      if (this.failure !== null) throw this.failure;
      await this.within(timeoutMs, 'read', (done) => {
        this.wake = () => done(null);
      });
    }
  }

  close(): void {
    this.failure ??= new MigrateSocketError('ERR_MIGRATE_IO', 'closed');
    this.socket.destroy();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private within(
    timeoutMs: number,
    what: string,
    start: (done: (e: MigrateSocketError | null) => void) => void,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const done = (e: MigrateSocketError | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.wake = null;
        if (e === null) resolve();
        else reject(e);
      };
      const timer = setTimeout(
        () => done(new MigrateSocketError('ERR_MIGRATE_TIMEOUT', `${what} timed out`)),
        timeoutMs,
      );
      start(done);
    });
  }
}

/** The cached connections of one server, by `host:port`. */
class MigrateSockets {
  private readonly byName = new Map<string, MigrateConnection>();
  /** Connects under way: MIGRATEs to one target at once share one. */
  private readonly connecting = new Map<string, Promise<MigrateConnection>>();
  private sweeper: NodeJS.Timeout | null = null;

  /** The cached connection to `host:port`, else a new one (cached). */
  get(host: string, port: string, timeoutMs: number): Promise<MigrateConnection> {
    const name = `${host}:${port}`;
    const cached = this.byName.get(name);
    if (cached !== undefined) {
      cached.lastUse = Date.now();
      return Promise.resolve(cached);
    }
    const under = this.connecting.get(name);
    if (under !== undefined) return under;
    if (this.byName.size >= CACHE_ITEMS) {
      const names = [...this.byName.keys()];
      this.close(names[Math.floor(Math.random() * names.length)]!);
    }
    const made = MigrateConnection.connect(name, host, atoi(port), timeoutMs).then(
      (conn) => {
        this.connecting.delete(name);
        this.byName.set(name, conn);
        this.sweepSoon();
        return conn;
      },
      (e: unknown) => {
        this.connecting.delete(name);
        throw e;
      },
    );
    this.connecting.set(name, made);
    return made;
  }

  /** Closes and forgets the connection to `name` (`host:port`), if it is still the one cached. */
  close(name: string, conn?: MigrateConnection): void {
    const c = this.byName.get(name);
    if (c === undefined || (conn !== undefined && c !== conn)) {
      conn?.close();
      return;
    }
    this.byName.delete(name);
    c.close();
  }

  get size(): number {
    return this.byName.size;
  }

  /** The server is closing: every cached connection closed, the sweep stopped. */
  closeAll(): void {
    for (const name of [...this.byName.keys()]) this.close(name);
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** Redis's migrateCloseTimedoutSockets, run from a timer while any connection is cached. */
  private sweepSoon(): void {
    if (this.sweeper !== null) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [name, c] of this.byName) {
        if (now - c.lastUse > CACHE_TTL_MS) this.close(name);
      }
      if (this.byName.size === 0 && this.sweeper !== null) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, 1000);
    this.sweeper.unref();
  }
}

/** The MIGRATE connections of a server. */
export const migrateSockets = serverSlot(
  'migrate sockets',
  (_server: ServerState) => new MigrateSockets(),
);

/** C's atoi: optional blanks and sign, then digits up to the first other byte (0 if none). */
export function atoi(text: string): number {
  const m = /^[ \t\n\v\f\r]*([+-]?[0-9]+)/.exec(text);
  if (m === null) return 0;
  const n = Number.parseInt(m[1]!, 10);
  return Number.isFinite(n) ? n | 0 : 0;
}
