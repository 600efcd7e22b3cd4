#!/usr/bin/env node
// Issue 6 acceptance: strata-server with `--memory 64mb` takes 10M keys,
// answers every GET right, DBSIZE is exact, and all of it is back after a
// restart (SIGTERM, start again on the same directory, verify again).
//
//   pnpm -F '@strata/server...' build        # the server and the packages it imports
//   node scripts/acceptance/ten-million.mjs [--keys 10000000] [--memory 64mb]
//        [--connections 32] [--batch 512] [--cli apps/server/dist/cli.js] [--keep]
//
// Keys are `key:%012d` (16 bytes), values `value:<i>:<i*7 in base 36>`, so
// each GET checks its own value. Load and verify are pipelined (`--batch`
// commands per round trip on each of `--connections` connections). Prints
// the time of each phase, the server's peak RSS and the disk use, and exits
// 1 on any wrong value, a wrong DBSIZE or a server that fails.

import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
}
const KEYS = Number(option('keys', '10000000'));
const MEMORY = option('memory', '64mb');
const CONNECTIONS = Number(option('connections', '32'));
const BATCH = Number(option('batch', '512'));
const CLI = path.resolve(root, option('cli', 'apps/server/dist/cli.js'));
const KEEP = process.argv.includes('--keep');

const keyOf = (i) => `key:${String(i).padStart(12, '0')}`;
const valueFor = (i) => `value:${i}:${(i * 7).toString(36)}`;

const log = (msg) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

// ---- the server process -------------------------------------------------------

class ServerProcess {
  constructor(dir) {
    this.dir = dir;
    this.peakRssKb = 0;
    this.output = '';
  }

  async start() {
    this.child = spawn(
      process.execPath,
      [CLI, '--port', '0', '--dir', this.dir, '--memory', MEMORY, '--checkpoint-interval', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, sig) => resolve({ code, sig })),
    );
    const onOut = (d) => {
      this.output += d;
      if (this.output.length > 1 << 20) this.output = this.output.slice(-(1 << 19));
    };
    this.child.stdout.on('data', onOut);
    this.child.stderr.on('data', onOut);
    const started = Date.now();
    for (;;) {
      const m = /Ready to accept connections tcp on [^\s:]+:(\d+)/.exec(this.output);
      if (m) {
        this.port = Number(m[1]);
        break;
      }
      if (this.child.exitCode !== null) throw new Error(`the server exited:\n${this.output}`);
      if (Date.now() - started > 600_000) throw new Error(`no ready line:\n${this.output}`);
      await sleep(50);
    }
    this.rssTimer = setInterval(() => void this.sampleRss(), 500);
    return Date.now() - started;
  }

  async sampleRss() {
    try {
      const status = await readFile(`/proc/${this.child.pid}/status`, 'latin1');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      if (hwm) this.peakRssKb = Math.max(this.peakRssKb, Number(hwm[1]));
    } catch {
      // The process is gone.
    }
  }

  /** SIGTERM: the server checkpoints and exits 0. */
  async stop() {
    await this.sampleRss();
    clearInterval(this.rssTimer);
    const t = Date.now();
    this.child.kill('SIGTERM');
    const { code, sig } = await this.exited;
    if (code !== 0)
      throw new Error(`the server exited with ${code ?? sig}:\n${this.output.slice(-4000)}`);
    return Date.now() - t;
  }

  kill() {
    clearInterval(this.rssTimer);
    if (this.child?.exitCode === null) this.child.kill('SIGKILL');
  }
}

// ---- a pipelined connection -----------------------------------------------------

/** Minimal RESP2 reply reader: simple, error, integer, bulk (no arrays needed here). */
class Connection {
  constructor(socket) {
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    this.replies = [];
    this.waiting = null;
    socket.on('data', (d) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      this.parse();
    });
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }

  static open(port) {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new Connection(s)));
      s.setNoDelay(true);
      s.once('error', reject);
    });
  }

  fail(e) {
    const w = this.waiting;
    this.waiting = null;
    w?.reject(e);
  }

  parse() {
    let at = 0;
    const b = this.buf;
    for (;;) {
      const eol = b.indexOf('\r\n', at);
      if (eol < 0) break;
      const type = b[at];
      if (type === 0x24) {
        const len = Number(b.latin1Slice(at + 1, eol));
        if (len < 0) {
          this.replies.push(null);
          at = eol + 2;
          continue;
        }
        if (eol + 2 + len + 2 > b.length) break;
        this.replies.push(b.latin1Slice(eol + 2, eol + 2 + len));
        at = eol + 4 + len;
      } else {
        const line = b.latin1Slice(at + 1, eol);
        this.replies.push(type === 0x2d ? new Error(line) : type === 0x3a ? Number(line) : line);
        at = eol + 2;
      }
    }
    this.buf = at === b.length ? Buffer.alloc(0) : b.subarray(at);
    const w = this.waiting;
    if (w !== null && this.replies.length >= w.n) {
      this.waiting = null;
      const out = this.replies;
      this.replies = [];
      w.resolve(out);
    }
  }

  /** Sends the commands (each an array of strings) at once; resolves to their replies. */
  send(commands) {
    let out = '';
    for (const argv of commands) {
      out += `*${argv.length}\r\n`;
      for (const a of argv) out += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
    }
    const p = new Promise((resolve, reject) => {
      this.waiting = { n: commands.length, resolve, reject };
    });
    this.socket.write(out);
    this.parse();
    return p;
  }

  close() {
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }
}

// ---- phases ------------------------------------------------------------------------

/** Runs `work(conn, from, to)` over [0, KEYS) split in batches across the connections. */
async function overAllKeys(port, work, label) {
  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => Connection.open(port)));
  let next = 0;
  let done = 0;
  const t0 = Date.now();
  let lastReport = t0;
  try {
    await Promise.all(
      conns.map(async (c) => {
        for (;;) {
          const from = next;
          if (from >= KEYS) return;
          const to = Math.min(KEYS, from + BATCH);
          next = to;
          await work(c, from, to);
          done += to - from;
          const now = Date.now();
          if (now - lastReport > 15_000) {
            lastReport = now;
            const rate = Math.round(done / ((now - t0) / 1000));
            log(`${label}: ${done.toLocaleString('en')} keys, ${rate.toLocaleString('en')}/s`);
          }
        }
      }),
    );
  } finally {
    for (const c of conns) c.close();
  }
  return Date.now() - t0;
}

async function load(port) {
  return overAllKeys(
    port,
    async (c, from, to) => {
      const cmds = [];
      for (let i = from; i < to; i++) cmds.push(['SET', keyOf(i), valueFor(i)]);
      const replies = await c.send(cmds);
      for (let i = 0; i < replies.length; i++) {
        if (replies[i] !== 'OK') throw new Error(`SET ${keyOf(from + i)}: ${replies[i]}`);
      }
    },
    'load',
  );
}

let wrong = 0;
async function verify(port, label) {
  wrong = 0;
  const ms = await overAllKeys(
    port,
    async (c, from, to) => {
      const cmds = [];
      for (let i = from; i < to; i++) cmds.push(['GET', keyOf(i)]);
      const replies = await c.send(cmds);
      for (let i = 0; i < replies.length; i++) {
        const want = valueFor(from + i);
        if (replies[i] !== want) {
          if (wrong++ < 10) log(`WRONG: GET ${keyOf(from + i)} = ${replies[i]}, want ${want}`);
        }
      }
    },
    label,
  );
  const c = await Connection.open(port);
  const [dbsize] = await c.send([['DBSIZE']]);
  c.close();
  return { ms, wrong, dbsize };
}

async function diskBytes(dir) {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await diskBytes(p);
    else total += (await stat(p)).blocks * 512;
  }
  return total;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

// ---- main --------------------------------------------------------------------------

const dir = await mkdtemp(path.join(tmpdir(), 'strata-ten-million-'));
let server = null;
let failed = false;
const report = { keys: KEYS, memory: MEMORY, connections: CONNECTIONS, batch: BATCH };
try {
  log(`${KEYS.toLocaleString('en')} keys, --memory ${MEMORY}, data in ${dir}`);
  server = new ServerProcess(dir);
  await server.start();
  report.load_ms = await load(server.port);
  log(`loaded in ${secs(report.load_ms)} (${Math.round(KEYS / (report.load_ms / 1000))}/s)`);
  const v1 = await verify(server.port, 'verify');
  report.verify_ms = v1.ms;
  report.wrong = v1.wrong;
  report.dbsize = v1.dbsize;
  log(`verified in ${secs(v1.ms)}: ${v1.wrong} wrong, DBSIZE ${v1.dbsize}`);
  report.peak_rss_mb_first = Math.round(server.peakRssKb / 1024);
  report.stop_ms = await server.stop();
  report.disk_bytes = await diskBytes(dir);
  log(
    `SIGTERM: exited 0 in ${secs(report.stop_ms)}; peak RSS ${report.peak_rss_mb_first} MB; disk ${mb(report.disk_bytes)}`,
  );

  server = new ServerProcess(dir);
  report.restart_ms = await server.start();
  log(`restarted: ready in ${secs(report.restart_ms)}`);
  const v2 = await verify(server.port, 'verify after restart');
  report.verify_after_restart_ms = v2.ms;
  report.wrong_after_restart = v2.wrong;
  report.dbsize_after_restart = v2.dbsize;
  log(`verified in ${secs(v2.ms)}: ${v2.wrong} wrong, DBSIZE ${v2.dbsize}`);
  report.peak_rss_mb_restart = Math.round(server.peakRssKb / 1024);
  report.stop2_ms = await server.stop();
  server = null;
  failed = v1.wrong > 0 || v2.wrong > 0 || v1.dbsize !== KEYS || v2.dbsize !== KEYS;
} catch (e) {
  failed = true;
  report.error = String(e?.stack ?? e);
  log(`FAILED: ${report.error}`);
} finally {
  server?.kill();
  if (!KEEP) await rm(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(report, null, 2));
console.log(failed ? 'FAIL' : 'PASS');
process.exit(failed ? 1 : 0);
