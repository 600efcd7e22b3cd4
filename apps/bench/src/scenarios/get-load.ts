import { runPipelined } from './pipelined.js';
import type { BenchLoad } from './server-harness.js';

/**
 * The GET load of the `disk-read` scenario, over real sockets: `connections`
 * clients, each keeping `pipeline` GETs in flight (closed loop), so
 * `connections x pipeline` requests wait on the server at once: the depth
 * compared with the device's queue depth. Keys are `key:%012d` (the form
 * redis-benchmark's `__rand_int__` gives), the number from `pick`. Also the
 * bulk loader that writes every key of `[0, n)` once, so every GET hits.
 */

/** The key of item `i`: `key:` and 12 digits (16 bytes). */
export function keyOf(i: number): string {
  return `key:${String(i).padStart(12, '0')}`;
}

/** Writes `keyOf(i)` at `at` of `out` without making the string (a load writes one per op); returns the end. */
export function putKey(out: Buffer, at: number, i: number): number {
  out[at] = 0x6b; // k
  out[at + 1] = 0x65; // e
  out[at + 2] = 0x79; // y
  out[at + 3] = 0x3a; // :
  let n = i;
  for (let p = at + 15; p >= at + 4; p--) {
    out[p] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return at + 16;
}

const GET_HEAD = Buffer.from('*2\r\n$3\r\nGET\r\n$16\r\n');
const CRLF = Buffer.from('\r\n');
/** Bytes of one GET of a 16-byte key. */
const GET_BYTES = GET_HEAD.length + 16 + CRLF.length;

/** Writes `GET key:<i>` at `at` of `out`; returns the end. */
function putGet(out: Buffer, at: number, i: number): number {
  GET_HEAD.copy(out, at);
  at += GET_HEAD.length;
  at = putKey(out, at, i);
  CRLF.copy(out, at);
  return at + CRLF.length;
}

export interface GetLoadOptions {
  connections: number;
  pipeline: number;
  requests: number;
  /** The next key's number. */
  pick: () => number;
}

/** A GET run's numbers: BenchLoad's, and the GETs that found no key (nil). */
export interface GetLoad extends BenchLoad {
  readonly misses: number;
}

/** Runs `requests` GETs; latency is per batch (one pipeline's round trip), ms. */
export async function getLoad(port: number, o: GetLoadOptions): Promise<GetLoad> {
  let issued = 0;
  let misses = 0;
  const latencies: number[] = [];
  const client = () => {
    const out = Buffer.alloc(GET_BYTES * o.pipeline);
    let sent = 0;
    return runPipelined(port, {
      next() {
        const n = Math.min(o.pipeline, o.requests - issued);
        if (n <= 0) return null;
        issued += n;
        let at = 0;
        for (let i = 0; i < n; i++) at = putGet(out, at, o.pick());
        sent = performance.now();
        return { bytes: Buffer.from(out.subarray(0, at)), commands: n };
      },
      onReply(reply) {
        // `$-1`: a nil bulk, the key is not there.
        if (reply[0] === 0x24 && reply[1] === 0x2d) misses++;
      },
      onBatchDone: () => latencies.push(performance.now() - sent),
    });
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: o.connections }, client));
  const ms = performance.now() - start;
  return { ...loadOf(o.requests, ms, latencies), misses };
}

/** Throughput and per-batch latency percentiles of `requests` done in `ms`; sorts `latencies`. */
export function loadOf(requests: number, ms: number, latencies: number[]): BenchLoad {
  latencies.sort((a, b) => a - b);
  const q = (f: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))] ?? 0;
  return { rps: (requests / ms) * 1000, p50: q(0.5), p99: q(0.99) };
}

/**
 * SETs every key of `[0, n)` once, `valueBytes` each, over `connections`
 * sockets with `pipeline` commands in flight on each; error replies throw.
 */
export async function fillKeys(
  port: number,
  n: number,
  valueBytes: number,
  connections = 4,
  pipeline = 64,
): Promise<void> {
  const value = Buffer.alloc(valueBytes, 0x78);
  const head = Buffer.from(`*3\r\n$3\r\nSET\r\n$16\r\n`);
  const mid = Buffer.from(`\r\n$${valueBytes}\r\n`);
  const one = head.length + 16 + mid.length + valueBytes + 2;
  let next = 0;
  const client = () => {
    const out = Buffer.alloc(one * pipeline);
    return runPipelined(port, {
      next() {
        let at = 0;
        let k = 0;
        for (; k < pipeline && next < n; k++) {
          at += head.copy(out, at);
          at = putKey(out, at, next++);
          at += mid.copy(out, at);
          at += value.copy(out, at);
          at += CRLF.copy(out, at);
        }
        return k === 0 ? null : { bytes: Buffer.from(out.subarray(0, at)), commands: k };
      },
    });
  };
  await Promise.all(Array.from({ length: connections }, client));
}
