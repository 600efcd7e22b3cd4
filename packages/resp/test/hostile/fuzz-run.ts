import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Prng } from '@strata/io';
import { encodeCommand, ReplyReader } from '@strata/protocol';
import { type DatabaseProvider, storeDatabases } from '../../src/server/keyspace.js';
import { RespServer } from '../../src/server/resp-server.js';
import type { FrameKind } from './frame-generator.js';
import { RequestConnection } from './request-connection.js';
import { buildSession, type Session } from './session.js';

/**
 * The hostile-input fuzz harness: many connections at once send random and
 * mutated RESP frames over real sockets, split at random points, while a
 * PING monitor, a control client (SET/GET, every value checked) and memory
 * samples watch the server. Every session's outcome is checked against what
 * Redis does with the same bytes (a RequestParser fed them: replies before a
 * protocol error, the error in Redis's words, the close), so the same run
 * against redis-server checks the parser itself.
 */
export interface FuzzOptions {
  /** Frames to send, over all connections. */
  readonly frames: number;
  readonly seed: number;
  /** Fuzz connections open at once. Default 64. */
  readonly connections?: number;
  /** Most frames per connection (a protocol error ends one sooner). Default 300. */
  readonly maxFrames?: number;
  /**
   * A server to attack instead of an in-process RespServer (e.g. redis-server,
   * started with the same proto-max-bulk-len and output buffer limit).
   */
  readonly target?: { readonly port: number; readonly name: string };
  /** proto-max-bulk-len of the server. Default 4 MB. */
  readonly maxBulkLength?: number;
  /** Client output buffer limit of the server. Default 16 MB. */
  readonly outputBufferLimit?: number;
  /** Memory of each database's store (in-process server). Default 1 MB. */
  readonly storeMemory?: number;
  /** One never-reading client per this many sessions (0: none). Default 400. */
  readonly stalledEvery?: number;
  /** A PING slower than this is a failure. Default 5000 ms. */
  readonly pingBoundMs?: number;
  /** How long a session may take to be answered. Default 30 s. */
  readonly sessionTimeoutMs?: number;
  /** Called every few seconds. */
  readonly onProgress?: (p: { frames: number; sessions: number; seconds: number }) => void;
  /** Wraps the in-process server's databases (fault injection: see failing-reads.ts). */
  readonly wrapDatabases?: (provider: DatabaseProvider) => DatabaseProvider;
  /** Replay: run these session seeds (from a report's failures), in order, instead of random ones. */
  readonly sessions?: readonly number[];
}

export interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
  /** Buffers and other memory outside the JS heap. */
  readonly external: number;
}

export interface FuzzReport {
  readonly target: string;
  readonly seed: number;
  readonly seconds: number;
  readonly frames: number;
  readonly bytes: number;
  readonly sessions: number;
  /** Commands the server ran for fuzz connections (one reply each, checked). */
  readonly commands: number;
  readonly kinds: Record<string, number>;
  /** How sessions ended: protocol error (by message), between requests, inside one. */
  readonly endings: Record<string, number>;
  readonly stalled: { readonly sessions: number; readonly disconnected: number };
  /**
   * Sessions ended by a connection reset before the protocol error arrived
   * (only allowed of an external server: redis-server closes with input
   * unread, and the RST can overtake its reply; ours ends gracefully).
   */
  readonly resets: number;
  readonly ping: { readonly count: number; readonly maxMs: number; readonly p99Ms: number };
  readonly control: { readonly ops: number; readonly mismatches: number };
  /** In-process only: before, peak during, and after the run (after a GC). */
  readonly memory: {
    readonly baseline: MemorySample;
    readonly peak: MemorySample;
    readonly final: MemorySample;
  } | null;
  /** Clients the server still had once every fuzz connection was gone (watchers excluded). */
  readonly clientsLeft: number | null;
  readonly uncaught: string[];
  /** Each failed check, with the session seed that reproduces it. */
  readonly failures: string[];
}

const BIG_KEY = 'fuzz:big';
const RESET = 'reset';
const BIG_VALUE_BYTES = 1 << 20;

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const connections = options.connections ?? 64;
  const maxBulkLength = options.maxBulkLength ?? 4 << 20;
  const outputBufferLimit = options.outputBufferLimit ?? 16 << 20;
  const stalledEvery = options.stalledEvery ?? 400;
  const pingBoundMs = options.pingBoundMs ?? 5000;
  const sessionTimeoutMs = options.sessionTimeoutMs ?? 30_000;
  const maxFrames = options.maxFrames ?? 300;
  const failures: string[] = [];
  const fail = (m: string) => {
    if (failures.length < 50) failures.push(m);
  };
  const uncaught: string[] = [];
  const onUncaught = (e: unknown) => uncaught.push(String((e as Error)?.stack ?? e));
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);

  let server: RespServer | null = null;
  let dir: string | null = null;
  let port: number;
  if (options.target === undefined) {
    dir = await mkdtemp(join(tmpdir(), 'strata-fuzz-'));
    const databases = storeDatabases({
      dir,
      store: {
        memory: options.storeMemory ?? 1 << 20,
        pageSize: 32 * 1024,
        indexBuckets: 4096,
        checkpointOnClose: false,
      },
    });
    server = new RespServer({
      databases: options.wrapDatabases?.(databases) ?? databases,
      maxBulkLength,
      outputBufferLimit,
      maxclients: connections + stalledCap(connections) + 16,
    });
    port = (await server.listen(0)).port;
  } else {
    port = options.target.port;
  }

  const gc = exposeGc();
  const sample = (): MemorySample => {
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
  };
  const admin = await RequestConnection.open(port);
  const big = Buffer.alloc(BIG_VALUE_BYTES, 'b');
  await admin.call(['SET', BIG_KEY, big]);
  gc();
  const baseline = sample();
  let peak = baseline;
  const sampler = setInterval(() => {
    const s = sample();
    peak = {
      rss: Math.max(peak.rss, s.rss),
      heapUsed: Math.max(peak.heapUsed, s.heapUsed),
      external: Math.max(peak.external, s.external),
    };
  }, 100);

  let running = true;
  const ping = pingMonitor(port, pingBoundMs, () => running, fail);
  const control = controlClient(port, options.seed, () => running, fail);

  const master = new Prng(options.seed);
  const started = performance.now();
  let frames = 0;
  let bytes = 0;
  let sessions = 0;
  let commands = 0;
  let stalledSessions = 0;
  let stalledDisconnected = 0;
  let resets = 0;
  const kinds: Record<string, number> = {};
  const endings: Record<string, number> = {};
  let lastProgress = started;

  const sessionOptions = { maxBulkLength, maxFrames };
  const worker = async (): Promise<void> => {
    while (frames < options.frames && failures.length < 50) {
      const replay = options.sessions;
      if (replay !== undefined && sessions >= replay.length) break;
      const seed = replay !== undefined ? replay[sessions]! : master.nextUint32();
      sessions++;
      if (replay === undefined && stalledEvery > 0 && sessions % stalledEvery === 0) {
        stalledSessions++;
        if (await stalledClient(port, admin, sessionTimeoutMs, fail)) stalledDisconnected++;
        continue;
      }
      const s = buildSession(seed, sessionOptions);
      frames += s.frames;
      bytes += s.bytes.length;
      commands += s.commands;
      for (const [k, n] of s.kinds) kinds[k] = (kinds[k] ?? 0) + n;
      const ending =
        s.error !== null ? s.error.message : s.idle ? 'between requests' : 'inside a request';
      endings[ending] = (endings[ending] ?? 0) + 1;
      const problem = await runSession(port, s, sessionTimeoutMs, options.target !== undefined);
      if (problem === RESET) resets++;
      else if (problem !== null) fail(`session seed ${s.seed}: ${problem}`);
      const now = performance.now();
      if (options.onProgress !== undefined && now - lastProgress > 5000) {
        lastProgress = now;
        options.onProgress({ frames, sessions, seconds: (now - started) / 1000 });
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;

  running = false;
  const pingStats = await ping;
  const controlStats = await control;
  // Every fuzz connection is gone: what the server still holds is a leak.
  let clientsLeft: number | null = null;
  if (server !== null) {
    const deadline = Date.now() + 10_000;
    while (server.clientCount > 1 && Date.now() < deadline) await sleep(20);
    clientsLeft = server.clientCount - 1;
    if (clientsLeft !== 0) fail(`${clientsLeft} clients still connected after the run`);
  }
  try {
    const pong = await admin.call(['PING'], pingBoundMs);
    if (pong.toString() !== '+PONG\r\n') fail(`PING after the run: ${pong.toString('latin1')}`);
  } catch (e) {
    fail(`PING after the run: ${(e as Error).message}`);
  }
  admin.close();
  clearInterval(sampler);
  await sleep(50);
  gc();
  await sleep(50);
  gc();
  const final = sample();

  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  if (server !== null) await server.close();
  if (dir !== null) await rm(dir, { recursive: true, force: true });
  return {
    target: options.target?.name ?? 'strata (in-process RespServer)',
    seed: options.seed,
    seconds,
    frames,
    bytes,
    sessions,
    commands,
    kinds,
    endings,
    stalled: { sessions: stalledSessions, disconnected: stalledDisconnected },
    resets,
    ping: pingStats,
    control: controlStats,
    memory: server !== null ? { baseline, peak, final } : null,
    clientsLeft,
    uncaught,
    failures,
  };
}

function stalledCap(connections: number): number {
  return connections;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function exposeGc(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g === 'function') return g;
  setFlagsFromString('--expose-gc');
  const fromContext = runInNewContext('gc') as (() => void) | undefined;
  return typeof fromContext === 'function' ? fromContext : () => undefined;
}

/**
 * Sends a session's bytes in its chunks and checks the outcome against the
 * session's expectation. Returns null when all is as Redis does it, else what
 * went wrong.
 */
async function runSession(
  port: number,
  s: Session,
  timeoutMs: number,
  resetOk: boolean,
): Promise<string | null> {
  let socket: Socket;
  try {
    socket = await open(port);
  } catch (e) {
    return `connect: ${(e as Error).message}`;
  }
  const reader = new ReplyReader();
  let closed = false;
  let malformed: Error | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  socket.on('data', (d: Buffer) => {
    try {
      reader.feed(d);
    } catch (e) {
      malformed ??= e as Error;
    }
    notify();
  });
  socket.on('close', () => {
    closed = true;
    notify();
  });
  let reset = false;
  socket.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'ECONNRESET' || e.code === 'EPIPE') reset = true;
  });
  socket.on('drain', notify);
  const until = async (done: () => boolean, ms: number): Promise<boolean> => {
    const deadline = Date.now() + ms;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 250));
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    return true;
  };

  try {
    let offset = 0;
    for (const n of s.chunks) {
      if (closed) break;
      const flushed = socket.write(s.bytes.subarray(offset, offset + n));
      offset += n;
      // Let the server see this piece alone now and then (a split point).
      if (!flushed) await until(() => closed || socket.writableLength === 0, timeoutMs);
      else if ((n & 3) === 0) await new Promise((r) => setImmediate(r));
    }
    const expectText = (): string =>
      `expected ${s.commands} replies then ${s.error !== null ? JSON.stringify(s.error.message) : s.idle ? 'the sentinel' : 'nothing'}; got ${reader.count} replies, last ${JSON.stringify(reader.last.subarray(0, 200).toString('latin1'))}, closed ${closed}; first unanswered command ${JSON.stringify(s.names[reader.count] ?? null)}`;

    if (s.error !== null) {
      if (!(await until(() => closed, timeoutMs)))
        return `not closed after a protocol error: ${expectText()}`;
      if (malformed !== null) return `malformed reply: ${(malformed as Error).message}`;
      // redis-server close()s with our input unread: the RST (or our write
      // failing, which makes Node drop what it had not read) can beat its reply.
      if (reset && resetOk) return RESET;
      if (reader.count !== s.commands + 1 || !reader.last.equals(s.error.reply))
        return expectText();
      return null;
    }
    if (s.idle) {
      // A sentinel: DISCARD ends a MULTI left open; the ECHO must come back last.
      const token = `sentinel-${s.seed}`;
      socket.write(Buffer.concat([encodeCommand(['DISCARD']), encodeCommand(['ECHO', token])]));
      const want = Buffer.from(`$${token.length}\r\n${token}\r\n`);
      await until(() => closed || reader.count >= s.commands + 2, timeoutMs);
      if (malformed !== null) return `malformed reply: ${(malformed as Error).message}`;
      if (reader.count !== s.commands + 2 || !reader.last.equals(want) || closed)
        return expectText();
      return null;
    }
    await until(() => closed || reader.count >= s.commands, timeoutMs);
    // A request begun and not ended: the server waits for the rest.
    await sleep(5);
    if (malformed !== null) return `malformed reply: ${(malformed as Error).message}`;
    if (reader.count !== s.commands || closed) return expectText();
    return null;
  } finally {
    socket.destroy();
  }
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', noDelay: true }, () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}

/**
 * A client that pipelines GETs of a 1 MB value and never reads: the output
 * buffer limit must disconnect it. True when it was.
 */
async function stalledClient(
  port: number,
  admin: RequestConnection,
  timeoutMs: number,
  fail: (m: string) => void,
): Promise<boolean> {
  const c = await RequestConnection.open(port);
  try {
    const idReply = (await c.call(['CLIENT', 'ID'])).toString();
    const id = idReply.slice(1, -2);
    c.socket.pause();
    const gets = Buffer.concat(Array.from({ length: 64 }, () => encodeCommand(['GET', BIG_KEY])));
    c.socket.write(gets);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const list = (await admin.call(['CLIENT', 'LIST'])).toString('latin1');
      if (!list.includes(`id=${id} `)) return true;
      await sleep(50);
    }
    fail(`a client that does not read (id ${id}) was not disconnected in ${timeoutMs} ms`);
    return false;
  } finally {
    c.close();
  }
}

/** PINGs every 20 ms on its own connection; each must answer within the bound. */
async function pingMonitor(
  port: number,
  boundMs: number,
  running: () => boolean,
  fail: (m: string) => void,
): Promise<{ count: number; maxMs: number; p99Ms: number }> {
  const c = await RequestConnection.open(port);
  const times: number[] = [];
  try {
    while (running()) {
      const t = performance.now();
      const r = await c.call(['PING'], Math.max(boundMs * 4, 30_000));
      const ms = performance.now() - t;
      times.push(ms);
      if (r.toString() !== '+PONG\r\n')
        fail(`PING answered ${JSON.stringify(r.toString('latin1'))}`);
      if (ms > boundMs) fail(`PING took ${ms.toFixed(0)} ms (bound ${boundMs})`);
      await sleep(20);
    }
  } catch (e) {
    fail(`PING monitor: ${(e as Error).message}`);
  } finally {
    c.close();
  }
  times.sort((a, b) => a - b);
  return {
    count: times.length,
    maxMs: times.at(-1) ?? 0,
    p99Ms: times[Math.floor(times.length * 0.99)] ?? 0,
  };
}

/** SET then GET of its own keys, all the time; every value read back must be the one written. */
async function controlClient(
  port: number,
  seed: number,
  running: () => boolean,
  fail: (m: string) => void,
): Promise<{ ops: number; mismatches: number }> {
  const prng = new Prng(seed ^ 0x5bd1e995);
  const c = await RequestConnection.open(port);
  let ops = 0;
  let mismatches = 0;
  try {
    for (let i = 0; running(); i++) {
      const key = `control:${i % 97}`;
      const value = Buffer.from(prng.fill(new Uint8Array(1 + prng.nextInt(3000))));
      const ok = await c.call(['SET', key, value]);
      if (ok.toString() !== '+OK\r\n') {
        mismatches++;
        fail(`control SET answered ${JSON.stringify(ok.toString('latin1'))}`);
      }
      const got = await c.call(['GET', key]);
      const want = Buffer.concat([Buffer.from(`$${value.length}\r\n`), value, Buffer.from('\r\n')]);
      if (!got.equals(want)) {
        mismatches++;
        fail(`control GET ${key}: a different value came back`);
      }
      ops += 2;
    }
  } catch (e) {
    fail(`control client: ${(e as Error).message}`);
  } finally {
    c.close();
  }
  return { ops, mismatches };
}

export type { FrameKind };
