import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { client, pipelined } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Commit points across kill -9 (issue 20): a database's log up to its
 * newest commit point is one moment, read back at device speed after a
 * crash; with the AOF the replay resumes at the commit point's position.
 * Writers send SET of distinct keys and RPUSH (a collection, written back
 * from the object cache) on pipelined connections and record every
 * acknowledgement; the server is killed at random moments, and in some
 * cycles killed again while it recovers; every restart is checked against
 * what was acknowledged. Timings are printed, never asserted.
 */

const CONNECTIONS = 3;
const WINDOW = 16;
const STORE = ['--memory', '256kb', '--page-size', '16kb', '--log-level', 'verbose'];

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One connection's writes in one cycle: SET k:<cycle>:<c>:<i> i, RPUSH l:<cycle>:<c> i. */
interface CycleLog {
  readonly cycle: number;
  readonly c: number;
  setSent: number;
  setAcked: number;
  setAckedAt: number[];
  pushSent: number;
  pushAcked: number;
  pushAckedAt: number[];
  wrong: string[];
}

function writeCycle(port: number, log: CycleLog, stopped: () => boolean): Promise<void> {
  return pipelined(port, WINDOW, stopped, (r, k) => {
    if (k % 4 !== 3) {
      const i = log.setSent++;
      return r.set(`k:${log.cycle}:${log.c}:${i}`, `v${i}`).then((reply) => {
        if (reply !== 'OK') log.wrong.push(`SET ${i}: ${reply}`);
        log.setAcked = i + 1;
        log.setAckedAt[i] = Date.now();
      });
    }
    const i = log.pushSent++;
    return r.rpush(`l:${log.cycle}:${log.c}`, String(i)).then((n) => {
      if (n !== i + 1) log.wrong.push(`RPUSH ${i}: ${n}`);
      log.pushAcked = i + 1;
      log.pushAckedAt[i] = Date.now();
    });
  });
}

interface CycleVerdict {
  /** Acknowledged writes missing. */
  lost: number;
  /** How long before the kill the oldest missing acknowledgement came (ms; 0: none lost). */
  windowMs: number;
  /** Keys of the cycle found (SETs and the lists' elements). */
  found: number;
  /** Anything that is not a prefix of what one connection sent. */
  wrong: string[];
  keys: number;
}

/** The keys of one cycle are a prefix of what each connection sent, in order. */
async function verifyCycle(r: Redis, logs: CycleLog[], killedAt: number): Promise<CycleVerdict> {
  const v: CycleVerdict = { lost: 0, windowMs: 0, found: 0, wrong: [], keys: 0 };
  const missed = (at: number | undefined) => {
    v.lost++;
    if (at !== undefined) v.windowMs = Math.max(v.windowMs, killedAt - at);
  };
  for (const log of logs) {
    let present = 0;
    for (let from = 0; from < log.setSent; from += 500) {
      const keys: string[] = [];
      for (let i = from; i < Math.min(log.setSent, from + 500); i++) {
        keys.push(`k:${log.cycle}:${log.c}:${i}`);
      }
      const values = await r.mget(...keys);
      values.forEach((value, j) => {
        const i = from + j;
        if (value === null) return;
        if (value !== `v${i}`) v.wrong.push(`${keys[j]}=${value}`);
        // A prefix: nothing after a hole.
        if (i !== present) v.wrong.push(`${keys[j]} present after a hole at ${present}`);
        present = i + 1;
      });
    }
    for (let i = present; i < log.setAcked; i++) missed(log.setAckedAt[i]);
    const list = await r.lrange(`l:${log.cycle}:${log.c}`, 0, -1);
    list.forEach((e, i) => {
      if (e !== String(i)) v.wrong.push(`l:${log.cycle}:${log.c}[${i}]=${e}`);
    });
    if (list.length > log.pushSent) v.wrong.push(`l:${log.cycle}:${log.c} longer than sent`);
    for (let i = list.length; i < log.pushAcked; i++) missed(log.pushAckedAt[i]);
    v.found += present + list.length;
    v.keys += present + (list.length > 0 ? 1 : 0);
  }
  return v;
}

interface Run {
  verdicts: CycleVerdict[];
  acked: number;
  /** Restarts whose log says the log was read up to a commit point / the AOF resumed at one. */
  fromCommit: number;
  /** Kills that landed while the server was recovering (before its ready line). */
  duringRecovery: number;
  outputs: string[];
}

async function crashCycles(options: {
  aof: 'always' | 'everysec' | 'no';
  cycles: number;
  /** How long each cycle writes before the kill, ms. */
  writeMs: [number, number];
  /** Kill the restart again while it recovers, in odd cycles. */
  killDuringRecovery: boolean;
}): Promise<Run> {
  const dir = await tempDir('strata-commit-crash-');
  dirs.push(dir);
  const args = [
    '--port',
    '0',
    '--dir',
    dir.path,
    ...(options.aof === 'no'
      ? ['--appendonly', 'no']
      : ['--appendonly', 'yes', '--appendfsync', options.aof]),
    '--commit-interval',
    '200',
    ...STORE,
  ];
  const run: Run = { verdicts: [], acked: 0, fromCommit: 0, duringRecovery: 0, outputs: [] };
  let previous: CycleLog[] = [];
  let killedAt = 0;
  /** Keys the earlier cycles left (DBSIZE must keep them). */
  let keys = 0;
  for (let cycle = 0; cycle <= options.cycles; cycle++) {
    if (cycle > 0 && options.killDuringRecovery && cycle % 2 === 0) {
      // Killed while it recovers: as the first database is read, or a little later.
      const p = StrataProcess.spawn(args);
      await p
        .waitFor(/DB 0 loaded from disk|DB 0 created|Ready to accept/, 60_000)
        .catch(() => null);
      await sleep(Math.random() * 30);
      const ready = /Ready to accept/.test(p.stdout);
      p.child.kill('SIGKILL');
      await p.exited;
      if (!ready) run.duringRecovery++;
    }
    const { process: p, port } = await StrataProcess.start(args);
    const r = client(port);
    await r.connect();
    if (cycle > 0) {
      const out = p.stdout;
      run.outputs.push(out);
      if (/log read up to|from its commit point/.test(out)) run.fromCommit++;
      let v: CycleVerdict;
      try {
        v = await verifyCycle(r, previous, killedAt);
      } catch (e) {
        throw new Error(`verify after kill ${cycle} failed: ${(e as Error).message}\n${out}`);
      }
      run.verdicts.push(v);
      // Earlier cycles' keys are all still there (each was checked whole after its own kill).
      expect(await r.dbsize()).toBe(keys + v.keys);
      keys += v.keys;
    }
    if (cycle === options.cycles) {
      r.disconnect();
      expect((await p.stop('SIGTERM')).code).toBe(0);
      break;
    }
    const logs: CycleLog[] = Array.from({ length: CONNECTIONS }, (_, c) => ({
      cycle,
      c,
      setSent: 0,
      setAcked: 0,
      setAckedAt: [],
      pushSent: 0,
      pushAcked: 0,
      pushAckedAt: [],
      wrong: [],
    }));
    let stop = false;
    const writers = logs.map((l) => writeCycle(port, l, () => stop));
    const [lo, hi] = options.writeMs;
    await sleep(lo + Math.random() * (hi - lo));
    killedAt = Date.now();
    p.child.kill('SIGKILL');
    await p.exited;
    stop = true;
    r.disconnect();
    await Promise.all(writers);
    for (const l of logs) {
      expect(l.wrong).toEqual([]);
      run.acked += l.setAcked + l.pushAcked;
    }
    previous = logs;
  }
  return run;
}

/**
 * Logs a run and checks what every run must show: every key found is a
 * prefix of what its connection sent, and some restart resumed at a commit
 * point. Returns the acknowledged writes lost.
 */
function checkRun(label: string, run: Run): number {
  const lost = run.verdicts.reduce((n, v) => n + v.lost, 0);
  const window = Math.max(0, ...run.verdicts.map((v) => v.windowMs));
  const wrong = run.verdicts.flatMap((v) => v.wrong);
  console.log(
    `${label}: ${run.verdicts.length} kills (${run.duringRecovery} more during recovery), ` +
      `${run.acked} writes acknowledged, ${run.fromCommit} restarts from a commit point, ` +
      `lost ${lost} (oldest ${window} ms before the kill), found per cycle ` +
      `${run.verdicts.map((v) => v.found).join(' ')}`,
  );
  expect(wrong).toEqual([]);
  expect(run.fromCommit).toBeGreaterThan(0);
  return lost;
}

describe('commit points across kill -9', () => {
  test('appendfsync always: nothing acknowledged lost, kills during recovery too; the AOF resumes at commit points', async () => {
    const run = await crashCycles({
      aof: 'always',
      cycles: 8,
      writeMs: [400, 1500],
      killDuringRecovery: true,
    });
    expect(checkRun('always', run)).toBe(0);
    expect(run.acked).toBeGreaterThan(run.verdicts.length * 50);
    expect(run.duringRecovery).toBeGreaterThan(0);
  }, 240_000);

  test('appendfsync everysec: a prefix comes back, what is lost was acknowledged in about the last second', async () => {
    const run = await crashCycles({
      aof: 'everysec',
      cycles: 6,
      writeMs: [400, 1500],
      killDuringRecovery: true,
    });
    checkRun('everysec', run);
  }, 240_000);

  test('no AOF: a crash recovers the newest commit point (one moment, a prefix), not the last checkpoint', async () => {
    const run = await crashCycles({
      aof: 'no',
      cycles: 6,
      writeMs: [1500, 2500],
      killDuringRecovery: true,
    });
    checkRun('no AOF', run);
    // Without commit points nothing of a cycle would come back (no checkpoint in it: save 300 1).
    expect(run.verdicts.filter((v) => v.found > 0).length).toBeGreaterThan(run.verdicts.length / 2);
  }, 240_000);
});

describe('a damaged log below the commit point (AOF on)', () => {
  test('is detected and cut with a warning; the AOF replays from the checkpoint instead: nothing lost, nothing served from the bad page', async () => {
    const dir = await tempDir('strata-commit-damage-');
    dirs.push(dir);
    const args = [
      '--port',
      '0',
      '--dir',
      dir.path,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--commit-interval',
      '100',
      ...STORE,
    ];
    let { process: p, port } = await StrataProcess.start(args);
    let r = client(port);
    await r.connect();
    const N = 3000;
    for (let from = 0; from < N; from += 500) {
      const pipe = r.pipeline();
      for (let i = from; i < from + 500; i++) pipe.set(`key:${i}`, `value-${i}-${'x'.repeat(40)}`);
      await pipe.exec();
    }
    // A commit point past every write (the manifest names it).
    const manifest = join(dir.path, 'appendonlydir', 'appendonly.aof.manifest');
    const commitMark = async (): Promise<number> => {
      const m = JSON.parse(await readFile(manifest, 'utf8')) as {
        databases: Record<string, { mark: number; commit?: { mark: number } }>;
      };
      return m.databases['0']?.commit?.mark ?? 0;
    };
    const page = 16 * 1024;
    for (let i = 0; i < 200 && (await commitMark()) * page < 3 * page; i++) await sleep(50);
    await sleep(300);
    const mark = await commitMark();
    expect(mark).toBeGreaterThan(2);
    p.child.kill('SIGKILL');
    await p.exited;
    r.disconnect();

    // A flipped byte in a page between the checkpoint and the commit point.
    const checkpointMark = (
      JSON.parse(await readFile(manifest, 'utf8')) as {
        databases: Record<string, { mark: number }>;
      }
    ).databases['0']!.mark;
    const bad = Math.floor((checkpointMark + mark) / 2) * page + 200;
    const segment = join(dir.path, '0', 'log.0');
    const fh = await open(segment, 'r+');
    const byte = Buffer.alloc(1);
    await fh.read(byte, 0, 1, bad);
    byte[0] = byte[0]! ^ 0x5a;
    await fh.write(byte, 0, 1, bad);
    await fh.close();

    ({ process: p, port } = await StrataProcess.start(args));
    expect(p.stdout).toMatch(/could not be read up to its commit point/);
    expect(p.stdout).not.toMatch(/from its commit point/);
    r = client(port);
    await r.connect();
    expect(await r.dbsize()).toBe(N);
    for (let from = 0; from < N; from += 500) {
      const keys = Array.from({ length: 500 }, (_, j) => `key:${from + j}`);
      const values = await r.mget(...keys);
      values.forEach((v, j) => {
        expect(v).toBe(`value-${from + j}-${'x'.repeat(40)}`);
      });
    }
    const info = await r.info('persistence');
    expect(info).toMatch(/aof_loaded_commands:[1-9]/);
    expect(info).toMatch(/aof_loaded_from_commit:\r\n/);
    r.disconnect();
    // The commit point was dropped before the new session wrote over its log:
    // a crash now recovers every key again (from whatever point this session recorded).
    p.child.kill('SIGKILL');
    await p.exited;
    ({ process: p, port } = await StrataProcess.start(args));
    r = client(port);
    await r.connect();
    expect(await r.dbsize()).toBe(N);
    expect(await r.get('key:0')).toBe(`value-0-${'x'.repeat(40)}`);
    expect(await r.get(`key:${N - 1}`)).toBe(`value-${N - 1}-${'x'.repeat(40)}`);
    r.disconnect();
    expect((await p.stop('SIGTERM')).code).toBe(0);
  }, 120_000);
});
