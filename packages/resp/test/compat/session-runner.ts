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
  /**
   * Connections never sent a marker (their replies may be off: CLIENT
   * REPLY OFF): what they get is read once nothing more arrived for a
   * short while (`SessionPeer.quiet`), after each step.
   */
  readonly unmarked?: readonly number[];
  /** Each connection's address (`127.0.0.1:port`) is printed `<peer N>` (MONITOR lines, SLOWLOG entries). */
  readonly peerAddresses?: boolean;
  /**
   * Each step: the connection (0, 1, ...) and the command it sends. An
   * argument `$id:N` stands for connection N's client id (CLIENT TRACKING
   * REDIRECT); a case that uses one must not print ids, which differ.
   * A step may block (XREAD / XREADGROUP BLOCK 0): `[n] <blocked>`, and the
   * reply is printed after the step that served it (see runSession).
   */
  readonly steps: readonly SessionStep[];
}

/**
 * One command on connection `n`, or several sent together with no marker
 * between them (a marker is a PING: it would be the "next command" that
 * CLIENT CACHING speaks of).
 */
export type SessionStep =
  | readonly [number, ...string[]]
  | { readonly on: number; readonly pipeline: readonly (readonly string[])[] }
  /**
   * A command sent with no marker (one held by CLIENT PAUSE): printed
   * `<no reply>` if nothing came meanwhile; its connection is unmarked from then on.
   */
  | { readonly on: number; readonly send: readonly string[] }
  /** A pause (a key's expiry to pass), on no connection. */
  | { readonly sleepMs: number };

const MARKER = encodeCommand(['PING', '__end__']);
/** The marker's reply: a bulk string, or in the RESP2 pub/sub context a ["pong", "__end__"] frame. */
const MARKER_REPLIES = ['*2\r\n$4\r\npong\r\n$7\r\n__end__\r\n', '$7\r\n__end__\r\n'];

/** The first marker reply in `text`: where it starts and its length. */
function markerIn(text: string): { at: number; length: number } | null {
  let best: { at: number; length: number } | null = null;
  for (const m of MARKER_REPLIES) {
    const at = text.indexOf(m);
    if (at >= 0 && (best === null || at < best.at)) best = { at, length: m.length };
  }
  return best;
}

/**
 * A connection that reads up to the marker's reply: `exchange` sends a
 * command (or nothing) and the marker, and returns what came before the
 * marker's reply, keeping anything after it (a push that arrived in the same
 * read) for the next exchange.
 */
export class SessionPeer {
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

  static open(port: number): Promise<SessionPeer> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new SessionPeer(s)));
      s.once('error', reject);
    });
  }

  /** Sends `bytes` and the marker; the text that came before the marker's reply (`<closed>` at the end when the server closed). */
  exchange(bytes: Buffer | null, timeoutMs = 10_000): Promise<string> {
    if (this.closed) return Promise.resolve('');
    this.send(bytes);
    return this.read(timeoutMs);
  }

  /** Sends `bytes` (if any) and the marker, without waiting (a command that may block). */
  send(bytes: Buffer | null): void {
    this.socket.write(bytes === null ? MARKER : Buffer.concat([bytes, MARKER]));
  }

  /** What arrived until nothing more came for `quietMs` (a connection sent no marker). */
  async quiet(quietMs = 60): Promise<string> {
    let seen = -1;
    while (seen !== this.got.length) {
      seen = this.got.length;
      await sleep(quietMs);
    }
    const text = this.got;
    this.got = '';
    return text;
  }

  /** Has a marker's reply (or the close) come? */
  answered(): boolean {
    return this.closed || markerIn(this.got) !== null;
  }

  /** Waits for a marker's reply; the text before it (`<closed>` at the end when the server closed). */
  async read(timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = markerIn(this.got);
      if (found !== null) {
        const text = this.got.slice(0, found.at);
        this.got = this.got.slice(found.at + found.length);
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

// A step that may block (XREAD / XREADGROUP with BLOCK 0, WAIT with no timeout; outside MULTI)
// is sent with its marker; either the marker's reply comes (it answered at
// once: printed as usual) or the server counts one more blocked client
// (INFO clients, on a connection of the runner's own): `[n] <blocked>`.
// After every later step, the clients it served (the blocked count went
// down by as many) are read up to the marker they sent, and printed after
// the step's reply, in connection order; then the other connections'
// pushes.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** XREAD / XREADGROUP with BLOCK 0 among the options before STREAMS; WAIT for replicas with no timeout. */
function mayBlock(argv: readonly string[]): boolean {
  const name = argv[0]!.toLowerCase();
  if (name === 'wait') return argv[2] === '0' && Number(argv[1]) > 0;
  if (name !== 'xread' && name !== 'xreadgroup') return false;
  for (let i = 1; i + 1 < argv.length; i++) {
    const a = argv[i]!.toLowerCase();
    if (a === 'streams') return false;
    if (a === 'block' && argv[i + 1] === '0') return true;
  }
  return false;
}

function isCommand(s: SessionStep): s is readonly [number, ...string[]] {
  return !('on' in s) && !('sleepMs' in s);
}

function commandOf(step: readonly [number, ...string[]]): readonly string[] {
  const [, ...argv] = step;
  return argv;
}

/** Runs a session case on fresh connections; the transcript, `[n] replies` per connection per step. */
export async function runSession(port: number, c: SessionCase): Promise<string> {
  const conn = (s: SessionStep) => ('sleepMs' in s ? 0 : 'on' in s ? s.on : s[0]);
  const count = Math.max(...c.steps.map(conn), ...(c.resp3 ?? [])) + 1;
  const blocking = c.steps.some((s) => isCommand(s) && mayBlock(commandOf(s)));
  // Only a case that may block needs the runner's own connection (it counts blocked clients).
  const control = blocking ? await SessionPeer.open(port) : null;
  const peers = await Promise.all(Array.from({ length: count }, () => SessionPeer.open(port)));
  const blockedClients = async () => {
    const info = await control!.exchange(encodeCommand(['INFO', 'clients']));
    return Number(/blocked_clients:(\d+)/.exec(info)![1]);
  };
  try {
    // Clients a case before left blocked go away once the server sees them close.
    for (
      const deadline = Date.now() + 5000;
      blocking && (await blockedClients()) !== 0;
      await sleep(5)
    ) {
      if (Date.now() > deadline) throw new Error('blocked clients left from before');
    }
    const ids: number[] = [];
    for (const p of peers)
      ids.push(Number((await p.exchange(encodeCommand(['CLIENT', 'ID']))).slice(1, -2)));
    for (const i of c.resp3 ?? []) await peers[i]!.exchange(encodeCommand(['HELLO', '3']));
    const resolve = (a: string) => (a.startsWith('$id:') ? String(ids[Number(a.slice(4))]) : a);
    const out: string[] = [];
    const blocked = new Set<number>();
    const unmarked = new Set(c.unmarked ?? []);
    /** The blocked clients step `n` served, then what the others received meanwhile. */
    const afterStep = async (n: number) => {
      if (blocked.size > 0) {
        const served = blocked.size - (await blockedClients());
        const deadline = Date.now() + 10_000;
        while ([...blocked].filter((j) => peers[j]!.answered()).length < served) {
          if (Date.now() > deadline) throw new Error(`never ${served} served clients`);
          await sleep(2);
        }
        for (const j of [...blocked].sort((a, b) => a - b)) {
          if (!peers[j]!.answered()) continue;
          out.push(`[${j}] ${await peers[j]!.read()}`);
          blocked.delete(j);
        }
      }
      for (let j = 0; j < count; j++) {
        if (j === n || blocked.has(j)) continue;
        const text = unmarked.has(j) ? await peers[j]!.quiet() : await peers[j]!.exchange(null);
        if (text !== '') out.push(`[${j}] ${text}`);
      }
    };
    const inMulti = peers.map(() => false);
    for (const step of c.steps) {
      if ('sleepMs' in step) {
        await sleep(step.sleepMs);
        continue;
      }
      const n = conn(step);
      if (blocked.has(n))
        throw new Error(`connection ${n} is blocked: it cannot send\n${out.join('\n')}`);
      if ('send' in step || (unmarked.has(n) && isCommand(step))) {
        const argv = 'send' in step ? step.send : commandOf(step);
        unmarked.add(n);
        peers[n]!.socket.write(encodeCommand(argv.map(resolve)));
        const text = await peers[n]!.quiet();
        out.push(`[${n}] ${text === '' ? '<no reply>' : text}`);
        await afterStep(n);
        continue;
      }
      if ('on' in step) {
        const bytes = step.pipeline.map((argv) => encodeCommand(argv.map(resolve)));
        out.push(`[${n}] ${await peers[n]!.exchange(Buffer.concat(bytes))}`);
        await afterStep(n);
        continue;
      }
      const [, ...given] = step;
      const argv = given.map(resolve);
      const name = argv[0]!.toLowerCase();
      if (name === 'multi') inMulti[n] = true;
      if (inMulti[n] && name !== 'exec' && name !== 'discard') {
        peers[n]!.socket.write(encodeCommand(argv));
        continue;
      }
      inMulti[n] = false;
      if (blocking && mayBlock(argv)) {
        peers[n]!.send(encodeCommand(argv));
        for (const deadline = Date.now() + 10_000; ; await sleep(2)) {
          if (peers[n]!.answered()) {
            out.push(`[${n}] ${await peers[n]!.read()}`);
            break;
          }
          if ((await blockedClients()) > blocked.size) {
            blocked.add(n);
            out.push(`[${n}] <blocked>`);
            break;
          }
          if (Date.now() > deadline)
            throw new Error(`${argv.join(' ')}: neither answered nor blocked`);
        }
        await afterStep(n);
        continue;
      }
      out.push(`[${n}] ${await peers[n]!.exchange(encodeCommand(argv))}`);
      await afterStep(n);
    }
    let transcript = out.join('\n');
    if (c.peerAddresses === true) {
      peers.forEach((p, i) => {
        transcript = transcript.replaceAll(`127.0.0.1:${p.socket.localPort}`, `<peer ${i}>`);
      });
    }
    return transcript;
  } finally {
    for (const p of peers) p.socket.destroy();
    control?.socket.destroy();
  }
}
