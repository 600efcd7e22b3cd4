import { Socket } from 'node:net';
import type { RespVersion } from '@strata/protocol';
import { Client } from './client.js';
import { appendErrorReply } from './connection.js';
import type { ServerState } from './server-state.js';

const EMPTY = Buffer.alloc(0);

/** A command sent while another one still runs. */
interface Waiting {
  readonly argv: Buffer[];
  readonly resolve: (reply: Buffer) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * A client with no connection, for a program that embeds the server
 * (`RespServer.local()`): `send(argv)` runs one command through the same
 * dispatch as a socket's (checks, MULTI, WATCH, notifications, the command
 * log) and resolves to its reply's bytes, in `protocol`. Unlike
 * `RespServer.execute` (replay), its writes are logged, and a reply the
 * command log holds (appendfsync always) resolves only once the append
 * settled: a failed append turns it into the error a socket client gets.
 *
 * Commands sent while one runs wait for it and run in order, as a
 * connection's pipeline. Unlike a connection, the next command runs once
 * the one before it ran, without waiting for that one's append: its reply
 * still waits, so nothing is acknowledged early, and the appends of a
 * pipeline share one sync (group commit).
 */
export class LocalClient extends Client {
  /** The running command's log appends (its reply waits for them). */
  private appends: Promise<void>[] = [];
  private inCommand = false;
  private readonly sentAfter: Waiting[] = [];

  constructor(server: ServerState, protocol: RespVersion) {
    // A socket that is never connected: nothing is read from it or written to it.
    super(server, new Socket(), false);
    this.protocol = protocol;
  }

  /** Runs one command (after those sent before it); resolves to its whole reply, an error reply included. */
  send(argv: Buffer[]): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('LocalClient is closed'));
    if (!this.inCommand && this.sentAfter.length === 0) return this.runNow(argv);
    return new Promise<Buffer>((resolve, reject) => {
      this.sentAfter.push({ argv, resolve, reject });
    });
  }

  private runNow(argv: Buffer[]): Promise<Buffer> {
    this.inCommand = true;
    let pending: ReturnType<Client['execute']>;
    try {
      pending = this.execute(argv);
    } catch (e) {
      this.inCommand = false;
      this.drain();
      return Promise.reject(e);
    }
    if (pending === undefined) return this.ran();
    return pending.then(() => {
      const reply = this.ran();
      this.drain();
      return reply;
    });
  }

  /** The running command ended: its reply, once its appends settled. */
  private ran(): Promise<Buffer> {
    const out = this.reply.flush() ?? EMPTY;
    const appends = this.appends;
    this.appends = [];
    this.inCommand = false;
    if (appends.length === 0) return Promise.resolve(out);
    return Promise.all(appends).then(
      () => out,
      // Not acknowledged: the reply a socket client gets when its append failed.
      (e: unknown) => Buffer.from(`-${appendErrorReply(e)}\r\n`),
    );
  }

  /** Runs the commands that waited, in order, while they finish at once. */
  private drain(): void {
    while (!this.inCommand && this.sentAfter.length > 0) {
      const w = this.sentAfter.shift()!;
      this.runNow(w.argv).then(w.resolve, w.reject);
    }
  }

  protected override hold(p: Promise<void>, _start: number, _end: number): void {
    this.appends.push(p);
  }

  /** Lets go of the client's state (WATCHed keys, MULTI, the families' slots). */
  close(): void {
    if (!this.closed) this.onClose();
  }
}
