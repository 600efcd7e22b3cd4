import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { encodeCommand, ReplyReader } from '@strata/protocol';
import { defineScenario, lower, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';
import {
  freePort,
  hasRedisServer,
  query,
  type ServerProcess,
  startRedisServer,
  startStrataServer,
  stopChild,
  stopServers,
  strataCli,
} from './server-harness.js';
import { decodeReply, type Reply, sampleIndices } from './streams.js';
import { sendAll } from './types-support.js';

/**
 * `strata-server --import-rdb` against redis-server's own load of the same
 * RDB file. Setup has redis-server write the file: `keys` strings (DEBUG
 * POPULATE, 16-byte values), 1% hashes, lists, sets (half intsets) and
 * zsets of 10 members each, 1% strings with an hour's TTL, then SAVE.
 * Variants: `strata`, the wall time of `strata-server --import-rdb FILE
 * --dir <new> --memory <memory>` from spawn to exit (the staged import,
 * its checkpoints and the move into place included); `redis`, redis-server
 * started on the file (`--dbfilename`) from spawn until INFO says
 * `loading:0`. Both samples include the process start; `peak_rss_mb` is
 * each process's VmHWM (strata's sampled every 20 ms until it exits). The
 * ratio `strata/redis` is of times (lower is better for strata).
 *
 * After the runs, strata-server is started on the last import and every
 * key (at `--ci` size; `sample` keys of each kind at full size) is read
 * from it and from redis-server loaded from the file: TYPE, the value
 * (GET, LRANGE, ZRANGE WITHSCORES, HGETALL and SMEMBERS sorted), PTTL
 * within a minute, and DBSIZE. A difference fails the scenario; metrics
 * `verified_keys` and `mismatches` (0) say what was checked.
 */

type Params = {
  keys: number;
  memory: string;
  /** Keys of each kind read back at the end; 0: every key. */
  sample: number;
};

interface State {
  rdbDir: string;
  rdbBytes: number;
  /** The directory of the newest strata import, checked at the end. */
  lastImport: string | null;
  imports: number;
}

const MEMBERS = 10;

const kinds = (keys: number) => {
  const some = Math.max(1, Math.floor(keys / 100));
  return { strings: keys, hashes: some, lists: some, sets: some, zsets: some, ttl: some };
};

/** Every collection and TTL key, by kind: its name and the commands that make it. */
function collectionCommands(keys: number): string[][] {
  const k = kinds(keys);
  const out: string[][] = [];
  const members = (f: (j: number) => string[]) =>
    Array.from({ length: MEMBERS }, (_, j) => f(j)).flat();
  for (let i = 0; i < k.hashes; i++)
    out.push(['HSET', `h:${i}`, ...members((j) => [`f${j}`, `v${i}-${j}`])]);
  for (let i = 0; i < k.lists; i++)
    out.push(['RPUSH', `l:${i}`, ...members((j) => [`item-${i}-${j}`])]);
  for (let i = 0; i < k.sets; i++) {
    out.push([
      'SADD',
      `s:${i}`,
      ...members((j) => [i % 2 === 0 ? String(i * 100 + j) : `m${i}-${j}`]),
    ]);
  }
  for (let i = 0; i < k.zsets; i++)
    out.push(['ZADD', `z:${i}`, ...members((j) => [String(j / 4 + i), `z${j}`])]);
  for (let i = 0; i < k.ttl; i++) out.push(['SET', `t:${i}`, `ttl-${i}`, 'PX', '3600000']);
  return out;
}

/** The keys checked at the end: every one, or `sample` of each kind. */
function checkedKeys(keys: number, sample: number): string[] {
  const k = kinds(keys);
  const pick = (n: number, prefix: string) =>
    (sample === 0 || sample >= n
      ? Array.from({ length: n }, (_, i) => i)
      : sampleIndices(n, sample)
    ).map((i) => `${prefix}:${i}`);
  return [
    ...pick(k.strings, 'key'),
    ...pick(k.hashes, 'h'),
    ...pick(k.lists, 'l'),
    ...pick(k.sets, 's'),
    ...pick(k.zsets, 'z'),
    ...pick(k.ttl, 't'),
  ];
}

/** Sends every command pipelined over one connection; the replies, decoded, in order. */
function fetchAll(port: number, commands: readonly (readonly string[])[]): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const out: Reply[] = [];
    let next = 0;
    const BATCH = 256;
    const sendBatch = () => {
      const parts: Buffer[] = [];
      for (let i = 0; i < BATCH && next < commands.length; i++, next++) {
        parts.push(encodeCommand(commands[next]!.map((a) => Buffer.from(a, 'latin1'))));
      }
      if (parts.length === 0) {
        sock.end();
        resolve(out);
        return;
      }
      sock.write(Buffer.concat(parts));
    };
    const replies = new ReplyReader((reply) => {
      out.push(decodeReply(reply).value);
    });
    sock.on('data', (d: Buffer) => {
      replies.feed(d);
      if (out.length === next) sendBatch();
    });
    sock.once('connect', sendBatch);
    sock.once('error', reject);
  });
}

/** A hash's or set's reply in a fixed order (the servers' hash orders differ). */
function sorted(r: Reply, pairs: boolean): Reply {
  if (!Array.isArray(r)) return r;
  if (!pairs) return [...r].map(String).sort();
  const out: string[] = [];
  for (let i = 0; i < r.length; i += 2) out.push(`${String(r[i])}=${String(r[i + 1])}`);
  return out.sort();
}

const READ: Record<string, (key: string) => string[]> = {
  key: (k) => ['GET', k],
  t: (k) => ['GET', k],
  h: (k) => ['HGETALL', k],
  l: (k) => ['LRANGE', k, '0', '-1'],
  s: (k) => ['SMEMBERS', k],
  z: (k) => ['ZRANGE', k, '0', '-1', 'WITHSCORES'],
};

/** Connections the keys are read over: a cold strata-server reads its pages from disk, one at a time per connection. */
const READERS = 16;

/** TYPE, the value and PTTL of each key, comparable across servers. */
async function readKeys(port: number, keys: readonly string[]): Promise<Reply[][]> {
  const commands: string[][] = [];
  for (const k of keys) {
    commands.push(['TYPE', k], READ[k.slice(0, k.indexOf(':'))]!(k), ['PTTL', k]);
  }
  // Whole keys (3 commands each) per connection, in order.
  const per = Math.ceil(keys.length / READERS) * 3;
  const parts = await Promise.all(
    Array.from({ length: READERS }, (_, i) =>
      fetchAll(port, commands.slice(i * per, (i + 1) * per)),
    ),
  );
  const r = parts.flat();
  return keys.map((k, i) => {
    const kind = k.slice(0, k.indexOf(':'));
    const value = r[i * 3 + 1]!;
    return [
      r[i * 3]!,
      kind === 'h' || kind === 's' ? sorted(value, kind === 'h') : value,
      r[i * 3 + 2]!,
    ];
  });
}

/** VmHWM of a live process (Linux), bytes; NaN when it cannot be read. */
function peakRss(pid: number | undefined): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m === null ? Number.NaN : Number(m[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** Runs `strata-server args` to its exit: the time, the last VmHWM seen. */
async function timedImport(args: readonly string[]): Promise<{ ms: number; rss: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [strataCli(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', () => {});
  let rss = Number.NaN;
  const sampler = setInterval(() => {
    const now = peakRss(child.pid);
    if (!Number.isNaN(now)) rss = now;
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const ms = performance.now() - started;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`strata-server --import-rdb exited ${code}:\n${output}`);
  return { ms, rss };
}

/** redis-server started on `dbfilename` in `dir`, resolved once the file is loaded (INFO `loading:0`). */
async function redisLoad(
  dir: string,
): Promise<{ ms: number; rss: number; child: ChildProcess; port: number }> {
  const port = await freePort();
  const started = performance.now();
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
      '--dbfilename',
      'dump.rdb',
    ],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 600_000;
  for (;;) {
    const info = await query(port, ['INFO', 'persistence']).catch(() => '');
    if (/\bloading:0\b/.test(info)) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      await stopChild(child, 'SIGKILL');
      throw new Error('redis-server did not load the RDB file');
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { ms: performance.now() - started, rss: peakRss(child.pid), child, port };
}

export const rdbImport = defineScenario<Params, State>({
  name: 'import',
  description:
    'strata-server --import-rdb of an RDB file redis-server wrote, against redis-server loading it; every key checked',
  params: {
    full: { keys: 5_000_000, memory: '64mb', sample: 20_000 },
    // Reading every key back from a cold strata-server goes to disk key by key: a small file keeps CI quick.
    ci: { keys: 20_000, memory: '64mb', sample: 0 },
  },
  runs: { full: 3, ci: 1 },
  warmup: { full: 0, ci: 0 },
  variants: [lower('strata', 'ms'), lower('redis', 'ms')],
  ratios: ['strata/redis'],

  async setup(ctx) {
    if (!hasRedisServer())
      throw new Error('import needs redis-server: it writes the RDB file and is the reference');
    const rdbDir = path.join(ctx.dir, 'rdb');
    await mkdir(rdbDir, { recursive: true });
    const writer = await startRedisServer(rdbDir, ['--enable-debug-command', 'yes']);
    try {
      const started = performance.now();
      await query(writer.port, ['DEBUG', 'POPULATE', String(ctx.params.keys), 'key', '16']);
      await sendAll(writer.port, collectionCommands(ctx.params.keys));
      await query(writer.port, ['SAVE']);
      ctx.log(
        `RDB file of ${ctx.params.keys} keys and collections written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    } finally {
      await stopServers([writer], 'SIGKILL');
    }
    const { size } = await stat(path.join(rdbDir, 'dump.rdb'));
    return { rdbDir, rdbBytes: size, lastImport: null, imports: 0 };
  },

  async run(variant, ctx): Promise<Measurement> {
    const s = ctx.state;
    if (variant.name === 'strata') {
      const dir = path.join(ctx.dir, `strata-${s.imports++}`);
      const { ms, rss } = await timedImport([
        '--import-rdb',
        path.join(s.rdbDir, 'dump.rdb'),
        '--dir',
        dir,
        '--memory',
        ctx.params.memory,
        '--log-level',
        'warning',
      ]);
      // Only the newest import is kept (checked at the end): they are big.
      if (s.lastImport !== null) await rm(s.lastImport, { recursive: true, force: true });
      s.lastImport = dir;
      return { value: ms, samples: { peak_rss_mb: rss / MiB } };
    }
    const r = await redisLoad(s.rdbDir);
    await stopChild(r.child, 'SIGKILL');
    return { value: r.ms, samples: { peak_rss_mb: r.rss / MiB } };
  },

  async metrics(_results, ctx): Promise<Record<string, number>> {
    const s = ctx.state;
    if (s.lastImport === null) return { rdb_mb: s.rdbBytes / MiB };
    const keys = checkedKeys(ctx.params.keys, ctx.params.sample);
    const redis = await redisLoad(s.rdbDir);
    let strata: ServerProcess | null = null;
    try {
      strata = await startStrataServer(s.lastImport, ['--memory', ctx.params.memory]);
      const mine = await readKeys(strata.port, keys);
      const theirs = await readKeys(redis.port, keys);
      let mismatches = 0;
      let first = '';
      for (let i = 0; i < keys.length; i++) {
        const [t1, v1, ttl1] = mine[i]!;
        const [t2, v2, ttl2] = theirs[i]!;
        const ttlOk =
          typeof ttl1 === 'number' &&
          typeof ttl2 === 'number' &&
          (ttl1 === ttl2 || (ttl1 > 0 && ttl2 > 0 && Math.abs(ttl1 - ttl2) < 60_000));
        if (t1 === t2 && JSON.stringify(v1) === JSON.stringify(v2) && ttlOk) continue;
        mismatches++;
        first ||= `${keys[i]}: ${JSON.stringify([t1, v1, ttl1])} vs redis ${JSON.stringify([t2, v2, ttl2])}`;
      }
      const [size1] = await fetchAll(strata.port, [['DBSIZE']]);
      const [size2] = await fetchAll(redis.port, [['DBSIZE']]);
      if (size1 !== size2) {
        mismatches++;
        first ||= `DBSIZE ${String(size1)} vs redis ${String(size2)}`;
      }
      if (mismatches > 0)
        throw new Error(`import: ${mismatches} keys differ from redis-server's; first: ${first}`);
      ctx.log(
        `import: ${keys.length} keys read back equal to redis-server's, DBSIZE ${String(size1)}`,
      );
      return {
        rdb_mb: s.rdbBytes / MiB,
        verified_keys: keys.length,
        dbsize: Number(size1),
        mismatches,
      };
    } finally {
      await stopChild(redis.child, 'SIGKILL');
      if (strata !== null) await stopServers([strata]);
    }
  },
});
