import { randomBytes, randomInt } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { encodeCommand } from '@strata/protocol';
import { defineScenario, higher, lower, type Measurement, type Variant } from '../scenario.js';
import { KiB, MiB } from '../sizes.js';
import { median } from '../stats.js';
import {
  hasRedisServer,
  peakRssMetrics,
  query,
  type ServerProcess,
  startStrataAndRedis,
  startStrataServer,
  stopServers,
} from './server-harness.js';

/**
 * Streams through strata-server and redis-server, each alone in its own
 * process, in the same rounds, driven by a Node load generator in this
 * process (`clients` connections, `depth` commands in flight on each; not
 * redis-benchmark, which cannot ack the ids a read returned):
 *
 * - `xadd`: `XADD s:xadd * f <value>` (the key deleted, untimed, before each run);
 * - `xadd-maxlen`: `XADD s:maxlen MAXLEN ~ 1000 * f <value>` (likewise);
 * - `xrange10`, `xrange100`: `XRANGE s:range <id> + COUNT 10|100` on a
 *   stream of `rangeEntries` entries filled in setup, `<id>` a random
 *   existing id (from the XADD replies) with a whole window after it; every
 *   reply is checked to hold exactly 10 (100) entries;
 * - `xreadgroup-ack`: `clients` consumers of one group, each looping
 *   `XREADGROUP GROUP g c<i> COUNT 10 STREAMS s:group >` then `XACK` of the
 *   10 ids it got (one op = that pair of round trips), on a stream refilled
 *   (untimed) before each run with enough entries for every read to get 10.
 *
 * Variants `<server>-<case>` (ops/s), ratios `strata-<case>/redis-<case>`,
 * and the same ratios as metrics `<case>_ratio` (`xadd_ratio`,
 * `xadd_maxlen_ratio`, `xrange10_ratio`, `xrange100_ratio`,
 * `xreadgroup_ack_ratio`: per round, then median; target >= 0.7). Samples
 * `p50_ms`, `p99_ms` (a batch's or a round trip pair's latency) and
 * `cpu_us_per_op` (the server's user + system CPU over the run, per op: it
 * does not depend on whether the load generator bounds both servers alike);
 * `cpu_ratio.<case>` is strata's over redis's (medians).
 *
 * Larger than memory: in setup a third server, strata-server with
 * `--memory bigMemory` (64 MiB at full size; 4 MiB at `--ci`, so that the
 * CI stream is larger than memory too), gets `bigEntries` (20M) pipelined
 * `XADD s:big * f <value>` over one connection (`bigDepth` in flight),
 * after an untimed warm-up of min(50K, bigEntries / 10) appends to another
 * key (then deleted), timed per tenth of the entries:
 * `append_first_decile_ops`, `append_last_decile_ops`, `append_ops`
 * (overall), `append_last_over_first` (time per append in the last tenth
 * over that in the first: larger is a slower end; target <= 1.2) and
 * `append_slowest_over_first` (the slowest tenth's over the first's).
 * Variant `strata-big-xrange100` (ms, lower is better; the page cache is
 * dropped before each of its runs when possible) times `bigSamples`
 * one-at-a-time `XRANGE s:big <id> + COUNT 100` at random existing ids: its
 * value is their median latency, sample `p99_ms`; metrics
 * `big_xrange100_p50_ms`, `big_xrange100_p99_ms`. Memory: `big_peak_rss_mb`
 * (the big server's peak resident set), `big_start_rss_mb` (its resident
 * set once started, before any entry: the runtime's own), `big_memory_mb`
 * (the budget) and `big_rss_over_memory_mb` (peak minus budget: the
 * overhead); `big_disk_bytes_per_entry` (the blocks the big server's
 * directory holds after the appends, per entry) and
 * `big_log_bytes_per_entry` (its log's tail - begin from INFO storage, per
 * entry, when INFO gives it). With `bigWithRedis` (at `--ci` only:
 * redis-server cannot hold 20M entries in 64 MiB) redis-server gets the
 * same appends, with no memory limit: `redis_append_*` and
 * `redis_big_xrange100_*` metrics, variant `redis-big-xrange100`.
 * `<server>_peak_rss_mb`: each server's peak resident set; `redis_server`:
 * 1 when redis-server ran.
 */

type Params = {
  /** XADD, XADD MAXLEN and XRANGE COUNT 10 commands per run. */
  requests: number;
  /** XRANGE COUNT 100 commands per run (replies ten times larger). */
  rangeRequests: number;
  /** XREADGROUP + XACK round trip pairs per run. */
  trips: number;
  clients: number;
  /** Commands in flight on each client (XADD, XRANGE). */
  depth: number;
  /** Entries of the XRANGE stream. */
  rangeEntries: number;
  valueBytes: number;
  /** --memory of the in-memory strata-server. */
  memory: number;
  /** Entries appended to the larger-than-memory stream. */
  bigEntries: number;
  /** --memory of the larger-than-memory strata-server. */
  bigMemory: number;
  /** --page-size of the larger-than-memory strata-server. */
  bigPageSize: number;
  /** XADD commands in flight while appending the big stream. */
  bigDepth: number;
  /** XRANGE windows timed per `big-xrange100` run. */
  bigSamples: number;
  /** Whether redis-server appends the big stream too (and runs `redis-big-xrange100`). */
  bigWithRedis: boolean;
};

const CASES = ['xadd', 'xadd-maxlen', 'xrange10', 'xrange100', 'xreadgroup-ack'] as const;
type Case = (typeof CASES)[number];
const BIG = 'big-xrange100';

const XADD_KEY = 's:xadd';
const MAXLEN_KEY = 's:maxlen';
const RANGE_KEY = 's:range';
const GROUP_KEY = 's:group';
const BIG_KEY = 's:big';
const WARM_KEY = 's:big-warmup';
const GROUP = 'g';
/** Entries per XREADGROUP. */
const READ_COUNT = 10;
/** Pre-encoded XRANGE commands (random starts) per server and count. */
const POOL = 4096;

interface Big {
  server: ServerProcess;
  /** Ids of random entries with at least 100 entries from them on. */
  ids: string[];
  summary: AppendSummary;
}

interface State {
  servers: Record<string, ServerProcess>;
  /** XRANGE s:range commands with random starts, by server, then count. */
  pools: Record<string, Record<number, Buffer[]>>;
  value: string;
  /** The larger-than-memory stream, by server (`strata`, and `redis` with bigWithRedis). */
  big: Record<string, Big>;
  bigStartRss: number;
  bigDiskBytes: number;
  bigLogBytes: number;
}

function systems(): string[] {
  return hasRedisServer() ? ['strata', 'redis'] : ['strata'];
}

function bigSystems(p: Params): string[] {
  return p.bigWithRedis && hasRedisServer() ? ['strata', 'redis'] : ['strata'];
}

/** `xadd-maxlen` -> `xadd_maxlen`: a case as a metric name. */
function metricName(c: string): string {
  return c.replaceAll('-', '_');
}

// ---------------------------------------------------------------------------
// Pure logic (exported for the unit test)

/** The number of entries appended by the end of each tenth: 10 marks, the last `n`. */
export function decileMarks(n: number): number[] {
  return Array.from({ length: 10 }, (_, k) => Math.round((n * (k + 1)) / 10));
}

export interface AppendSummary {
  /** Appends per second over all `n`. */
  ops: number;
  /** Appends per second in each tenth. */
  decileOps: number[];
  firstDecileOps: number;
  lastDecileOps: number;
  /** Time per append in the last tenth over that in the first (> 1: the end is slower). */
  lastOverFirst: number;
  /** Time per append in the slowest tenth over that in the first. */
  slowestOverFirst: number;
}

/**
 * Summarizes an append run from `times[k]`, the ms (since the start) at
 * which the `decileMarks(n)[k]`-th reply arrived.
 */
export function appendSummary(n: number, times: readonly number[]): AppendSummary {
  const marks = decileMarks(n);
  if (times.length !== marks.length) {
    throw new RangeError(`want 10 decile times, got ${times.length}`);
  }
  const decileOps = marks.map((m, k) => {
    const entries = m - (k === 0 ? 0 : marks[k - 1]!);
    const ms = times[k]! - (k === 0 ? 0 : times[k - 1]!);
    return (entries / ms) * 1000;
  });
  const first = decileOps[0]!;
  const last = decileOps[9]!;
  return {
    ops: (n / times[9]!) * 1000,
    decileOps,
    firstDecileOps: first,
    lastDecileOps: last,
    lastOverFirst: first / last,
    slowestOverFirst: first / Math.min(...decileOps),
  };
}

/** The `f`-quantile (0..1) of ascending `sorted` (nearest rank, as resp-throughput's). */
export function quantile(sorted: readonly number[], f: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))]!;
}

/** A RESP2 reply decoded: bulk and simple strings as latin1 text, errors as `{ error }`. */
export type Reply = string | number | null | { error: string } | Reply[];

/** Decodes the RESP2 reply that starts at `p` (whole: `skipReply` found its end). */
export function decodeReply(b: Buffer, p = 0): { value: Reply; end: number } {
  const lf = b.indexOf(0x0a, p);
  if (lf < 0) throw new RangeError('a partial reply');
  const line = b.toString('latin1', p + 1, lf - 1);
  switch (b[p]) {
    case 0x2b: // +
      return { value: line, end: lf + 1 };
    case 0x2d: // -
      return { value: { error: line }, end: lf + 1 };
    case 0x3a: // :
      return { value: Number(line), end: lf + 1 };
    case 0x24: {
      // $
      const n = Number(line);
      if (n < 0) return { value: null, end: lf + 1 };
      return { value: b.toString('latin1', lf + 1, lf + 1 + n), end: lf + 1 + n + 2 };
    }
    case 0x2a: {
      // *
      const n = Number(line);
      if (n < 0) return { value: null, end: lf + 1 };
      const items: Reply[] = [];
      let q = lf + 1;
      for (let i = 0; i < n; i++) {
        const item = decodeReply(b, q);
        items.push(item.value);
        q = item.end;
      }
      return { value: items, end: q };
    }
    default:
      throw new RangeError(`not a RESP2 reply: ${JSON.stringify(line)}`);
  }
}

/** The entry ids of an XRANGE reply (`[[id, [f, v, ...]], ...]`). */
export function rangeIds(reply: Reply): string[] {
  if (!Array.isArray(reply)) throw new Error(`not an XRANGE reply: ${JSON.stringify(reply)}`);
  return reply.map((entry) => {
    const id = Array.isArray(entry) ? entry[0] : undefined;
    if (typeof id !== 'string') throw new Error(`not a stream entry: ${JSON.stringify(entry)}`);
    return id;
  });
}

/** The entry ids of an XREAD / XREADGROUP reply (`[[key, entries], ...]` or nil), every key's. */
export function readIds(reply: Reply): string[] {
  if (reply === null) return [];
  if (!Array.isArray(reply)) throw new Error(`not an XREAD reply: ${JSON.stringify(reply)}`);
  return reply.flatMap((stream) => {
    if (!Array.isArray(stream) || stream.length !== 2) {
      throw new Error(`not an XREAD stream: ${JSON.stringify(stream)}`);
    }
    return rangeIds(stream[1]!);
  });
}

/** `count` distinct random integers in [0, below), ascending (all of them if below <= count). */
export function sampleIndices(below: number, count: number): number[] {
  if (below <= count) return Array.from({ length: Math.max(0, below) }, (_, i) => i);
  const picked = new Set<number>();
  while (picked.size < count) picked.add(randomInt(below));
  return [...picked].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------
// Sockets

/**
 * The offset after the RESP2 reply at `p`, or -1 when `b` ends first:
 * `replyEnd` without its checks, lengths read byte by byte, so that walking
 * 100-entry XRANGE replies costs the load generator little next to the server.
 */
export function skipReply(b: Buffer, p: number): number {
  if (p >= b.length) return -1;
  const type = b[p]!;
  if (type === 0x2b || type === 0x2d || type === 0x3a) {
    const lf = b.indexOf(0x0a, p + 1);
    return lf < 0 ? -1 : lf + 1;
  }
  if (type !== 0x24 && type !== 0x2a) {
    throw new Error(`not a RESP2 reply: ${JSON.stringify(b.toString('latin1', p, p + 40))}`);
  }
  let i = p + 1;
  let n = 0;
  const negative = b[i] === 0x2d;
  if (negative) i++;
  for (; i < b.length && b[i] !== 0x0d; i++) n = n * 10 + b[i]! - 0x30;
  i += 2;
  if (i > b.length) return -1;
  if (negative) return i;
  if (type === 0x24) return i + n + 2 <= b.length ? i + n + 2 : -1;
  for (let k = 0; k < n; k++) {
    i = skipReply(b, i);
    if (i < 0) return -1;
  }
  return i;
}

/** A reply stream split into whole replies in place (no copies). */
class Replies {
  private pending: Buffer = Buffer.alloc(0);

  /** Calls `onReply(buffer, start, end)` for each reply `chunk` completes; returns how many. */
  feed(chunk: Buffer, onReply: (b: Buffer, start: number, end: number) => void): number {
    const b = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let from = 0;
    let n = 0;
    for (;;) {
      const end = skipReply(b, from);
      if (end < 0) break;
      onReply(b, from, end);
      n++;
      from = end;
    }
    this.pending = from === b.length ? Buffer.alloc(0) : b.subarray(from);
    return n;
  }
}

/** Whether the reply `b[start, end)` starts with `prefix`. */
function startsWith(b: Buffer, start: number, end: number, prefix: Buffer): boolean {
  return (
    end - start >= prefix.length &&
    b.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0
  );
}

/** The error a reply is, for a message: the server's words, and a hint for a missing command. */
function replyError(b: Buffer, start: number, end: number, command: string): Error {
  const text = b.toString('latin1', start + 1, Math.min(end, start + 300)).trimEnd();
  const hint = /unknown command/i.test(text) ? ' (does this server implement streams?)' : '';
  return new Error(`${command} answered -${text}${hint}`);
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.off('error', reject);
      resolve(s);
    });
    s.setNoDelay(true);
    s.once('error', reject);
  });
}

function fieldValue(valueBytes: number): string {
  // Incompressible text, the same for both servers in a run.
  return randomBytes(Math.ceil(valueBytes / 2))
    .toString('hex')
    .slice(0, valueBytes);
}

interface AppendResult {
  /** ms since the start at which each decile mark's reply arrived. */
  times: number[];
  /** The ids of the entries at `keep`'s indices, in order. */
  ids: string[];
}

/**
 * Appends `n` entries `XADD key * f value` over one connection, `depth`
 * commands in flight, noting when each tenth is done (and telling
 * `onTenth`) and the ids of the entries whose index (0-based) `keep` holds.
 */
async function appendEntries(
  port: number,
  key: string,
  n: number,
  value: string,
  depth: number,
  keep: (index: number) => boolean = () => false,
  onTenth: (k: number, ms: number, previousMs: number) => void = () => {},
): Promise<AppendResult> {
  const sock = await connect(port);
  const batch = Math.max(1, Math.min(64, depth));
  const command = encodeCommand(['XADD', key, '*', 'f', value]);
  const full = Buffer.concat(Array.from({ length: batch }, () => command));
  const marks = decileMarks(n);
  const times: number[] = [];
  const ids: string[] = [];
  const replies = new Replies();
  let sent = 0;
  let answered = 0;
  const start = performance.now();
  try {
    await new Promise<void>((resolve, reject) => {
      const send = () => {
        while (sent < n && sent - answered <= depth - batch) {
          const k = Math.min(batch, n - sent);
          sent += k;
          sock.write(k === batch ? full : full.subarray(0, command.length * k));
        }
      };
      let failed = false;
      sock.on('data', (d: Buffer) => {
        if (failed) return;
        try {
          replies.feed(d, (b, s, e) => {
            if (b[s] === 0x2d) throw replyError(b, s, e, 'XADD');
            if (b[s] !== 0x24) {
              throw new Error(`XADD answered ${JSON.stringify(b.toString('latin1', s, e))}`);
            }
            if (keep(answered)) {
              const lf = b.indexOf(0x0a, s);
              ids.push(b.toString('latin1', lf + 1, e - 2));
            }
            answered++;
            while (times.length < 10 && answered >= marks[times.length]!) {
              const k = times.length;
              times.push(performance.now() - start);
              onTenth(k, times[k]!, k === 0 ? 0 : times[k - 1]!);
            }
          });
        } catch (e) {
          failed = true;
          reject(e);
          return;
        }
        if (answered === n) resolve();
        else send();
      });
      sock.once('error', reject);
      sock.once('close', () => reject(new Error(`connection closed after ${answered} XADDs`)));
      send();
    });
  } finally {
    sock.destroy();
  }
  return { times, ids };
}

interface Load {
  ops: number;
  p50: number;
  p99: number;
}

function loadOf(ops: number, ms: number, latencies: number[]): Load {
  latencies.sort((a, b) => a - b);
  return { ops: (ops / ms) * 1000, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

/**
 * `clients` connections sending batches of `depth` commands (`batchOf(k)`
 * encodes k of them) until `requests` are sent, the next batch once the
 * last one's replies are all in; every reply must start with `expect`.
 */
async function pipelinedLoad(
  port: number,
  o: { clients: number; depth: number; requests: number },
  batchOf: (k: number) => Buffer,
  expect: Buffer,
  command: string,
): Promise<Load> {
  const latencies: number[] = [];
  let issued = 0;
  let failure: Error | null = null;
  const sockets = await Promise.all(Array.from({ length: o.clients }, () => connect(port)));
  const start = performance.now();
  const client = (sock: net.Socket) =>
    new Promise<void>((resolve, reject) => {
      const replies = new Replies();
      let pending = 0;
      let sentAt = 0;
      const send = () => {
        const k = Math.min(o.depth, o.requests - issued);
        if (k <= 0 || failure !== null) {
          resolve();
          return;
        }
        issued += k;
        pending = k;
        sentAt = performance.now();
        sock.write(batchOf(k));
      };
      sock.on('data', (d: Buffer) => {
        try {
          pending -= replies.feed(d, (b, s, e) => {
            if (b[s] === 0x2d) throw replyError(b, s, e, command);
            if (!startsWith(b, s, e, expect)) {
              const got = b.toString('latin1', s, Math.min(e, s + 40));
              throw new Error(
                `${command}: expected a reply starting ${JSON.stringify(expect.toString('latin1'))}, got ${JSON.stringify(got)}`,
              );
            }
          });
        } catch (e) {
          failure ??= e as Error;
          reject(e);
          return;
        }
        if (pending === 0) {
          latencies.push(performance.now() - sentAt);
          send();
        }
      });
      sock.once('error', reject);
      send();
    });
  try {
    await Promise.all(sockets.map(client));
  } finally {
    for (const s of sockets) s.destroy();
  }
  return loadOf(o.requests, performance.now() - start, latencies);
}

/**
 * `clients` consumers of group `g` on `key`, each looping XREADGROUP COUNT
 * 10 then XACK of the ids it got, until `trips` pairs are done in all.
 */
async function consumeLoad(
  port: number,
  key: string,
  o: { clients: number; trips: number },
): Promise<Load> {
  const latencies: number[] = [];
  let claimed = 0;
  let failure: Error | null = null;
  const sockets = await Promise.all(Array.from({ length: o.clients }, () => connect(port)));
  const start = performance.now();
  const consumer = (sock: net.Socket, i: number) =>
    new Promise<void>((resolve, reject) => {
      const read = encodeCommand([
        'XREADGROUP',
        'GROUP',
        GROUP,
        `c${i}`,
        'COUNT',
        String(READ_COUNT),
        'STREAMS',
        key,
        '>',
      ]);
      const replies = new Replies();
      let acking = 0;
      let sentAt = 0;
      const next = () => {
        if (claimed >= o.trips || failure !== null) {
          resolve();
          return;
        }
        claimed++;
        acking = 0;
        sentAt = performance.now();
        sock.write(read);
      };
      sock.on('data', (d: Buffer) => {
        try {
          replies.feed(d, (b, s, e) => {
            if (b[s] === 0x2d) throw replyError(b, s, e, acking === 0 ? 'XREADGROUP' : 'XACK');
            if (acking === 0) {
              const ids = readIds(decodeReply(b, s).value);
              if (ids.length !== READ_COUNT) {
                throw new Error(`XREADGROUP COUNT ${READ_COUNT} gave ${ids.length} entries`);
              }
              acking = ids.length;
              sock.write(encodeCommand(['XACK', key, GROUP, ...ids]));
              return;
            }
            const acked = decodeReply(b, s).value;
            if (acked !== acking) {
              throw new Error(`XACK of ${acking} ids answered ${JSON.stringify(acked)}`);
            }
            latencies.push(performance.now() - sentAt);
            next();
          });
        } catch (e) {
          failure ??= e as Error;
          reject(e);
        }
      });
      sock.once('error', reject);
      next();
    });
  try {
    await Promise.all(sockets.map(consumer));
  } finally {
    for (const s of sockets) s.destroy();
  }
  return loadOf(o.trips, performance.now() - start, latencies);
}

/** Each command sent alone after the last one's reply, over one connection: the latencies, ms. */
async function oneByOne(
  port: number,
  commands: readonly Buffer[],
  expect: Buffer,
): Promise<number[]> {
  const sock = await connect(port);
  const latencies: number[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const replies = new Replies();
      let i = 0;
      let sentAt = 0;
      const send = () => {
        if (i === commands.length) {
          resolve();
          return;
        }
        sentAt = performance.now();
        sock.write(commands[i++]!);
      };
      sock.on('data', (d: Buffer) => {
        try {
          replies.feed(d, (b, s, e) => {
            if (b[s] === 0x2d) throw replyError(b, s, e, 'XRANGE');
            if (!startsWith(b, s, e, expect)) {
              throw new Error(
                `XRANGE COUNT 100 gave ${b.toString('latin1', s, b.indexOf(0x0d, s))} entries`,
              );
            }
            latencies.push(performance.now() - sentAt);
            send();
          });
        } catch (e) {
          reject(e);
        }
      });
      sock.once('error', reject);
      send();
    });
  } finally {
    sock.destroy();
  }
  return latencies;
}

/** Bytes the files under `dir` hold on the device (their blocks), 0 for a missing dir. */
async function diskBytes(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const name of names) {
    const st = await stat(path.join(dir, name));
    if (st.isFile()) total += st.blocks * 512;
  }
  return total;
}

/** Database 0's log size (tail - begin) from INFO storage, NaN when INFO does not give it. */
async function logBytes(port: number): Promise<number> {
  const info = await query(port, ['INFO', 'storage']).catch(() => '');
  const m = /db0:begin=(\d+),head=\d+,read_only=\d+,tail=(\d+)/.exec(info);
  return m === null ? Number.NaN : Number(m[2]) - Number(m[1]);
}

/** The resident set of a process now (VmRSS), bytes; NaN when /proc does not say. */
async function rssNow(server: ServerProcess): Promise<number> {
  try {
    const status = await readFile(`/proc/${server.child.pid}/status`, 'latin1');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m === null ? Number.NaN : Number(m[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** XRANGE key <random id of ids[0 .. length - count]> + COUNT count, `POOL` of them. */
function rangePool(ids: readonly string[], key: string, count: number): Buffer[] {
  const starts = ids.length - count + 1;
  if (starts <= 0) throw new Error(`${key} holds ${ids.length} entries, fewer than ${count}`);
  return Array.from({ length: POOL }, () =>
    encodeCommand(['XRANGE', key, ids[randomInt(starts)]!, '+', 'COUNT', String(count)]),
  );
}

function pick<T>(xs: readonly T[]): T {
  return xs[randomInt(xs.length)]!;
}

/** Runs `f`, prefixing its error with the server's name. */
async function on<T>(server: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw new Error(`${server}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function runCase(
  c: Case,
  server: string,
  ctx: { params: Params; state: State },
): Promise<Measurement> {
  const p = ctx.params;
  const { value } = ctx.state;
  const target = ctx.state.servers[server]!;
  const port = target.port;
  const load = { clients: p.clients, depth: p.depth, requests: p.requests };
  let result: Load;
  if (c === 'xadd' || c === 'xadd-maxlen') {
    const key = c === 'xadd' ? XADD_KEY : MAXLEN_KEY;
    await query(port, ['DEL', key]);
    const cmd = encodeCommand(
      c === 'xadd'
        ? ['XADD', key, '*', 'f', value]
        : ['XADD', key, 'MAXLEN', '~', '1000', '*', 'f', value],
    );
    const full = Buffer.concat(Array.from({ length: p.depth }, () => cmd));
    const cpu0 = target.cpuUs();
    result = await pipelinedLoad(
      port,
      load,
      (k) => (k === p.depth ? full : full.subarray(0, cmd.length * k)),
      Buffer.from('$'),
      'XADD',
    );
    return measured(result, (target.cpuUs() - cpu0) / p.requests);
  }
  if (c === 'xrange10' || c === 'xrange100') {
    const count = c === 'xrange10' ? 10 : 100;
    const requests = c === 'xrange10' ? p.requests : p.rangeRequests;
    const pool = ctx.state.pools[server]![count]!;
    const cpu0 = target.cpuUs();
    result = await pipelinedLoad(
      port,
      { ...load, requests },
      (k) => (k === 1 ? pick(pool) : Buffer.concat(Array.from({ length: k }, () => pick(pool)))),
      Buffer.from(`*${count}\r\n`),
      'XRANGE',
    );
    return measured(result, (target.cpuUs() - cpu0) / requests);
  }
  // xreadgroup-ack: a fresh stream with 10 entries for every read (and each client's last).
  await query(port, ['DEL', GROUP_KEY]);
  await appendEntries(port, GROUP_KEY, READ_COUNT * (p.trips + p.clients), value, 256);
  await query(port, ['XGROUP', 'CREATE', GROUP_KEY, GROUP, '0']);
  const cpu0 = target.cpuUs();
  result = await consumeLoad(port, GROUP_KEY, { clients: p.clients, trips: p.trips });
  return measured(result, (target.cpuUs() - cpu0) / p.trips);
}

function measured(load: Load, cpuUsPerOp: number): Measurement {
  return {
    value: load.ops,
    samples: { p50_ms: load.p50, p99_ms: load.p99, cpu_us_per_op: cpuUsPerOp },
  };
}

/** Appends the big stream on one server (a progress line per tenth of a large one). */
async function appendBig(
  name: string,
  server: ServerProcess,
  p: Params,
  value: string,
  log: (m: string) => void,
): Promise<Big> {
  const last = p.bigEntries - 100;
  const keep = new Set(sampleIndices(Math.max(0, last + 1), 4 * p.bigSamples));
  // Untimed, on another key: the first tenth must not be the JIT warm-up of
  // the load generator (and of strata-server).
  const warm = Math.min(50_000, Math.ceil(p.bigEntries / 10));
  await on(name, () => appendEntries(server.port, WARM_KEY, warm, value, p.bigDepth));
  await query(server.port, ['DEL', WARM_KEY]);
  log(`${name}: appending ${p.bigEntries} entries to ${BIG_KEY}`);
  const marks = decileMarks(p.bigEntries);
  const { times, ids } = await on(name, () =>
    appendEntries(
      server.port,
      BIG_KEY,
      p.bigEntries,
      value,
      p.bigDepth,
      (i) => keep.has(i),
      (k, ms, previous) => {
        // A progress line per tenth when it is worth one (not at --ci size).
        if (p.bigEntries < 1_000_000) return;
        const rate = ((marks[k]! - (k === 0 ? 0 : marks[k - 1]!)) / (ms - previous)) * 1000;
        log(
          `${name}: ${marks[k]} entries in ${(ms / 1000).toFixed(1)} s, ${Math.round(rate)}/s in this tenth`,
        );
      },
    ),
  );
  const summary = appendSummary(p.bigEntries, times);
  log(
    `${name}: ${Math.round(summary.ops)} appends/s, last tenth over first ${summary.lastOverFirst.toFixed(2)}`,
  );
  return { server, ids, summary };
}

export const streams = defineScenario<Params, State>({
  name: 'streams',
  description:
    'XADD (and MAXLEN ~), XRANGE 10/100, XREADGROUP+XACK, strata vs redis-server; 20M-entry stream appended with 64 MiB of memory',
  params: {
    full: {
      requests: 200_000,
      rangeRequests: 100_000,
      trips: 50_000,
      clients: 50,
      depth: 16,
      rangeEntries: 100_000,
      valueBytes: 16,
      memory: 512 * MiB,
      bigEntries: 20_000_000,
      bigMemory: 64 * MiB,
      bigPageSize: 1 * MiB,
      bigDepth: 256,
      bigSamples: 1000,
      bigWithRedis: false,
    },
    ci: {
      requests: 40_000,
      rangeRequests: 8_000,
      trips: 4_000,
      clients: 50,
      depth: 16,
      rangeEntries: 10_000,
      valueBytes: 16,
      memory: 256 * MiB,
      bigEntries: 200_000,
      bigMemory: 4 * MiB,
      bigPageSize: 256 * KiB,
      bigDepth: 256,
      bigSamples: 200,
      bigWithRedis: true,
    },
  },
  variants: (p) => {
    const out: Variant[] = systems().flatMap((s) => CASES.map((c) => higher(`${s}-${c}`, 'ops/s')));
    for (const s of bigSystems(p)) out.push(lower(`${s}-${BIG}`, 'ms'));
    return out;
  },
  ratios: () => (hasRedisServer() ? CASES.map((c) => `strata-${c}/redis-${c}`) : []),
  targets: () =>
    hasRedisServer() ? Object.fromEntries(CASES.map((c) => [`strata-${c}/redis-${c}`, 0.7])) : {},

  async setup(ctx) {
    const p = ctx.params;
    const value = fieldValue(p.valueBytes);
    const servers = await startStrataAndRedis(
      ctx.dir,
      ['--checkpoint-interval', '0', '--memory', String(p.memory)],
      ctx.log,
    );
    let bigServer: ServerProcess | undefined;
    try {
      const pools: State['pools'] = {};
      for (const [name, srv] of Object.entries(servers)) {
        ctx.log(`${name}: filling ${RANGE_KEY} with ${p.rangeEntries} entries`);
        const { ids } = await on(name, () =>
          appendEntries(srv.port, RANGE_KEY, p.rangeEntries, value, 256, () => true),
        );
        pools[name] = { 10: rangePool(ids, RANGE_KEY, 10), 100: rangePool(ids, RANGE_KEY, 100) };
      }
      bigServer = await startStrataServer(path.join(ctx.dir, 'strata-big'), [
        '--checkpoint-interval',
        '0',
        '--memory',
        String(p.bigMemory),
        '--page-size',
        String(p.bigPageSize),
      ]);
      const bigStartRss = await rssNow(bigServer);
      const big: Record<string, Big> = {};
      big.strata = await appendBig('strata-big', bigServer, p, value, ctx.log);
      if (bigSystems(p).includes('redis')) {
        big.redis = await appendBig('redis', servers.redis!, p, value, ctx.log);
      }
      const bigDiskBytes = await diskBytes(path.join(ctx.dir, 'strata-big'));
      const bigLogBytes = await logBytes(bigServer.port);
      servers.big = bigServer;
      return { servers, pools, value, big, bigStartRss, bigDiskBytes, bigLogBytes };
    } catch (e) {
      await stopServers([...Object.values(servers), ...(bigServer ? [bigServer] : [])], 'SIGKILL');
      throw e;
    }
  },

  async run(variant, ctx): Promise<Measurement> {
    const dash = variant.name.indexOf('-');
    const server = variant.name.slice(0, dash);
    const c = variant.name.slice(dash + 1);
    if (c === BIG) {
      const big = ctx.state.big[server]!;
      await ctx.dropCaches();
      const commands = Array.from({ length: ctx.params.bigSamples }, () =>
        encodeCommand(['XRANGE', BIG_KEY, pick(big.ids), '+', 'COUNT', '100']),
      );
      const latencies = await on(server, () =>
        oneByOne(big.server.port, commands, Buffer.from('*100\r\n')),
      );
      latencies.sort((a, b) => a - b);
      return { value: quantile(latencies, 0.5), samples: { p99_ms: quantile(latencies, 0.99) } };
    }
    return on(server, () => runCase(c as Case, server, ctx));
  },

  metrics(results, ctx) {
    const { servers, big } = ctx.state;
    const p = ctx.params;
    const out: Record<string, number> = { redis_server: servers.redis !== undefined ? 1 : 0 };
    if (servers.redis !== undefined) {
      for (const c of CASES) {
        // Per round, then the median (as the runner's ratios): both ran in the same round.
        const mine = results.get(`strata-${c}`).values;
        const redis = results.get(`redis-${c}`).values;
        out[`${metricName(c)}_ratio`] = median(mine.map((x, i) => x / redis[i]!));
        const cpu =
          median(results.samples(`strata-${c}`, 'cpu_us_per_op')) /
          median(results.samples(`redis-${c}`, 'cpu_us_per_op'));
        if (Number.isFinite(cpu)) out[`cpu_ratio.${c}`] = cpu;
      }
    }
    out.big_entries = p.bigEntries;
    out.big_memory_mb = p.bigMemory / MiB;
    for (const [s, b] of Object.entries(big)) {
      const prefix = s === 'strata' ? '' : `${s}_`;
      out[`${prefix}append_ops`] = b.summary.ops;
      out[`${prefix}append_first_decile_ops`] = b.summary.firstDecileOps;
      out[`${prefix}append_last_decile_ops`] = b.summary.lastDecileOps;
      out[`${prefix}append_last_over_first`] = b.summary.lastOverFirst;
      out[`${prefix}append_slowest_over_first`] = b.summary.slowestOverFirst;
      out[`${prefix}big_xrange100_p50_ms`] = results.median(`${s}-${BIG}`);
      out[`${prefix}big_xrange100_p99_ms`] = median(results.samples(`${s}-${BIG}`, 'p99_ms'));
    }
    Object.assign(out, peakRssMetrics(servers));
    out.big_start_rss_mb = ctx.state.bigStartRss / MiB;
    out.big_rss_over_memory_mb = out.big_peak_rss_mb! - out.big_memory_mb;
    out.big_disk_bytes_per_entry = ctx.state.bigDiskBytes / p.bigEntries;
    if (Number.isFinite(ctx.state.bigLogBytes)) {
      out.big_log_bytes_per_entry = ctx.state.bigLogBytes / p.bigEntries;
    }
    return out;
  },

  async teardown(ctx) {
    await stopServers(Object.values(ctx.state?.servers ?? {}));
  },
});
