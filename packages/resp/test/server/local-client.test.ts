import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { CommandLog } from '../../src/server/command-log.js';
import { RespServer } from '../../src/server/resp-server.js';

const argv = (...words: string[]): Buffer[] => words.map((w) => Buffer.from(w));

/** A command log whose appends settle when the test says so. */
class HeldLog implements CommandLog {
  readonly entries: string[] = [];
  readonly waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  append(db: number, a: readonly Buffer[]): Promise<void> {
    this.entries.push(`${db} ${a.map(String).join(' ')}`);
    return new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
  }
}

let server: RespServer | null = null;
let dir: string | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  if (dir !== null) await rm(dir, { recursive: true, force: true });
  dir = null;
});

async function open(commandLog?: CommandLog): Promise<RespServer> {
  dir = await mkdtemp(join(tmpdir(), 'strata-local-'));
  server = new RespServer({
    databases: { dir, store: { memory: 1 << 20, pageSize: 1 << 14 } },
    ...(commandLog ? { commandLog } : {}),
  });
  await server.start();
  return server;
}

describe('RespServer.local', () => {
  test('runs commands in process with no socket, replies in RESP3 by default', async () => {
    const s = await open();
    const c = s.local();
    expect(String(await c.send(argv('HSET', 'h', 'a', '1', 'b', '2')))).toBe(':2\r\n');
    expect(String(await c.send(argv('HGETALL', 'h')))).toBe(
      '%2\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n',
    );
    expect(String(await c.send(argv('GET', 'h')))).toMatch(/^-WRONGTYPE/);
    expect(String(await s.local(2).send(argv('HGETALL', 'nope')))).toBe('*0\r\n');
    // Not listening: start() is what it needs.
    expect(() => s.address()).toThrow();
  });

  test('MULTI .. EXEC through one local client is one transaction in the command log', async () => {
    const entries: string[] = [];
    const s = await open({
      append: (db, a) => {
        entries.push(`${db} ${a.map(String).join(' ')}`);
        return undefined;
      },
    });
    const c = s.local();
    for (const w of [['MULTI'], ['SET', 'a', '1'], ['INCR', 'a'], ['GET', 'zz']]) {
      await c.send(argv(...w));
    }
    expect(String(await c.send(argv('EXEC')))).toBe('*3\r\n+OK\r\n:2\r\n_\r\n');
    expect(entries).toEqual(['0 MULTI', '0 SET a 1', '0 INCR a', '0 EXEC']);
  });

  test('a reply waits for its command log append; a failed append makes it an error', async () => {
    const log = new HeldLog();
    const s = await open(log);
    const c = s.local();
    let settled = false;
    const r = c.send(argv('SET', 'k', 'v')).then((b) => {
      settled = true;
      return String(b);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    // The next command runs meanwhile (a read needs no append); the SET's reply still waits.
    expect(String(await c.send(argv('GET', 'k')))).toBe('$1\r\nv\r\n');
    expect(settled).toBe(false);
    log.waiting.shift()!.resolve();
    expect(await r).toBe('+OK\r\n');

    const failed = c.send(argv('SET', 'k', 'w'));
    await new Promise((resolve) => setImmediate(resolve));
    log.waiting.shift()!.reject(new Error('disk full'));
    expect(String(await failed)).toMatch(/^-NOTPERSISTED .*disk full/);
    expect(log.entries).toEqual(['0 SET k v', '0 SET k w']);
  });

  test('commands sent together run in order, each reply its own', async () => {
    const s = await open();
    const c = s.local(2);
    const replies = await Promise.all([
      c.send(argv('RPUSH', 'l', 'a')),
      c.send(argv('RPUSH', 'l', 'b')),
      c.send(argv('NOSUCH')),
      c.send(argv('LRANGE', 'l', '0', '-1')),
    ]);
    expect(replies.map(String)).toEqual([
      ':1\r\n',
      ':2\r\n',
      "-ERR unknown command 'NOSUCH', with args beginning with: \r\n",
      '*2\r\n$1\r\na\r\n$1\r\nb\r\n',
    ]);
  });
});
