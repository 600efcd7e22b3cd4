import { connect, type Socket } from 'node:net';
import { encodeCommand } from '@strata/protocol';

/**
 * A differential case over several connections at once (pub/sub: one
 * subscribes, another publishes). Every step sends one command on one
 * connection; then every connection is read up to a marker, so the
 * transcript holds each reply and each push frame where it arrived.
 */
export interface SessionCase {
  readonly name: string;
  /** Connections that speak RESP3 (HELLO 3 first, its reply not compared). */
  readonly resp3?: readonly number[];
  /** Each step: the connection (0, 1, ...) and the command it sends. */
  readonly steps: readonly (readonly [number, ...string[]])[];
}

const MARKER = encodeCommand(['PING', '__end__']);
/** The marker's reply: a bulk string, or in the RESP2 pub/sub context a ["pong", "__end__"] frame. */
const MARKER_REPLIES = ['*2\r\n$4\r\npong\r\n$7\r\n__end__\r\n', '$7\r\n__end__\r\n'];

class Peer {
  private got = '';
  private wake: (() => void) | null = null;
  closed = false;

  constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.got += d.toString('latin1');
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<Peer> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new Peer(s)));
      s.once('error', reject);
    });
  }

  /** Sends `bytes` and the marker; the text that came before the marker's reply (`<closed>` at the end when the server closed). */
  async exchange(bytes: Buffer | null, timeoutMs = 10_000): Promise<string> {
    if (this.closed) return '';
    this.socket.write(bytes === null ? MARKER : Buffer.concat([bytes, MARKER]));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const marker = MARKER_REPLIES.find((m) => this.got.endsWith(m));
      if (marker !== undefined) {
        const text = this.got.slice(0, this.got.length - marker.length);
        this.got = '';
        return text;
      }
      if (this.closed) {
        const text = `${this.got}<closed>`;
        this.got = '';
        return text;
      }
      if (Date.now() > deadline) throw new Error(`timeout; got ${JSON.stringify(this.got)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}

/** Runs a session case on fresh connections; the transcript, `[n] replies` per connection per step. */
export async function runSession(port: number, c: SessionCase): Promise<string> {
  const count = Math.max(...c.steps.map((s) => s[0])) + 1;
  const peers = await Promise.all(Array.from({ length: count }, () => Peer.open(port)));
  try {
    for (const i of c.resp3 ?? []) await peers[i]!.exchange(encodeCommand(['HELLO', '3']));
    const out: string[] = [];
    // Inside MULTI the marker would be queued too: commands up to EXEC or
    // DISCARD go out alone, and their replies come with that one's.
    const inMulti = peers.map(() => false);
    for (const [n, ...argv] of c.steps) {
      const name = argv[0]!.toLowerCase();
      if (name === 'multi') inMulti[n] = true;
      if (inMulti[n] && name !== 'exec' && name !== 'discard') {
        peers[n]!.socket.write(encodeCommand(argv));
        continue;
      }
      inMulti[n] = false;
      out.push(`[${n}] ${await peers[n]!.exchange(encodeCommand(argv))}`);
      for (let j = 0; j < count; j++) {
        if (j === n) continue;
        const text = await peers[j]!.exchange(null);
        if (text !== '') out.push(`[${j}] ${text}`);
      }
    }
    return out.join('\n');
  } finally {
    for (const p of peers) p.socket.destroy();
  }
}
