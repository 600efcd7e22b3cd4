import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Collections under SIGKILL with the AOF on (appendfsync always): a writer
 * sends MULTI { HINCRBY h n 1, SADD s m<i>, RPUSH l <i> } (none idempotent
 * under a double replay, the RPUSH order checked) while checkpoints run
 * every second and compaction runs as the log grows. The collections'
 * changes live in the object cache between write-backs, so a checkpoint
 * that counted a command as inside it while its change was only in the
 * cache would lose it; one that held a change the AOF replays again would
 * double it. Every EXEC reply is checked live (HINCRBY = i+1, SADD = 1,
 * RPUSH = i+1); "acked" is the longest prefix of transactions that all
 * succeeded. After each kill: every acknowledged change is there, nothing
 * beyond what was sent; on a failure the data directory (as the kill left
 * it and after recovery) and the server logs are copied to `keep`.
 * Used by aof-collections-crash.test.ts (CI) and aof-collections-soak.test.ts.
 */
export interface CrashRunOptions {
  /** Kills at least; more (up to maxKills) until a checkpoint and a compaction ran behind them. */
  readonly minKills: number;
  readonly maxKills: number;
  /** Each run lasts minMs..maxMs before its kill. */
  readonly minMs: number;
  readonly maxMs: number;
  /** Appended to each member and list item (large records load in slices). */
  readonly pad: string;
  /** Where a failure's data and logs are copied. */
  readonly keep: string;
  /** A JSONL file that gets one line per recovery. */
  readonly stats?: string;
}

export interface CrashRunResult {
  kills: number;
  totalAcked: number;
  finalAcked: number;
  checkpoints: number;
  compactions: number;
}

const WINDOW = 16;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Progress {
  sent: number;
  /** Transactions 0..acked-1 all replied without an error. */
  acked: number;
  /** Highest i+1 replied OK. */
  highest: number;
  firstError: number | null;
  errors: Map<string, number>;
  wrong: string[];
}

async function writeCollections(port: number, p: Progress, pad: string, stopped: () => boolean) {
  const r = client(port);
  try {
    await r.connect();
  } catch {
    return;
  }
  let inFlight = 0;
  let dead = false;
  let wake: (() => void) | null = null;
  const ok = new Set<number>();
  while (!dead && !stopped()) {
    if (inFlight >= WINDOW) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      continue;
    }
    const i = p.sent++;
    inFlight++;
    // One MULTI per step, so that the three kinds move together.
    r.multi()
      .hincrby('h', 'n', 1)
      .sadd('s', `m${i}${pad}`)
      .rpush('l', `${i}${pad}`)
      .exec()
      .then(
        (res) => {
          const bad =
            res === null ? ['null EXEC'] : res.filter(([e]) => e !== null).map(([e]) => String(e));
          if (bad.length > 0) {
            for (const m of bad) p.errors.set(m, (p.errors.get(m) ?? 0) + 1);
            if (p.firstError === null) p.firstError = i;
            return;
          }
          const [hv, sv, lv] = (res ?? []).map(([, v]) => v);
          if (Number(hv) !== i + 1 || Number(sv) !== 1 || Number(lv) !== i + 1) {
            if (p.wrong.length < 10) p.wrong.push(`tx ${i}: HINCRBY ${hv} SADD ${sv} RPUSH ${lv}`);
          }
          if (i + 1 > p.highest) p.highest = i + 1;
          ok.add(i);
          while (ok.has(p.acked)) ok.delete(p.acked++);
        },
        (e: unknown) => {
          const m = `rejected: ${(e as Error).message}`;
          if (!/Connection is closed|connection close|ECONNRESET|EPIPE/.test(m)) {
            p.errors.set(m, (p.errors.get(m) ?? 0) + 1);
            if (p.firstError === null) p.firstError = i;
          }
          dead = true;
        },
      )
      .finally(() => {
        inFlight--;
        const w = wake;
        wake = null;
        (w as (() => void) | null)?.();
      });
  }
  r.disconnect();
}

/** What recovery must show after a kill; empty when it is right. */
async function recoveryProblems(port: number, stdout: string, p: Progress, pad: string) {
  const r = client(port);
  await r.connect();
  try {
    const n = Number((await r.hget('h', 'n')) ?? 0);
    const card = await r.scard('s');
    const list = await r.lrange('l', 0, -1);
    let firstBad = -1;
    for (let i = 0; i < Math.max(list.length, n); i++) {
      if (list[i] !== `${i}${pad}`) {
        firstBad = i;
        break;
      }
    }
    const problems: string[] = [];
    // Every replayed command applied (a transaction split wrongly shows as EXEC without MULTI).
    if (/AOF replay: .* failed/.test(stdout)) problems.push('replay failed');
    if (n < p.acked) problems.push(`HGET ${n} < acked ${p.acked}`);
    if (n > p.sent) problems.push(`HGET ${n} > sent ${p.sent}`);
    if (card !== n) problems.push(`SCARD ${card} != ${n}`);
    if (firstBad !== -1) problems.push(`list length ${list.length}, first bad index ${firstBad}`);
    if (p.wrong.length > 0) problems.push(`wrong live replies: ${p.wrong.join('; ')}`);
    // A correct server answers these commands without an error.
    if (p.errors.size > 0) problems.push('error replies');
    return { n, card, listLength: list.length, problems };
  } finally {
    r.disconnect();
  }
}

export async function runCollectionsCrash(o: CrashRunOptions): Promise<CrashRunResult> {
  const dir = await tempDir('strata-aof-collections-');
  // The data directory as the kill left it (before the restart's recovery changes it).
  const snap = `${dir.path}-at-kill`;
  const args = [
    ...['--port', '0', '--dir', dir.path, '--appendonly', 'yes', '--appendfsync', 'always'],
    ...['--memory', '64kb', '--page-size', '16kb', '--segment-size', '32kb'],
    ...['--checkpoint-interval', '1', '--compaction-threshold', '96kb', '--log-level', 'verbose'],
  ];
  const p: Progress = {
    sent: 0,
    acked: 0,
    highest: 0,
    firstError: null,
    errors: new Map(),
    wrong: [],
  };
  const logs: string[] = [];
  const out: CrashRunResult = {
    kills: o.minKills,
    totalAcked: 0,
    finalAcked: 0,
    checkpoints: 0,
    compactions: 0,
  };
  const save = async (why: string) => {
    await mkdir(o.keep, { recursive: true });
    await cp(dir.path, join(o.keep, 'data-after-recovery'), { recursive: true });
    await cp(snap, join(o.keep, 'data-at-kill'), { recursive: true });
    for (const [k, l] of logs.entries()) await writeFile(join(o.keep, `server-${k}.log`), l);
    await writeFile(join(o.keep, 'why.txt'), why);
  };
  try {
    for (let cycle = 0; cycle <= out.kills; cycle++) {
      // How many checkpoints and compactions a run gets depends on the machine's speed.
      if (
        cycle === out.kills &&
        out.kills < o.maxKills &&
        (out.checkpoints === 0 || out.compactions === 0)
      ) {
        out.kills++;
      }
      const { process: s, port } = await StrataProcess.start(args);
      if (cycle > 0) {
        const seen = await recoveryProblems(port, s.stdout, p, o.pad);
        const line = {
          cycle,
          acked: p.acked,
          highest: p.highest,
          sent: p.sent,
          ...seen,
          firstError: p.firstError,
          errors: [...p.errors].map(([m, c]) => `${c}x ${m}`).join('; '),
        };
        if (o.stats !== undefined)
          await writeFile(o.stats, `${JSON.stringify(line)}\n`, { flag: 'a' });
        if (seen.problems.length > 0) {
          s.child.kill('SIGKILL');
          await s.exited;
          logs.push(s.stdout + s.stderr);
          await save(JSON.stringify(line, null, 1));
          expect.fail(`after kill ${cycle}: ${JSON.stringify(line)} (kept in ${o.keep})`);
        }
        out.totalAcked += p.acked;
        // What came back is what later steps build on.
        p.sent = p.acked = p.highest = seen.n;
        p.firstError = null;
        p.errors.clear();
      }
      if (cycle === out.kills) {
        expect((await s.stop('SIGTERM')).code).toBe(0);
        break;
      }
      let stop = false;
      const writer = writeCollections(port, p, o.pad, () => stop);
      await sleep(o.minMs + Math.random() * (o.maxMs - o.minMs));
      s.child.kill('SIGKILL');
      await s.exited;
      stop = true;
      await writer;
      logs.push(s.stdout + s.stderr);
      if (logs.length > 3) logs.shift();
      await rm(snap, { recursive: true, force: true });
      await cp(dir.path, snap, { recursive: true });
      out.checkpoints += (s.stdout.match(/saved on disk: checkpoint/g) ?? []).length;
      out.compactions += (s.stdout.match(/compacted:/g) ?? []).length;
    }
    out.finalAcked = p.acked;
    return out;
  } finally {
    StrataProcess.killAll();
    await dir.remove();
    await rm(snap, { recursive: true, force: true });
  }
}

/** The default place a failing run's data goes. */
export const failureDir = (name: string): string => join(tmpdir(), `${name}-${Date.now()}`);
