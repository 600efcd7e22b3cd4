import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseBenchmarkCsv } from './resp-throughput.js';

// What the durability scenario needs to drive servers as processes. The
// redis-benchmark CSV parser comes from resp-throughput; the process and
// port helpers below mirror that file's private ones (to be shared once it
// exports them).

export function which(bin: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const p = path.join(dir, bin);
    if (existsSync(p)) return p;
  }
  return null;
}

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

/** Resolves once `port` answers a PING. */
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
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

function run(bin: string, args: string[]): Promise<string> {
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

export interface SetLoad {
  rps: number;
  p50: number;
  p99: number;
}

/** `redis-benchmark -t set` against `port`: ops/s and latency percentiles. */
export async function benchmarkSet(
  port: number,
  o: { clients: number; requests: number; valueBytes: number; keyspace: number },
): Promise<SetLoad> {
  const csv = await run('redis-benchmark', [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-c',
    String(o.clients),
    '-n',
    String(o.requests),
    '-d',
    String(o.valueBytes),
    '-r',
    String(o.keyspace),
    '-t',
    'set',
    '--csv',
  ]);
  const load = parseBenchmarkCsv(csv).get('set');
  if (load === undefined || !(load.rps > 0)) throw new Error(`redis-benchmark gave no SET: ${csv}`);
  return load;
}

/** Kills a child and waits for it to be gone. */
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
