import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { encodeCommand, replyBulk, replyEnd } from '@strata/protocol';
import type { ScenarioResults } from '../scenario.js';
import { MiB } from '../sizes.js';
import { median } from '../stats.js';

/**
 * What the scenarios that drive servers over sockets share: finding
 * binaries, free loopback ports, waiting for a server to answer, child
 * processes (their output, their CPU time, stopping them) and
 * redis-benchmark runs with their CSV parsed.
 */

/** The path of `bin` on PATH, or null. */
export function which(bin: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const p = path.join(dir, bin);
    if (existsSync(p)) return p;
  }
  return null;
}

/** A loopback port nothing listens on (just now). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once `port` answers an inline PING; throws after `ms`. */
export async function waitForPing(port: number, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.write('PING\r\n');
        sock.once('data', () => {
          sock.destroy();
          resolve(true);
        });
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing answers on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A child process's user + system CPU time from /proc (Linux), µs; NaN elsewhere. */
export function childCpuUs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

/** Runs `bin` to its end: its stdout, or an error with its stderr. */
export function runProcess(bin: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${bin} exited ${code}: ${err.trim()}`));
    });
  });
}

/** Where the strata-server build is: STRATA_SERVER_CLI, else apps/server/dist/cli.js. */
export function strataCli(): string {
  const fromEnv = process.env.STRATA_SERVER_CLI;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const candidates = [
    path.resolve(import.meta.dirname, '../../server/dist/cli.js'),
    path.resolve(import.meta.dirname, '../../../server/dist/cli.js'),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (found === undefined) {
    throw new Error('strata-server is not built: run `pnpm -F @strata/server build` first');
  }
  return found;
}

/** strataCli(), or null when strata-server is not built. */
export function findStrataCli(): string | null {
  try {
    return strataCli();
  } catch {
    return null;
  }
}

/** Whether redis-server is installed: the scenarios then run it beside strata-server. */
export function hasRedisServer(): boolean {
  return which('redis-server') !== null;
}

/** A server in its own process, answering on 127.0.0.1:`port`. */
export interface ServerProcess {
  readonly port: number;
  readonly child: ChildProcess;
  /** The process's user + system CPU time so far, µs. */
  cpuUs(): number;
  /** Its peak resident set so far, bytes (/proc; NaN elsewhere). */
  peakRssBytes(): number;
  /** Its resident set now, bytes (/proc; NaN elsewhere). */
  rssBytes(): number;
}

/**
 * strata-server (the built binary, as users run it) on a free loopback
 * port, data in `dir`, `args` after the defaults (they win): like the
 * redis-server it is compared with, it runs alone in its process.
 */
export function startStrataServer(
  dir: string,
  args: readonly string[] = [],
): Promise<ServerProcess> {
  return startServerProcess(process.execPath, (port) => strataServerArgs(port, dir, args));
}

/** strata-server's command line (after `node`) for `startStrataServer`, for callers that time the start themselves. */
export function strataServerArgs(
  port: number,
  dir: string,
  args: readonly string[] = [],
): string[] {
  return [strataCli(), '--port', String(port), '--dir', dir, '--log-level', 'warning', ...args];
}

/**
 * redis-server on a free loopback port, files in `dir`, no snapshots and no
 * AOF unless `args` (after the defaults: they win) say otherwise.
 */
export function startRedisServer(
  dir: string,
  args: readonly string[] = [],
): Promise<ServerProcess> {
  return startServerProcess('redis-server', (port) => redisServerArgs(port, dir, args));
}

/** redis-server's command line for `startRedisServer`, for callers that time the start themselves. */
export function redisServerArgs(port: number, dir: string, args: readonly string[] = []): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    ...args,
  ];
}

async function startServerProcess(
  bin: string,
  argsFor: (port: number) => string[],
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(bin, argsFor(port), { stdio: 'ignore' });
  try {
    await waitForPing(port);
  } catch (e) {
    await stopChild(child, 'SIGKILL');
    throw e;
  }
  return {
    port,
    child,
    cpuUs: () => childCpuUs(child.pid),
    peakRssBytes: () => procStatusBytes(child.pid, 'VmHWM'),
    rssBytes: () => procStatusBytes(child.pid, 'VmRSS'),
  };
}

/** A `kB` field of a process's /proc status (VmHWM, VmRSS; Linux), bytes; NaN elsewhere. */
function procStatusBytes(pid: number | undefined, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(
      readFileSync(`/proc/${pid}/status`, 'latin1'),
    );
    return m === null ? Number.NaN : Number(m[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * One command over a fresh connection: its reply's payload (the text of a
 * simple string, integer or bulk string). An error reply throws.
 */
export async function query(port: number, argv: readonly string[]): Promise<string> {
  const reply = await queryReply(port, argv);
  return (replyBulk(reply) ?? reply.subarray(1, reply.indexOf(0x0d))).toString('latin1');
}

/** One command over a fresh connection: its whole reply. An error reply throws. */
export function queryReply(port: number, argv: readonly string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    sock.once('connect', () => sock.write(encodeCommand(argv.map((a) => Buffer.from(a)))));
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (replyEnd(got, 0) < 0) return;
      sock.destroy();
      if (got[0] === 0x2d) {
        reject(new Error(`${argv[0]}: ${got.toString('latin1', 1, got.indexOf(0x0d))}`));
      } else resolve(got);
    });
    sock.once('error', reject);
  });
}

/** Database 0's log size (tail - begin) from strata-server's INFO storage. */
export async function logBytes(port: number): Promise<number> {
  const info = await query(port, ['INFO', 'storage']);
  const m = /db0:begin=(\d+),head=\d+,read_only=\d+,tail=(\d+)/.exec(info);
  if (m === null) throw new Error('INFO storage has no db0 log line');
  return Number(m[2]) - Number(m[1]);
}

/** The servers a scenario compares: strata, and redis when redis-server is installed. */
export function comparedSystems(): string[] {
  return hasRedisServer() ? ['strata', 'redis'] : ['strata'];
}

/** A numeric field of an INFO reply (NaN when absent). */
export function infoField(info: string, name: string): number {
  const m = new RegExp(`^${name}:(\\S*)`, 'm').exec(info);
  return m === null ? Number.NaN : Number(m[1]);
}

/** Stops every server (`signal`, SIGKILL after 15 s) and waits for them to be gone. */
export async function stopServers(
  servers: Iterable<ServerProcess>,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  for (const srv of servers) await stopChild(srv.child, signal);
}

/** `<name>_peak_rss_mb` of each server, for a scenario's metrics. */
export function peakRssMetrics(servers: Record<string, ServerProcess>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, srv] of Object.entries(servers)) {
    out[`${name}_peak_rss_mb`] = srv.peakRssBytes() / MiB;
  }
  return out;
}

/** Stops a child (SIGKILL after 15 s) and waits for it to be gone. */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** One redis-benchmark test's result: requests per second, latency percentiles (ms). */
export interface BenchLoad {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
}

/** Parses redis-benchmark --csv output (Redis 7 columns), by lower-cased test name. */
export function parseBenchmarkCsv(csv: string): Map<string, BenchLoad> {
  const rows = csv
    .trim()
    .split('\n')
    .map((l) => l.split(',').map((c) => c.replace(/^"|"$/g, '')));
  const header = rows[0] ?? [];
  const col = (n: string) => header.indexOf(n);
  const out = new Map<string, BenchLoad>();
  for (const r of rows.slice(1)) {
    const name = r[col('test')]!;
    out.set(name.toLowerCase(), {
      rps: Number(r[col('rps')]),
      p50: Number(r[col('p50_latency_ms')]),
      p99: Number(r[col('p99_latency_ms')]),
    });
  }
  return out;
}

export interface BenchmarkRun {
  readonly clients: number;
  readonly requests: number;
  /** Random keys below this (`-r`). */
  readonly keyspace: number;
  /** Pipeline depth (`-P`); default 1. */
  readonly depth?: number;
  /** Value size of the built-in tests (`-d`). */
  readonly valueBytes?: number;
}

/**
 * One redis-benchmark run against 127.0.0.1:`port`: `test` is the arguments
 * that say what to run (`['-t', 'set']`, or a command with `__rand_int__`);
 * the result of its first (only) test.
 */
export async function redisBenchmark(
  port: number,
  test: readonly string[],
  o: BenchmarkRun,
): Promise<BenchLoad> {
  const args = ['-h', '127.0.0.1', '-p', String(port), '-c', String(o.clients)];
  if (o.depth !== undefined) args.push('-P', String(o.depth));
  args.push('-n', String(o.requests), '-r', String(o.keyspace));
  if (o.valueBytes !== undefined) args.push('-d', String(o.valueBytes));
  const csv = await runProcess('redis-benchmark', [...args, '--csv', ...test]);
  const first = [...parseBenchmarkCsv(csv).values()][0];
  if (first === undefined || !(first.rps > 0)) {
    throw new Error(`redis-benchmark gave no result for ${test.join(' ')}: ${csv}`);
  }
  return first;
}

/**
 * The pair most scenarios compare: strata-server (`strataArgs`, data in
 * `<dir>/strata`) as `strata` and, when installed, redis-server as
 * `redis`, each in its own process. If one fails to start, both are killed.
 */
export async function startStrataAndRedis(
  dir: string,
  strataArgs: readonly string[],
  log: (message: string) => void,
): Promise<Record<string, ServerProcess>> {
  const servers: Record<string, ServerProcess> = {};
  try {
    servers.strata = await startStrataServer(path.join(dir, 'strata'), strataArgs);
    if (hasRedisServer()) servers.redis = await startRedisServer(dir);
    else log('redis-server not installed: strata variants only');
  } catch (err) {
    await stopServers(Object.values(servers), 'SIGKILL');
    throw err;
  }
  return servers;
}

/**
 * `<key>.<server>-<case>`: the median `sample` of each of `servers` over
 * redis-server's in the same case, for each case where both were measured.
 */
export function sampleRatiosOverRedis(
  results: ScenarioResults,
  key: string,
  sample: string,
  servers: readonly string[],
  cases: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of cases) {
    const redis = median(results.samples(`redis-${c}`, sample));
    for (const s of servers) {
      const mine = median(results.samples(`${s}-${c}`, sample));
      if (Number.isFinite(mine / redis)) out[`${key}.${s}-${c}`] = mine / redis;
    }
  }
  return out;
}

/**
 * Runs measured once on fresh servers, named `<server>` or
 * `<server>-<case>`: `first_run.<name>` (ops/s) and, beside redis-server's
 * run of the same case, `first_run_ratio.<name>`.
 */
export function firstRunMetrics(
  firstRuns: Readonly<Record<string, BenchLoad>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, load] of Object.entries(firstRuns)) {
    out[`first_run.${name}`] = load.rps;
    const dash = name.indexOf('-');
    const server = dash < 0 ? name : name.slice(0, dash);
    const redis = firstRuns[dash < 0 ? 'redis' : `redis${name.slice(dash)}`];
    if (redis !== undefined && server !== 'redis') {
      out[`first_run_ratio.${name}`] = load.rps / redis.rps;
    }
  }
  return out;
}
