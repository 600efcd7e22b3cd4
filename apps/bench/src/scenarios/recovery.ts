import { spawn } from 'node:child_process';
import { cp, mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { encodeCommand, replyBulks } from '@strata/protocol';
import { measureBestPlainRead } from '../plain-read.js';
import { defineScenario, lower, type Measurement } from '../scenario.js';
import { sizeLabel } from '../sizes.js';
import { median } from '../stats.js';
import { keyOf } from './get-load.js';
import {
  comparedSystems,
  freePort,
  hasRedisServer,
  infoField,
  query,
  queryReply,
  redisServerArgs,
  type ServerProcess,
  startRedisServer,
  startStrataServer,
  stopChild,
  strataServerArgs,
} from './server-harness.js';
import { sendEach } from './types-support.js';

/**
 * A restart after kill -9, and after a clean shutdown (issue 20): N keys
 * (16-byte keys, 100-byte values) are loaded into strata-server, and into
 * redis-server with the same settings when it is installed; then the server
 * is killed (SIGKILL) or shut down, and that directory is kept. Each run
 * restarts the server on a fresh copy of it, with the bench's own files
 * evicted from the page cache after the copy, and times how long until
 * DBSIZE answers N (the variant's value) and until every sampled key reads
 * right (`all_read_ms`). Modes:
 * - `aof`: `appendonly yes`, `appendfsync everysec`; killed 1.5 s after the
 *   load (strata: after at least one commit point; its log holds the keys
 *   up to its newest one and the AOF replays only what came after it);
 * - `noaof`: no AOF; strata killed after a commit point (its log holds the
 *   keys past its last checkpoint), redis-server after a `SAVE` (its RDB);
 * - `clean`: `SHUTDOWN` (strata: a checkpoint; redis: `SHUTDOWN SAVE`).
 * strata-server runs with `--memory 64mb`. Ratios strata/redis per mode;
 * `recover_mbps_over_plain`: the bytes strata's recovery read from its log
 * over its recovery's time (INFO persistence's `recovery_log_bytes`,
 * `recovery_log_ms`), over the best plain sequential read of the same log
 * file, measured cold in the same run.
 */

const MODES = ['aof', 'noaof', 'clean'] as const;
type Mode = (typeof MODES)[number];

type Params = {
  keys: number;
  valueBytes: number;
  /** Keys read back after DBSIZE answers (evenly spread). */
  sample: number;
};

interface State {
  /** The directory each variant restarts from (a copy per run). */
  pristine: Map<string, string>;
  /** The best plain sequential read of strata's log (database 0's segment, `noaof`), cold. */
  bestPlainMbps: number;
  work: string;
}

function valueFor(i: number, bytes: number): string {
  return `${String(i).padStart(12, '0')}.`.repeat(Math.ceil(bytes / 13)).slice(0, bytes);
}

function modeArgs(system: string, mode: Mode): string[] {
  const aof =
    mode === 'aof' ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : ['--appendonly', 'no'];
  return system === 'strata' ? [...aof, '--memory', '64mb'] : aof;
}

/** MGET of `keys` over a fresh connection: the values of the keys that are there. */
async function mget(port: number, keys: readonly string[]): Promise<string[]> {
  return replyBulks(await queryReply(port, ['MGET', ...keys])).map((v) => v.toString('latin1'));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until strata has recorded a commit point after now, then long
 * enough for the next round (1 s apart) to take one more if that one began
 * before the load's last write (a round takes one only when something changed).
 */
async function commitPointAfterNow(port: number): Promise<void> {
  await commitPoints(port, (await commitPointCount(port)) + 1);
  await sleep(2500);
}

async function commitPointCount(port: number): Promise<number> {
  return infoField(await query(port, ['INFO', 'persistence']), 'commit_points');
}

/** Waits until strata has recorded `n` commit points since it started. */
async function commitPoints(port: number, n: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await commitPointCount(port)) < n) {
    if (Date.now() > deadline) throw new Error('no commit point recorded within 60 s');
    await sleep(100);
  }
}

/** Loads the keys into a new server in `dir`, then leaves the directory as `mode` says. */
async function prepare(system: string, mode: Mode, dir: string, p: Params): Promise<void> {
  const args = modeArgs(system, mode);
  const server: ServerProcess =
    system === 'strata' ? await startStrataServer(dir, args) : await startRedisServer(dir, args);
  try {
    await sendEach(server.port, p.keys, (i) => ['SET', keyOf(i), valueFor(i, p.valueBytes)]);
    if (mode === 'clean') {
      const exited = new Promise((resolve) => {
        if (server.child.exitCode !== null) resolve(null);
        else server.child.once('exit', resolve);
      });
      // The server closes the connection as it exits, without a reply.
      const sock = net.connect(server.port, '127.0.0.1');
      sock.on('error', () => undefined);
      sock.write(
        encodeCommand(
          (system === 'strata' ? ['SHUTDOWN'] : ['SHUTDOWN', 'SAVE']).map((a) => Buffer.from(a)),
        ),
      );
      await exited;
      sock.destroy();
      return;
    }
    if (mode === 'noaof') {
      if (system === 'strata') await commitPointAfterNow(server.port);
      else await query(server.port, ['SAVE']);
    } else {
      // everysec: the AOF synced at least once after the load. strata's
      // commit points (one once its log grew by a quarter page) hold what
      // its log has; the AOF replays the rest.
      if (system === 'strata') await commitPoints(server.port, 1);
      await sleep(1500);
    }
  } finally {
    await stopChild(server.child, 'SIGKILL');
  }
}

/** Starts the server on `dir` (a copy), and times DBSIZE = N and the sampled reads. */
async function restart(system: string, mode: Mode, dir: string, p: Params): Promise<Measurement> {
  const port = await freePort();
  const started = performance.now();
  const child =
    system === 'strata'
      ? spawn(process.execPath, strataServerArgs(port, dir, modeArgs(system, mode)), {
          stdio: 'ignore',
        })
      : spawn('redis-server', redisServerArgs(port, dir, modeArgs(system, mode)), {
          stdio: 'ignore',
        });
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const n = await query(port, ['DBSIZE']).then(Number, () => -1);
      if (n === p.keys) break;
      if (n >= 0 && n !== p.keys) throw new Error(`${system} ${mode}: DBSIZE ${n}, not ${p.keys}`);
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`${system} ${mode}: not serving (exit ${child.exitCode})`);
      }
      await sleep(5);
    }
    const dbsizeMs = performance.now() - started;
    const step = Math.max(1, Math.floor(p.keys / p.sample));
    const sample: number[] = [];
    for (let i = 0; i < p.keys; i += step) sample.push(i);
    for (let from = 0; from < sample.length; from += 1000) {
      const ids = sample.slice(from, from + 1000);
      const values = await mget(port, ids.map(keyOf));
      if (values.length !== ids.length) {
        throw new Error(`${system} ${mode}: ${ids.length - values.length} sampled keys missing`);
      }
      values.forEach((v, j) => {
        if (v !== valueFor(ids[j]!, p.valueBytes)) {
          throw new Error(`${system} ${mode}: ${keyOf(ids[j]!)} reads ${v}`);
        }
      });
    }
    const allReadMs = performance.now() - started;
    const samples: Record<string, number> = { dbsize_ms: dbsizeMs, all_read_ms: allReadMs };
    if (system === 'strata') {
      const info = await query(port, ['INFO', 'persistence']);
      samples.log_bytes = infoField(info, 'recovery_log_bytes');
      samples.log_ms = infoField(info, 'recovery_log_ms');
      samples.aof_commands = infoField(info, 'aof_loaded_commands');
      samples.log_mbps = samples.log_bytes / 1e6 / (samples.log_ms / 1000);
    }
    return { value: dbsizeMs, samples };
  } finally {
    await stopChild(child, 'SIGKILL');
  }
}

export const recovery = defineScenario<Params, State>({
  name: 'recovery',
  description:
    'restart after kill -9 (AOF everysec, no AOF) and after a clean shutdown: time to DBSIZE = N, strata vs redis',
  params: {
    full: { keys: 2_000_000, valueBytes: 100, sample: 10_000 },
    ci: { keys: 200_000, valueBytes: 100, sample: 2_000 },
  },
  readsDisk: true,
  runs: { full: 3, ci: 1 },
  warmup: { full: 0, ci: 0 },
  variants: () => comparedSystems().flatMap((s) => MODES.map((m) => lower(`${s}-${m}`, 'ms'))),
  ratios: () => (hasRedisServer() ? MODES.map((m) => `strata-${m}/redis-${m}`) : []),
  targets: (): Readonly<Record<string, number>> =>
    hasRedisServer() ? { 'strata-aof/redis-aof': 0.5, 'strata-clean/redis-clean': 0.1 } : {},

  async setup(ctx) {
    const p = ctx.params;
    if (!hasRedisServer()) ctx.log('redis-server not installed: strata variants only');
    const pristine = new Map<string, string>();
    for (const s of comparedSystems()) {
      for (const m of MODES) {
        const dir = path.join(ctx.dir, 'pristine', `${s}-${m}`);
        await mkdir(dir, { recursive: true });
        ctx.log(`${s}-${m}: loading ${p.keys} keys`);
        await prepare(s, m, dir, p);
        pristine.set(`${s}-${m}`, dir);
      }
    }
    const logFile = path.join(pristine.get('strata-noaof')!, '0', 'log.0');
    const best = await measureBestPlainRead({ path: logFile, before: () => ctx.dropCaches() });
    ctx.log(
      `best plain read of the log: ${best.mbps.toFixed(0)} MB/s at ${sizeLabel(best.readSize)}`,
    );
    return { pristine, bestPlainMbps: best.mbps, work: path.join(ctx.dir, 'work') };
  },

  async run(variant, ctx): Promise<Measurement> {
    const [system, mode] = variant.name.split('-') as [string, Mode];
    const work = ctx.state.work;
    await rm(work, { recursive: true, force: true });
    await cp(ctx.state.pristine.get(variant.name)!, work, { recursive: true });
    // The copy was just written: evict it (and every other file of the bench).
    await ctx.dropCaches();
    try {
      return await restart(system, mode, work, ctx.params);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  },

  metrics(results, ctx) {
    const out: Record<string, number> = { best_plain_mbps: ctx.state.bestPlainMbps };
    const logMbps = [
      ...results.samples('strata-aof', 'log_mbps'),
      ...results.samples('strata-noaof', 'log_mbps'),
    ].filter((x) => Number.isFinite(x));
    if (logMbps.length > 0) {
      out.recover_mbps = median(logMbps);
      out.recover_mbps_over_plain = median(logMbps) / ctx.state.bestPlainMbps;
    }
    return out;
  },
});
