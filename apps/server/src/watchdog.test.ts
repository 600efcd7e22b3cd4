import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { Watchdog } from './watchdog.js';

let dir: string;
let dog: Watchdog | null = null;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-watchdog-'));
});
afterEach(async () => {
  dog?.stop();
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Blocks this thread's event loop for `ms`, as a stuck command would. */
function block(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy
  }
}

test('a stalled event loop is reported while it is stuck, once, and its length after; none while it runs', async () => {
  const logfile = join(dir, 'log');
  await writeFile(logfile, '');
  const stalls: number[] = [];
  dog = new Watchdog({ pid: 4242, logfile }, (ms) => stalls.push(ms));
  dog.setPeriod(100);
  // The worker starts; the loop runs freely meanwhile: nothing to report.
  await sleep(400);
  expect(await readFile(logfile, 'utf8')).toBe('');
  block(500);
  await sleep(100);
  const text = await readFile(logfile, 'utf8');
  expect(text).toMatch(/^4242:signal-handler \(\d+\) \n--- WATCHDOG TIMER EXPIRED ---\n/);
  expect(text.match(/WATCHDOG TIMER EXPIRED/g)).toHaveLength(1);
  expect(text).toMatch(/The event loop has not run for \d+ ms \(watchdog-period 100\)/);
  expect(stalls).toHaveLength(1);
  expect(stalls[0]).toBeGreaterThanOrEqual(400);
  // Off: no worker, nothing more written whatever the loop does.
  dog.setPeriod(0);
  block(300);
  await sleep(100);
  expect(await readFile(logfile, 'utf8')).toBe(text);
});
