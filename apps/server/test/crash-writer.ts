import { Redis } from 'ioredis';

/** What one connection sent and had acknowledged, per key, across crashes. */
export interface ConnectionLog {
  readonly id: number;
  /** SET s:<id> <id>:<i>: next i to send; acknowledged i's, with the time of their ack. */
  setNext: number;
  setAcked: number;
  setAckedAt: Map<number, number>;
  /** INCR n:<id>: increments sent / acknowledged (the server's value after each). */
  incrSent: number;
  incrAcked: number;
  incrAckedAt: number[];
  /** APPEND a:<id> <id>.<m>; tokens sent / acknowledged. */
  appendSent: number;
  appendAcked: number;
  appendAckedAt: number[];
  /** Length of the value after the tokens sent. */
  appendSentBytes: number;
  /** Replies that were not what the model says (divergence while running). */
  wrongReplies: string[];
}

export function newLog(id: number): ConnectionLog {
  return {
    id,
    setNext: 0,
    setAcked: -1,
    setAckedAt: new Map(),
    incrSent: 0,
    incrAcked: 0,
    incrAckedAt: [],
    appendSent: 0,
    appendAcked: 0,
    appendAckedAt: [],
    appendSentBytes: 0,
    wrongReplies: [],
  };
}

export const token = (id: number, m: number): string => `${id}.${m};`;

/** How many tokens `value` holds if it is exactly tokens 0..m-1 of connection `id`, else -1. */
export function appendTokens(id: number, value: string): number {
  if (value === '') return 0;
  if (!value.endsWith(';')) return -1;
  const parts = value.slice(0, -1).split(';');
  for (let m = 0; m < parts.length; m++) if (parts[m] !== `${id}.${m}`) return -1;
  return parts.length;
}

export function client(port: number): Redis {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    reconnectOnError: () => false,
  });
  r.on('error', () => undefined);
  return r;
}

/**
 * Sends commands on one connection as fast as it can, with up to `window`
 * in flight (pipelined), until the connection dies (the server is killed)
 * or `stopped()`. `send(r, k)` sends the k-th command and records its
 * acknowledgement; its rejection ends the run.
 */
export async function pipelined(
  port: number,
  window: number,
  stopped: () => boolean,
  send: (r: Redis, k: number) => Promise<unknown>,
): Promise<void> {
  const r = client(port);
  try {
    await r.connect();
  } catch {
    return; // killed before this writer got in
  }
  let inFlight = 0;
  let dead = false;
  let wake: (() => void) | null = null;
  const done = () => {
    inFlight--;
    const w = wake;
    wake = null;
    w?.();
  };
  const fail = () => {
    dead = true;
  };
  let k = 0;
  while (!dead && !stopped()) {
    if (inFlight >= window) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      continue;
    }
    inFlight++;
    send(r, k++).then(undefined, fail).finally(done);
    // Let replies in now and then: the window keeps the pipeline full.
    if (k % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  r.disconnect();
}

/**
 * Sends SET, INCR and APPEND as fast as it can on one connection, with up to
 * `window` commands in flight (pipelined), and records each acknowledgement
 * as it comes, until the connection dies (the server is killed) or `stop()`.
 */
export function write(
  port: number,
  log: ConnectionLog,
  window: number,
  stopped: () => boolean,
): Promise<void> {
  const id = log.id;
  return pipelined(port, window, stopped, (r, k) => {
    switch (k % 3) {
      case 0: {
        const i = log.setNext++;
        return r.set(`s:${id}`, `${id}:${i}`).then((reply) => {
          if (reply !== 'OK') log.wrongReplies.push(`SET ${i}: ${reply}`);
          if (i > log.setAcked) log.setAcked = i;
          log.setAckedAt.set(i, Date.now());
        });
      }
      case 1: {
        const n = ++log.incrSent;
        return r.incr(`n:${id}`).then((v) => {
          if (v !== n) log.wrongReplies.push(`INCR #${n}: ${v}`);
          log.incrAcked = n;
          log.incrAckedAt[n] = Date.now();
        });
      }
      default: {
        const m = log.appendSent++;
        log.appendSentBytes += token(id, m).length;
        const expected = log.appendSentBytes;
        return r.append(`a:${id}`, token(id, m)).then((len) => {
          if (len !== expected) log.wrongReplies.push(`APPEND #${m}: ${len} != ${expected}`);
          log.appendAcked = m + 1;
          log.appendAckedAt[m + 1] = Date.now();
        });
      }
    }
  });
}

export interface Verdict {
  /** Acknowledged operations missing after the restart, per kind. */
  lost: { set: number; incr: number; append: number };
  /** How long before the kill the oldest lost acknowledgement came, ms (0: none lost). */
  lostWindowMs: number;
  /** Values the writer never sent (must stay empty). */
  invented: string[];
}

/**
 * Reads the keys after a restart and checks them against what was sent and
 * acknowledged; then resets the model to what the server holds, so the next
 * round continues from it.
 */
export async function verify(
  port: number,
  logs: ConnectionLog[],
  killedAt: number,
): Promise<Verdict> {
  const r = client(port);
  await r.connect();
  const v: Verdict = { lost: { set: 0, incr: 0, append: 0 }, lostWindowMs: 0, invented: [] };
  const lostAt = (t: number | undefined) => {
    if (t !== undefined) v.lostWindowMs = Math.max(v.lostWindowMs, killedAt - t);
  };
  try {
    for (const log of logs) {
      const id = log.id;
      const [s, n, a] = await r.mget(`s:${id}`, `n:${id}`, `a:${id}`);
      // SET: one of the values sent; with everything acknowledged kept, the newest acknowledged or later.
      if (s !== null && s !== undefined) {
        const m = /^(\d+):(\d+)$/.exec(s);
        const i = m === null ? -1 : Number(m[2]);
        if (m === null || Number(m[1]) !== id || i >= log.setNext) v.invented.push(`s:${id}=${s}`);
        else if (i < log.setAcked) {
          v.lost.set += log.setAcked - i;
          lostAt(log.setAckedAt.get(i + 1) ?? log.setAckedAt.get(log.setAcked));
        }
      } else if (log.setAcked >= 0) {
        v.lost.set += log.setAcked + 1;
        lostAt(log.setAckedAt.get(0));
      }
      // INCR: between acknowledged and sent.
      const count = n === null ? 0 : Number(n);
      if (!Number.isInteger(count) || count > log.incrSent || count < 0) {
        v.invented.push(`n:${id}=${n}`);
      } else if (count < log.incrAcked) {
        v.lost.incr += log.incrAcked - count;
        lostAt(log.incrAckedAt[count + 1]);
      }
      // APPEND: exactly the first m tokens, m between acknowledged and sent.
      const value = a ?? '';
      let m = appendTokens(id, value);
      if (m < 0 || m > log.appendSent) {
        v.invented.push(`a:${id}=...${value.slice(-40)} (${value.length} bytes)`);
        m = Math.max(0, m);
      } else if (m < log.appendAcked) {
        v.lost.append += log.appendAcked - m;
        lostAt(log.appendAckedAt[m + 1]);
      }
      // The server's state is the model from now on.
      log.incrSent = log.incrAcked = Number.isInteger(count) ? count : 0;
      log.incrAckedAt.length = log.incrAcked + 1;
      log.appendSent = log.appendAcked = m;
      log.appendSentBytes = value.length;
      log.appendAckedAt.length = m + 1;
      log.setAcked = -1;
      log.setAckedAt.clear();
    }
  } finally {
    r.disconnect();
  }
  return v;
}
