import { Socket } from 'node:net';
import type { RespVersion } from '@strata/protocol';
import { Client } from './client.js';
import { appendErrorReply } from './connection.js';
import type { ServerState } from './server-state.js';

const EMPTY = Buffer.alloc(0);

/**
 * A client with no connection, for a program that embeds the server
 * (`RespServer.local()`): `send(argv)` runs one command through the same
 * dispatch as a socket's (checks, MULTI, WATCH, notifications, the command
 * log) and resolves to its reply's bytes, in `protocol`. Unlike
 * `RespServer.execute` (replay), its writes are logged, and a reply the
 * command log holds (appendfsync always) resolves only once the append
 * settled: a failed append turns it into the error a socket client gets.
 *
 * One command at a time: a caller with several in flight queues them.
 */
export class LocalClient extends Client {
  /** The running command's log appends (its reply waits for them). */
  private appends: Promise<void>[] = [];
  private appendError: string | null = null;
  private busy = false;

  constructor(server: ServerState, protocol: RespVersion) {
    // A socket that is never connected: nothing is read from it or written to it.
    super(server, new Socket(), false);
    this.protocol = protocol;
  }

  /** Runs one command; resolves to its whole reply (an error reply included). */
  send(argv: Buffer[]): Promise<Buffer> {
    if (this.busy) {
      return Promise.reject(new Error('LocalClient runs one command at a time: await the last one'));
    }
    if (this.closed) return Promise.reject(new Error('LocalClient is closed'));
    this.busy = true;
    let pending: ReturnType<Client['execute']>;
    try {
      pending = this.execute(argv);
    } catch (e) {
      this.busy = false;
      return Promise.reject(e);
    }
    if (pending === undefined && this.appends.length === 0) {
      this.busy = false;
      return Promise.resolve(this.reply.flush() ?? EMPTY);
    }
    return this.awaitReply(pending);
  }

  private async awaitReply(pending: ReturnType<Client['execute']>): Promise<Buffer> {
    try {
      if (pending !== undefined) await pending;
      // An append of this command's own (or of an EXEC's writes): its reply waits.
      while (this.appends.length > 0) {
        const appends = this.appends;
        this.appends = [];
        await Promise.all(appends);
      }
      const out = this.reply.flush() ?? EMPTY;
      const error = this.appendError;
      this.appendError = null;
      // Not acknowledged: the reply a socket client gets when its append failed.
      return error === null ? out : Buffer.from(`-${error}\r\n`);
    } finally {
      this.busy = false;
    }
  }

  protected override hold(p: Promise<void>, _start: number, _end: number): void {
    this.appends.push(
      p.then(undefined, (e: unknown) => {
        this.appendError ??= appendErrorReply(e);
      }),
    );
  }

  /** Lets go of the client's state (WATCHed keys, MULTI, the families' slots). */
  close(): void {
    if (!this.closed) this.onClose();
  }
}
