import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { type ConnectionLog, client, newLog, type Verdict, verify, write } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Crash tests of the append-only file on the real process: writers send
 * SET, INCR and APPEND as fast as they can (pipelined, several connections)
 * and record what was acknowledged; the server gets SIGKILL at a random
 * moment (or right as a checkpoint or a compaction starts), restarts on the
 * same directory, and every key is checked against what was sent and
 * acknowledged. STRATA_CRASH_CYCLES=n runs n cycles of each (the CI default
 * keeps the whole file under a minute).
 */
const LONG = Number(process.env.STRATA_CRASH_CYCLES ?? 0);
const CONNECTIONS = 4;
const WINDOW = 32;
/** Small pages and memory: most of the log is on disk, checkpoints and compaction are cheap to provoke. */
const STORE = ['--memory', '64kb', '--page-size', '16kb', '--log-level', 'verbose'];

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CrashRun {
  verdicts: Verdict[];
  /** Kills that landed while the event asked for was in progress. */
  hits: number;
  opsAcked: number;
}

/** Counts lines matching `start` with no `end` line after the last of them. */
function inProgress(out: string, start: RegExp, end: RegExp): boolean {
  const lines = out.split('\n');
  let open = false;
  for (const l of lines) {
    if (start.test(l)) open = true;
    else if (end.test(l)) open = false;
  }
  return open;
}

/** Writes acknowledged on all connections so far. */
function ackedOps(logs: ConnectionLog[]): number {
  return logs.reduce((n, l) => n + l.setAcked + 1 + l.incrAcked + l.appendAcked, 0);
}

async function crashCycles(options: {
  policy: 'always' | 'everysec';
  cycles: number;
  args?: string[];
  /** Kill when a line matching `start` appears (else at a random moment); `end` marks it done. */
  during?: { start: RegExp; end: RegExp; after: number };
}): Promise<CrashRun> {
  const dir = await tempDir('strata-aof-crash-');
  dirs.push(dir);
  const logs: ConnectionLog[] = Array.from({ length: CONNECTIONS }, (_, i) => newLog(i));
  const run: CrashRun = { verdicts: [], hits: 0, opsAcked: 0 };
  const args = [
    '--port',
    '0',
    '--dir',
    dir.path,
    '--appendonly',
    'yes',
    '--appendfsync',
    options.policy,
    ...STORE,
    ...(options.args ?? []),
  ];
  let killedAt = 0;
  for (let cycle = 0; cycle <= options.cycles; cycle++) {
    const { process: p, port } = await StrataProcess.start(args);
    if (cycle > 0) {
      try {
        run.verdicts.push(await verify(port, logs, killedAt));
      } catch (e) {
        throw new Error(
          `verify after kill ${cycle} failed: ${(e as Error).message}\n${p.stdout}${p.stderr}`,
        );
      }
    }
    if (cycle === options.cycles) {
      expect(p.stdout).toMatch(/DB loaded from append only file/);
      expect((await p.stop('SIGTERM')).code).toBe(0);
      break;
    }
    let stop = false;
    const before = ackedOps(logs);
    const writers = logs.map((l) => write(port, l, WINDOW, () => stop));
    const during = options.during;
    if (during === undefined) {
      await sleep(100 + Math.random() * 400);
    } else {
      // SIGKILL from the stdout listener itself, the moment the line shows.
      await new Promise<void>((resolve) => {
        const seen = () => p.stdout.split('\n').filter((l) => during.start.test(l)).length;
        const base = seen();
        const check = () => {
          if (seen() > base) {
            setTimeout(() => {
              p.child.kill('SIGKILL');
              resolve();
            }, during.after);
            p.child.stdout!.off('data', check);
          }
        };
        p.child.stdout!.on('data', check);
        setTimeout(resolve, 8000);
      });
    }
    killedAt = Date.now();
    p.child.kill('SIGKILL');
    await p.exited;
    stop = true;
    await Promise.all(writers);
    run.opsAcked += ackedOps(logs) - before;
    if (during !== undefined && inProgress(p.stdout, during.start, during.end)) run.hits++;
    for (const l of logs) expect(l.wrongReplies).toEqual([]);
  }
  return run;
}

function totals(run: CrashRun) {
  const lost = run.verdicts.reduce((n, v) => n + v.lost.set + v.lost.incr + v.lost.append, 0);
  const invented = run.verdicts.flatMap((v) => v.invented);
  const window = Math.max(0, ...run.verdicts.map((v) => v.lostWindowMs));
  return { lost, invented, window };
}

describe('AOF crash safety (SIGKILL, restart, verify)', () => {
  test(
    'appendfsync always: no acknowledged write lost, no value invented, over 20+ kills',
    async () => {
      const run = await crashCycles({ policy: 'always', cycles: Math.max(20, LONG) });
      const t = totals(run);
      console.log(
        `always: ${run.verdicts.length} kills, ${run.opsAcked} writes acknowledged, lost ${t.lost}, invented ${t.invented.length}`,
      );
      expect(run.opsAcked).toBeGreaterThan(run.verdicts.length * 50);
      expect(t.invented).toEqual([]);
      expect(t.lost).toBe(0);
    },
    // Each cycle starts a process and verifies every key (~2.5 s on a
    // quiet 2-core machine): the limit leaves room for a busy one.
    LONG > 0 ? LONG * 10_000 : 150_000,
  );

  test(
    'appendfsync everysec: a process crash loses no acknowledged write; nothing invented',
    async () => {
      const run = await crashCycles({ policy: 'everysec', cycles: Math.max(4, LONG) });
      const t = totals(run);
      console.log(
        `everysec: ${run.verdicts.length} kills, ${run.opsAcked} writes acknowledged, lost ${t.lost}, ` +
          `oldest lost ack ${t.window} ms before the kill`,
      );
      expect(run.opsAcked).toBeGreaterThan(run.verdicts.length * 50);
      expect(t.invented).toEqual([]);
      // As Redis: the AOF is written (into the page cache) before the replies
      // of a turn leave, so SIGKILL takes nothing acknowledged; only a power
      // loss can, within the second the sync policy leaves open.
      expect(t.lost).toBe(0);
    },
    LONG > 0 ? LONG * 10_000 : 60_000,
  );

  /** Kills as `during.start` shows (a checkpoint, a compaction): at least one lands inside it, nothing is lost. */
  const killDuring = (
    name: string,
    label: string,
    args: string[],
    during: { start: RegExp; end: RegExp },
  ) =>
    test(
      name,
      async () => {
        const run = await crashCycles({
          policy: 'always',
          cycles: Math.max(4, Math.ceil(LONG / 2)),
          args,
          during: { ...during, after: 0 },
        });
        const t = totals(run);
        console.log(
          `${label}: ${run.verdicts.length} kills, ${run.hits} during a ${label}, lost ${t.lost}, invented ${t.invented.length}`,
        );
        expect(run.hits).toBeGreaterThan(0);
        expect(t.invented).toEqual([]);
        expect(t.lost).toBe(0);
      },
      LONG > 0 ? LONG * 10_000 : 40_000,
    );

  killDuring(
    'a kill during a checkpoint (and its AOF rotation and cut) loses nothing acknowledged',
    'checkpoint',
    ['--checkpoint-interval', '1'],
    { start: /Checkpointing\.\.\./, end: /saved on disk|checkpoint failed/ },
  );
  killDuring(
    'a kill during an incremental checkpoint (its index copied in slices) loses nothing acknowledged',
    'incremental checkpoint',
    // A 16 MiB index: its copy-on-write copy takes about a dozen event-loop
    // turns, writes landing between them (a larger one only makes the
    // directories slower to remove on a loaded machine).
    ['--checkpoint-interval', '1', '--index-size', '16mb'],
    { start: /Checkpointing\.\.\./, end: /saved on disk|checkpoint failed/ },
  );
  killDuring(
    'a kill during an AOF rewrite (BGREWRITEAOF, automatic) loses nothing acknowledged',
    'rewrite',
    ['--auto-aof-rewrite-min-size', '32kb', '--auto-aof-rewrite-percentage', '10'],
    {
      start: /Background append only file rewriting started/,
      end: /AOF rewrite terminated with success|AOF rewrite failed/,
    },
  );
  killDuring(
    'a kill during a log compaction loses nothing acknowledged',
    'compaction',
    ['--segment-size', '32kb', '--compaction-threshold', '96kb'],
    { start: /compacting\.\.\./, end: /compacted:|compaction failed/ },
  );
});

describe('AOF recovery of whole-database commands', () => {
  test('FLUSHDB, FLUSHALL, SELECT and a checkpoint in between come back right after SIGKILL', async () => {
    const dir = await tempDir('strata-aof-flush-');
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
      ...STORE,
    ];
    const a = await StrataProcess.start(args);
    const r = client(a.port);
    await r.connect();
    await r.mset('gone', '1', 'gone2', '2');
    await r.select(1);
    await r.set('db1-before', 'x');
    await r.select(0);
    await r.flushdb();
    await r.set('kept', 'k');
    await r.select(2);
    await r.set('db2-old', 'y');
    await r.flushall();
    await r.set('db2-new', 'z');
    await r.select(1);
    await r.set('db1-after', 'w');
    await r.save(); // a checkpoint of every database after the FLUSHALL
    await r.incr('counter');
    await r.select(0);
    await r.append('kept', '+more');
    r.disconnect();
    a.process.child.kill('SIGKILL');
    await a.process.exited;

    const b = await StrataProcess.start(args);
    const s = client(b.port);
    await s.connect();
    try {
      // FLUSHALL took 'kept'; the APPEND after it made a new one.
      expect(await s.mget('gone', 'gone2', 'kept')).toEqual([null, null, '+more']);
      await s.select(1);
      expect(await s.mget('db1-before', 'db1-after', 'counter')).toEqual([null, 'w', '1']);
      await s.select(2);
      expect(await s.mget('db2-old', 'db2-new')).toEqual([null, 'z']);
    } finally {
      s.disconnect();
    }
    expect((await b.process.stop('SIGTERM')).code).toBe(0);
  });
});
