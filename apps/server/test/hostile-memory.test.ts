import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Issue 22's hostile-memory test, on a real strata-server process: a
 * `*2147483647` stream of empty arguments, a 400 MB SET then DEL, 1000
 * connections each holding half a command. After each, the server's RSS
 * (/proc/<pid>/status VmRSS) comes back within 2x of what it was at the
 * start. It used to keep 2.45 GB after the first, and 1.25 GB
 * (`used_memory`) after the second.
 *
 * RSS is polled until it is back or a deadline passes (SETTLE_MS); the
 * peaks are sampled every 100 ms. About 25 s in all on a loaded 2-core
 * machine (the 400 MB goes through the loopback and to disk).
 */

const MB = 1 << 20;
/**
 * How long memory may take to come back. The server gives it back about
 * 100 ms after a client let go of a huge request (a full collection);
 * without that, V8 collected when idle enough, after 18 s to minutes. The
 * deadline is generous for the first and short of the second.
 */
const SETTLE_MS = 15_000;

let server: { process: StrataProcess; port: number };
let dir: { path: string; remove(): Promise<void> };
let pid = 0;
let startRss = 0;

function rss(): number {
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  if (m === null) throw new Error('no VmRSS');
  return Number(m[1]) * 1024;
}

const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

/** Polls RSS until it is at most `limit` (or the deadline passes); the last RSS read. */
async function rssBackUnder(limit: number): Promise<number> {
  const deadline = Date.now() + SETTLE_MS;
  let now = rss();
  while (now > limit && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    now = rss();
  }
  return now;
}

/** Samples RSS every 100 ms while `work` runs; the highest seen. */
async function peakDuring(work: () => Promise<void>): Promise<number> {
  let peak = rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 100);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rss());
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Writes `bytes`, waiting for the socket to drain when it asks to. */
async function write(s: Socket, bytes: string | Buffer): Promise<void> {
  if (!s.write(bytes)) await new Promise((r) => s.once('drain', r));
}

/** One command, its whole reply (a simple or integer one, or an INFO bulk). */
async function call(port: number, line: string): Promise<string> {
  const s = await open(port);
  try {
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
    });
    s.write(`${line}\r\n`);
    for (;;) {
      const bulk = /^\$(\d+)\r\n/.exec(got);
      if (
        bulk !== null ? got.length >= bulk[0].length + Number(bulk[1]) + 2 : got.endsWith('\r\n')
      ) {
        return got;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    s.destroy();
  }
}

async function infoField(field: string): Promise<number> {
  const m = new RegExp(`\\r\\n${field}:(\\d+)`).exec(await call(server.port, 'INFO everything'));
  if (m === null) throw new Error(`no ${field}`);
  return Number(m[1]);
}

beforeAll(async () => {
  dir = await tempDir();
  server = await StrataProcess.start(['--port', '0', '--dir', dir.path]);
  pid = server.process.child.pid!;
  // A few commands first, so the start is a server that has served some.
  for (let i = 0; i < 20; i++) await call(server.port, `SET warm:${i} ${'v'.repeat(100)}`);
  await new Promise((r) => setTimeout(r, 500));
  startRss = rss();
  console.log(`hostile-memory: start RSS ${mb(startRss)}`);
}, 120_000);

afterAll(async () => {
  server?.process.child.kill('SIGKILL');
  await server?.process.exited;
  await dir?.remove();
});

test('*2147483647 then 10 million empty arguments: memory grows with them and comes back after the close', async () => {
  const peak = await peakDuring(async () => {
    const s = await open(server.port);
    s.on('error', () => undefined);
    await write(s, '*2147483647\r\n');
    const block = Buffer.from('$0\r\n\r\n'.repeat(10_000));
    for (let i = 0; i < 1000; i++) await write(s, block);
    // Every argument has reached the server: a PING on another connection after them is answered.
    await new Promise<void>((r) => s.write('', () => r()));
    expect(await call(server.port, 'PING')).toBe('+PONG\r\n');
    s.destroy();
  });
  const after = await rssBackUnder(2 * startRss);
  console.log(`hostile-memory: empty arguments: peak ${mb(peak)}, after ${mb(after)}`);
  // Redis spends ~40 bytes an argument (822 MB for ~20M); a Buffer each made it ~110 here.
  expect(peak - startRss).toBeLessThan(10_000_000 * 48);
  expect(after).toBeLessThanOrEqual(2 * startRss);
}, 180_000);

test('a 400 MB SET then DEL: RSS and used_memory come back', async () => {
  const usedBefore = await infoField('used_memory');
  const size = 400 * MB;
  const peak = await peakDuring(async () => {
    const s = await open(server.port);
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
    });
    await write(s, `*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$${size}\r\n`);
    const block = Buffer.alloc(MB, 0x62);
    for (let i = 0; i < 400; i++) await write(s, block);
    await write(s, '\r\n');
    while (!got.includes('\r\n')) await new Promise((r) => setTimeout(r, 20));
    expect(got).toBe('+OK\r\n');
    expect(await call(server.port, 'STRLEN big')).toBe(`:${size}\r\n`);
    expect(await call(server.port, 'DEL big')).toBe(':1\r\n');
    s.destroy();
  });
  const after = await rssBackUnder(2 * startRss);
  const usedAfter = await infoField('used_memory');
  console.log(
    `hostile-memory: 400 MB SET+DEL: peak ${mb(peak)}, after ${mb(after)}; used_memory ${mb(usedBefore)} -> ${mb(usedAfter)}`,
  );
  // Gathered as it came: the value once, not its chunks and then a copy of them (2x).
  expect(peak - startRss).toBeLessThan(1.5 * size);
  expect(after).toBeLessThanOrEqual(2 * startRss);
  expect(usedAfter).toBeLessThanOrEqual(2 * usedBefore);
}, 300_000);

test('1000 connections each sending half a command: RSS comes back once they close', async () => {
  const clients: Socket[] = [];
  const half = Buffer.alloc(32 * 1024, 0x68);
  const inputBefore = await infoField('total_net_input_bytes');
  let sent = 0;
  for (let i = 0; i < 1000; i++) {
    const s = await open(server.port);
    s.on('error', () => undefined);
    const head = `*3\r\n$3\r\nSET\r\n$${String(i).length + 2}\r\nk:${i}\r\n$${2 * half.length}\r\n`;
    s.write(head);
    s.write(half);
    sent += head.length + half.length;
    clients.push(s);
  }
  // Everything sent has been read by the server.
  while ((await infoField('total_net_input_bytes')) - inputBefore < sent) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const held = rss();
  expect(await infoField('connected_clients')).toBeGreaterThanOrEqual(1000);
  for (const s of clients) s.destroy();
  const after = await rssBackUnder(2 * startRss);
  console.log(
    `hostile-memory: 1000 half commands (32 KB each): held ${mb(held)}, after ${mb(after)}`,
  );
  expect(after).toBeLessThanOrEqual(2 * startRss);
  // None of the halves became a key.
  expect(await call(server.port, 'EXISTS k:0 k:999')).toBe(':0\r\n');
}, 180_000);
