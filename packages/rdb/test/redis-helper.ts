// A throwaway redis-server for the tests (@strata/redis-harness) and a
// minimal RESP2 client that keeps replies as bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasRedisServer, startRedis as startRedisProcess } from '@strata/redis-harness';

export const hasRedis = hasRedisServer();

export type Reply = string | number | Buffer | null | Error | Reply[];

export interface RedisHandle {
  readonly port: number;
  readonly dir: string;
  call(...args: Array<string | Buffer | number>): Promise<Reply>;
  stop(): void;
}

/** Parses one reply at `pos`; undefined when the buffer holds only part of it. */
function parse(buf: Buffer, pos: number): { reply: Reply; end: number } | undefined {
  const eol = buf.indexOf('\r\n', pos);
  if (eol < 0) return undefined;
  const line = buf.toString('latin1', pos + 1, eol);
  switch (buf[pos]) {
    case 0x2b: // +
      return { reply: line, end: eol + 2 };
    case 0x2d: // -
      return { reply: new Error(line), end: eol + 2 };
    case 0x3a: // :
      return { reply: Number(line), end: eol + 2 };
    case 0x24: {
      const n = Number(line);
      if (n < 0) return { reply: null, end: eol + 2 };
      if (buf.length < eol + 2 + n + 2) return undefined;
      return { reply: Buffer.from(buf.subarray(eol + 2, eol + 2 + n)), end: eol + 4 + n };
    }
    case 0x2a: {
      const n = Number(line);
      if (n < 0) return { reply: null, end: eol + 2 };
      const out: Reply[] = [];
      let p = eol + 2;
      for (let i = 0; i < n; i++) {
        const r = parse(buf, p);
        if (!r) return undefined;
        out.push(r.reply);
        p = r.end;
      }
      return { reply: out, end: p };
    }
    default:
      throw new Error(`bad reply byte ${buf[pos]}`);
  }
}

export async function startRedis(extraArgs: readonly string[] = []): Promise<RedisHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-rdb-'));
  const redis = await startRedisProcess(extraArgs, { dir });
  const port = redis.port;
  const sock = await new Promise<Socket>((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
  let pending = Buffer.alloc(0);
  const waiters: Array<(r: Reply) => void> = [];
  sock.on('data', (d: Buffer) => {
    pending = Buffer.concat([pending, d]);
    for (;;) {
      const r = parse(pending, 0);
      if (!r) break;
      pending = pending.subarray(r.end);
      waiters.shift()?.(r.reply);
    }
  });
  const call = (...args: Array<string | Buffer | number>): Promise<Reply> => {
    const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
    for (const a of args) {
      const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a));
      parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
    }
    return new Promise((resolve) => {
      waiters.push(resolve);
      sock.write(Buffer.concat(parts));
    });
  };
  return {
    port,
    dir,
    call,
    stop: () => {
      sock.destroy();
      redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
