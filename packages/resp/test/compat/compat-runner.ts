import { connect, type Socket } from 'node:net';
import { encodeCommand } from '@strata/protocol';
import { startRedis as startRedisProcess } from '@strata/redis-harness';
import type { CompatCase } from './compat-cases.js';

const END = encodeCommand(['ECHO', '__end__']);
const END_REPLY = '$7\r\n__end__\r\n';

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** Reads from `s` until the received text ends with `suffix`. */
function readUntil(s: Socket, suffix: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(`timeout waiting for ${JSON.stringify(suffix)}; got ${JSON.stringify(got)}`),
      );
    }, timeoutMs);
    const onData = (d: Buffer) => {
      got += d.toString('latin1');
      if (got.endsWith(suffix)) {
        cleanup();
        resolve(got);
      }
    };
    const cleanup = () => {
      clearTimeout(timer);
      s.off('data', onData);
    };
    s.on('data', onData);
  });
}

/**
 * Runs a case on a fresh connection: every command pipelined in one write
 * (an `inline:` command as a telnet line), then an ECHO marker; returns the
 * replies, marker excluded, as latin1 text.
 */
export async function runCase(port: number, c: CompatCase): Promise<string> {
  const s = await open(port);
  try {
    if (c.resp3 === true) {
      s.write(encodeCommand(['HELLO', '3']));
      s.write(END);
      await readUntil(s, END_REPLY);
    }
    const parts: Buffer[] = c.commands.map((argv) =>
      argv.length === 1 && argv[0]!.startsWith('inline:')
        ? Buffer.from(`${argv[0]!.slice(7)}\r\n`, 'latin1')
        : encodeCommand(argv.map((a) => Buffer.from(a, 'latin1'))),
    );
    parts.push(END);
    s.write(Buffer.concat(parts));
    const out = await readUntil(s, END_REPLY);
    return out.slice(0, out.length - END_REPLY.length);
  } finally {
    s.destroy();
  }
}

export { hasRedisServer } from '@strata/redis-harness';

/**
 * Starts a throwaway redis-server on a free loopback port (no persistence);
 * `extraArgs` are more command-line options, e.g. `--enable-debug-command local`.
 */
export async function startRedis(
  extraArgs: readonly string[] = [],
): Promise<{ port: number; stop(): void }> {
  return startRedisProcess(extraArgs);
}
