import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { encodeCommand } from '@strata/resp';
import { parseBenchmarkCsv } from './resp-throughput.js';

/**
 * Process and socket plumbing of the `types` scenario: finding binaries, a
 * throwaway redis-server, redis-benchmark runs of arbitrary commands, and
 * bulk loading over one pipelined socket.
 */

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

async function waitForPort(port: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await sendAll(port, [['PING']]);
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Starts redis-server on a free loopback port, no persistence, files in `dir`. */
export async function startRedisServer(
  dir: string,
): Promise<{ port: number; child: ReturnType<typeof spawn> }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
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
    ],
    { stdio: 'ignore' },
  );
  try {
    await waitForPort(port);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return { port, child };
}

function runProcess(bin: string, args: string[]): Promise<string> {
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

export interface BenchLoad {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
}

/**
 * redis-benchmark running one command (`__rand_int__` replaced by a random
 * number below `keyspace`) with `clients` connections and pipeline `depth`.
 */
export async function benchmarkCommand(
  port: number,
  command: readonly string[],
  o: { requests: number; clients: number; depth: number; keyspace: number },
): Promise<BenchLoad> {
  const csv = await runProcess('redis-benchmark', [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-c',
    String(o.clients),
    '-P',
    String(o.depth),
    '-n',
    String(o.requests),
    '-r',
    String(o.keyspace),
    '--csv',
    ...command,
  ]);
  const first = [...parseBenchmarkCsv(csv).values()][0];
  if (first === undefined || !(first.rps > 0)) {
    throw new Error(`redis-benchmark gave no result for ${command.join(' ')}: ${csv}`);
  }
  return first;
}

/**
 * Sends every command over one connection, pipelined in batches, and waits
 * for all the replies (counted by their line starts: the commands used here
 * answer with integers, simple strings or errors). Error replies throw.
 */
export function sendAll(port: number, commands: readonly (readonly string[])[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let next = 0;
    let waiting = 0;
    let tail = '';
    const BATCH = 64;
    const sendBatch = () => {
      const parts: Buffer[] = [];
      for (let i = 0; i < BATCH && next < commands.length; i++, next++) {
        parts.push(encodeCommand(commands[next]!.map((a) => Buffer.from(a, 'latin1'))));
        waiting++;
      }
      if (parts.length === 0) {
        sock.end();
        resolve();
        return;
      }
      sock.write(Buffer.concat(parts));
    };
    sock.on('data', (d: Buffer) => {
      const text = tail + d.toString('latin1');
      const lines = text.split('\r\n');
      tail = lines.pop() ?? '';
      for (const l of lines) {
        if (l[0] === '-') {
          sock.destroy();
          reject(new Error(`server error: ${l}`));
          return;
        }
        if (l[0] === ':' || l[0] === '+') waiting--;
      }
      if (waiting === 0) sendBatch();
    });
    sock.once('connect', sendBatch);
    sock.once('error', reject);
  });
}
