import { expect, test } from 'vitest';
import { InstantaneousMetrics } from './instantaneous-metrics.js';

test('rates are the mean of the last 16 samples, per second; a reset is no negative rate', () => {
  const source = { commands: 0, netInput: 0, netOutput: 0 };
  const m = new InstantaneousMetrics(source);
  let now = 1_000_000;
  m.sample(now);
  // 50 commands and 10 KiB in every 100 ms: 500 ops/s, 100 KiB/s, once 16 samples are in.
  for (let i = 0; i < 16; i++) {
    now += 100;
    source.commands += 50;
    source.netInput += 10 * 1024;
    m.sample(now);
  }
  expect(m.ops.perSecond).toBe(500);
  expect(m.input.perSecond / 1024).toBe(100);
  expect(m.output.perSecond).toBe(0);
  // Idle for 8 samples: half the window is 0.
  for (let i = 0; i < 8; i++) {
    now += 100;
    m.sample(now);
  }
  expect(m.ops.perSecond).toBe(250);
  source.commands = 0; // CONFIG RESETSTAT
  now += 100;
  m.sample(now);
  expect(m.ops.perSecond).toBeGreaterThanOrEqual(0);
  expect(m.peakMemory).toBeGreaterThan(0);
});
