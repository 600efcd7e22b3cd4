import { connect, type Socket } from 'node:net';
import { encodeCommand, ReplyReader } from '@strata/protocol';

/**
 * A well-behaved client for the fuzz harness's watchers (PING monitor,
 * control client, admin): one command at a time, each reply awaited, with a
 * time bound, so a server that stops answering is noticed.
 */
export class RequestConnection {
  private readonly waiting: ((reply: Buffer | Error) => void)[] = [];
  private readonly reader: ReplyReader;
  private closedError: Error | null = null;

  private constructor(readonly socket: Socket) {
    this.reader = new ReplyReader((reply) => this.waiting.shift()?.(reply));
    socket.on('data', (d: Buffer) => {
      try {
        this.reader.feed(d);
      } catch (e) {
        this.fail(e as Error);
      }
    });
    socket.on('close', () => this.fail(new Error('connection closed')));
    socket.on('error', () => undefined);
  }

  static open(port: number, host = '127.0.0.1'): Promise<RequestConnection> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host, noDelay: true }, () => {
        s.off('error', reject);
        resolve(new RequestConnection(s));
      });
      s.once('error', reject);
    });
  }

  private fail(e: Error): void {
    this.closedError ??= e;
    for (const w of this.waiting.splice(0)) w(e);
  }

  /** Sends one command; resolves to its whole reply, rejects after `timeoutMs`. */
  call(argv: ReadonlyArray<string | Uint8Array>, timeoutMs = 30_000): Promise<Buffer> {
    if (this.closedError !== null) return Promise.reject(this.closedError);
    return new Promise((resolve, reject) => {
      // A reply that never came would pair every later reply with the wrong
      // call: the connection is done.
      const timer = setTimeout(() => {
        this.fail(new Error(`no reply to ${String(argv[0])} in ${timeoutMs} ms`));
        this.socket.destroy();
      }, timeoutMs);
      this.waiting.push((r) => {
        clearTimeout(timer);
        if (r instanceof Error) reject(r);
        else resolve(r);
      });
      this.socket.write(encodeCommand(argv));
    });
  }

  close(): void {
    this.socket.destroy();
  }
}
