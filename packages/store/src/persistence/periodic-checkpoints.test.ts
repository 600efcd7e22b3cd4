import type { Keyspace } from '@strata/resp';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import type { Databases } from './databases.js';
import { PeriodicCheckpoints, type SaveRule } from './periodic-checkpoints.js';
import { SILENT_LOGGER } from './persistence-logger.js';
import { SaveStatus } from './save-status.js';

/** `save`'s pairs as Redis writes them (`3600 1 300 100`). */
function rulesOf(pairs: string): SaveRule[] {
  const n = pairs.split(' ').map(Number);
  const rules: SaveRule[] = [];
  for (let i = 0; i < n.length; i += 2) rules.push({ seconds: n[i]!, changes: n[i + 1]! });
  return rules;
}

/**
 * Redis's save pairs, each a (seconds, changes) rule: a round checkpoints
 * once any one rule has both its changes and its seconds. Database 0 here
 * reports however many changes the test says; the clock is faked.
 */

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function setup(rules: string): {
  periodic: PeriodicCheckpoints;
  saved: number[];
  set: (n: number) => void;
} {
  let changes = 0;
  const saved: number[] = [];
  const store = {};
  const keyspace = {
    count: 1,
    get: (i: number) => (i === 0 ? store : undefined),
    collections: () => undefined,
  } as unknown as Keyspace;
  const databases = {
    saveStatus: new SaveStatus(),
    changesSinceCheckpoint: () => (changes === 0 ? null : changes),
    save: async () => {
      saved.push(Math.round(performance.now() / 1000));
      changes = 0;
    },
  } as unknown as Databases;
  const periodic = new PeriodicCheckpoints(keyspace, databases, rulesOf(rules), SILENT_LOGGER);
  periodic.start();
  return { periodic, saved, set: (n) => (changes = n) };
}

test("Redis's default pairs (3600 1 300 100 60 10000): each pair fires on its own", async () => {
  const { periodic, saved, set } = setup('3600 1 300 100 60 10000');
  // 50 changes: not 10000 in 60 s, not 100 in 300 s; the hour's rule takes them.
  set(50);
  await vi.advanceTimersByTimeAsync(299_000);
  expect(saved).toEqual([]);
  // 150 by the 300th second: the 300 100 rule.
  set(150);
  await vi.advanceTimersByTimeAsync(2_000);
  expect(saved).toEqual([300]);
  // 20000 changes: the 60 10000 rule, 60 s after that checkpoint.
  set(20_000);
  await vi.advanceTimersByTimeAsync(58_000);
  expect(saved).toEqual([300]);
  await vi.advanceTimersByTimeAsync(2_000);
  expect(saved).toEqual([300, 360]);
  // One change: only the hour's rule, an hour after the last round.
  set(1);
  await vi.advanceTimersByTimeAsync(3_500_000);
  expect(saved).toEqual([300, 360]);
  await vi.advanceTimersByTimeAsync(120_000);
  expect(saved).toEqual([300, 360, 3960]);
  await periodic.stop();
});
