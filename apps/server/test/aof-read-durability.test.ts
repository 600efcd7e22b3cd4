import { Prng } from '@strata/io';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * appendfsync always promises that nothing acknowledged is lost; a reader
 * must not be shown more than that either. Writers INCR their counters as
 * fast as they can while a reader reads them all; the server gets SIGKILL
 * at a random moment and restarts: every counter must be at least what the
 * reader saw (before, a reader's reply could show an INCR whose sync was
 * still pending, and the restart came back lower). STRATA_CRASH_CYCLES=n
 * runs n cycles.
 */
const CYCLES = Math.max(8, Number(process.env.STRATA_CRASH_CYCLES ?? 0));
const WRITERS = 12;
const WINDOW = 32;

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

const keys = Array.from({ length: WRITERS }, (_, i) => `counter:${i}`);

/** INCRs `key` with WINDOW in flight until `stop()` says so (or the connection dies). */
async function writer(r: Redis, key: string, stop: () => boolean): Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  let failed = false;
  while (!stop() && !failed) {
    const p = r.incr(key).catch(() => {
      failed = true;
    });
    inFlight.add(p);
    void p.then(() => inFlight.delete(p));
    if (inFlight.size >= WINDOW) await Promise.race(inFlight);
  }
}

/** Reads every counter in a loop; keeps the highest value seen of each. */
async function reader(r: Redis, seen: number[], stop: () => boolean): Promise<void> {
  while (!stop()) {
    let values: (string | null)[];
    try {
      values = await r.mget(...keys);
    } catch {
      return;
    }
    values.forEach((v, i) => {
      const n = v === null ? 0 : Number(v);
      if (n > seen[i]!) seen[i] = n;
    });
  }
}

test('appendfsync always: what a reader was shown survives kill -9', async () => {
  const dir = await tempDir('strata-read-durability-');
  dirs.push(dir);
  const seed = Number(process.env.STRATA_CRASH_SEED ?? Date.now() % 1_000_000);
  console.log(`aof-read-durability seed ${seed} (STRATA_CRASH_SEED replays it)`);
  // io's seeded generator (mulberry32): the seed reproduces the run.
  const prng = new Prng(seed);
  const random = () => prng.next();
  const args = ['--port', '0', '--dir', dir.path, '--appendonly', 'yes', '--appendfsync', 'always'];
  const seen = keys.map(() => 0);
  let readsChecked = 0;
  for (let cycle = 0; cycle <= CYCLES; cycle++) {
    const { process: p, port } = await StrataProcess.start(args);
    const check = client(port);
    await check.connect();
    if (cycle > 0) {
      const after = (await check.mget(...keys)).map((v) => (v === null ? 0 : Number(v)));
      for (let i = 0; i < keys.length; i++) {
        expect(
          after[i],
          `cycle ${cycle}, ${keys[i]}: the reader saw ${seen[i]}`,
        ).toBeGreaterThanOrEqual(seen[i]!);
      }
      readsChecked++;
    }
    check.disconnect();
    if (cycle === CYCLES) {
      await p.stop('SIGKILL');
      break;
    }
    const conns = [...keys.map(() => client(port)), client(port)];
    await Promise.all(conns.map((c) => c.connect()));
    let stopped = false;
    const stop = () => stopped;
    const runs = [
      ...keys.map((k, i) => writer(conns[i]!, k, stop)),
      reader(conns[WRITERS]!, seen, stop),
    ];
    // Until the reader has seen this cycle's writes, then a random moment more.
    const before = seen.reduce((a, b) => a + b, 0);
    while (seen.reduce((a, b) => a + b, 0) === before) {
      await new Promise((res) => setTimeout(res, 10));
    }
    await new Promise((res) => setTimeout(res, 50 + Math.floor(random() * 300)));
    p.child.kill('SIGKILL');
    await p.exited;
    stopped = true;
    await Promise.all(runs);
    for (const c of conns) c.disconnect();
  }
  expect(readsChecked).toBe(CYCLES);
  console.log(`aof-read-durability: ${CYCLES} kills, counters read ${seen.join(', ')}`);
}, 240_000);
