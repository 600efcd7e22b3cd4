import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * A longer, better-instrumented run of aof-collections-crash, run only on
 * demand (STRATA_SOAK=1; minutes of CPU):
 * every EXEC reply is checked live (HINCRBY = i+1, SADD = 1, RPUSH = i+1),
 * error replies are recorded by message, "acked" is the longest prefix of
 * transactions that all succeeded, and on a failure the data directory and
 * every server log are copied to SOAK_KEEP (default <tmpdir>/strata-soak-fail-<time>).
 * Env: SOAK_CYCLES (20), SOAK_MIN_MS (1200), SOAK_MAX_MS (2000), SOAK_PAD
 * (bytes appended to each member / list item; 0), SOAK_STATS (JSONL file).
 */

const env = (name: string, d: number) => Number(process.env[name] ?? d);
const CYCLES = env('SOAK_CYCLES', 20);
const MIN_MS = env('SOAK_MIN_MS', 1200);
const MAX_MS = env('SOAK_MAX_MS', 2000);
const PAD = 'x'.repeat(env('SOAK_PAD', 0));
const WINDOW = 16;

const dirs: { path: string; remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) {
    await d.remove();
    await rm(`${d.path}-at-kill`, { recursive: true, force: true });
  }
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Progress {
  sent: number;
  /** Transactions 0..acked-1 all replied without an error. */
  acked: number;
  /** Highest i+1 replied OK (the original test's "acked"). */
  highest: number;
  firstError: number | null;
  errors: Map<string, number>;
  wrong: string[];
}

async function writeCollections(port: number, p: Progress, stopped: () => boolean) {
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
    r.multi()
      .hincrby('h', 'n', 1)
      .sadd('s', `m${i}${PAD}`)
      .rpush('l', `${i}${PAD}`)
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

test.runIf(process.env.STRATA_SOAK === '1')(
  'soak: HINCRBY, SADD and RPUSH survive SIGKILL with checkpoints and compaction',
  async () => {
    const dir = await tempDir('strata-aof-soak-');
    dirs.push(dir);
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
    const keep = process.env.SOAK_KEEP ?? join(tmpdir(), `strata-soak-fail-${Date.now()}`);
    const stats = process.env.SOAK_STATS;
    // The data directory as the kill left it (before the restart's recovery changes it).
    const snap = `${dir.path}-at-kill`;
    let checkpoints = 0;
    let compactions = 0;
    let totalAcked = 0;
    const save = async (why: string) => {
      await mkdir(keep, { recursive: true });
      await cp(dir.path, join(keep, 'data-after-recovery'), { recursive: true });
      await cp(snap, join(keep, 'data-at-kill'), { recursive: true });
      for (const [k, l] of logs.entries()) await writeFile(join(keep, `server-${k}.log`), l);
      await writeFile(join(keep, 'why.txt'), why);
    };
    for (let cycle = 0; cycle <= CYCLES; cycle++) {
      const { process: s, port } = await StrataProcess.start(args);
      if (cycle > 0) {
        const r = client(port);
        await r.connect();
        try {
          const n = Number((await r.hget('h', 'n')) ?? 0);
          const card = await r.scard('s');
          const list = await r.lrange('l', 0, -1);
          const expected = Array.from({ length: n }, (_, i) => `${i}${PAD}`);
          let firstBad = -1;
          for (let i = 0; i < Math.max(list.length, n); i++) {
            if (list[i] !== expected[i]) {
              firstBad = i;
              break;
            }
          }
          const problems: string[] = [];
          if (/AOF replay: .* failed/.test(s.stdout)) problems.push('replay failed');
          if (n < p.acked) problems.push(`HGET ${n} < acked ${p.acked}`);
          if (n > p.sent) problems.push(`HGET ${n} > sent ${p.sent}`);
          if (card !== n) problems.push(`SCARD ${card} != ${n}`);
          if (firstBad !== -1)
            problems.push(`list length ${list.length}, first bad index ${firstBad}`);
          if (p.wrong.length > 0) problems.push(`wrong live replies: ${p.wrong.join('; ')}`);
          // A correct server answers these commands without an error.
          if (p.errors.size > 0) problems.push('error replies');
          const errs = [...p.errors].map(([m, c]) => `${c}x ${m}`).join('; ');
          const line = {
            cycle,
            acked: p.acked,
            highest: p.highest,
            sent: p.sent,
            n,
            card,
            listLength: list.length,
            firstError: p.firstError,
            errors: errs,
            problems,
          };
          if (stats !== undefined)
            await writeFile(stats, `${JSON.stringify(line)}\n`, { flag: 'a' });
          if (problems.length > 0) {
            s.child.kill('SIGKILL');
            await s.exited;
            logs.push(s.stdout + s.stderr);
            await save(JSON.stringify(line, null, 1));
            expect.fail(`after kill ${cycle}: ${JSON.stringify(line)} (kept in ${keep})`);
          }
          totalAcked += p.acked;
          p.sent = p.acked = p.highest = n;
          p.firstError = null;
          p.errors.clear();
        } finally {
          r.disconnect();
        }
      }
      if (cycle === CYCLES) {
        expect((await s.stop('SIGTERM')).code).toBe(0);
        break;
      }
      let stop = false;
      const writer = writeCollections(port, p, () => stop);
      await sleep(MIN_MS + Math.random() * (MAX_MS - MIN_MS));
      s.child.kill('SIGKILL');
      await s.exited;
      stop = true;
      await writer;
      logs.push(s.stdout + s.stderr);
      if (logs.length > 3) logs.shift();
      await rm(snap, { recursive: true, force: true });
      await cp(dir.path, snap, { recursive: true });
      checkpoints += (s.stdout.match(/saved on disk: checkpoint/g) ?? []).length;
      compactions += (s.stdout.match(/compacted:/g) ?? []).length;
    }
    console.log(
      `collections soak: ${CYCLES} kills, ${totalAcked} steps acked in total, final ${p.acked}, ${checkpoints} checkpoints, ${compactions} compactions`,
    );
    expect(checkpoints).toBeGreaterThan(0);
  },
  3_600_000,
);
