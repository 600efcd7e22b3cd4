import { afterEach, expect, test } from 'vitest';
import { Logger } from './logger.js';
import { handleSignals } from './signals.js';

let remove: (() => void) | null = null;
afterEach(() => {
  remove?.();
  remove = null;
});

function setup(shutdown: () => Promise<number>) {
  const lines: string[] = [];
  const exits: number[] = [];
  const logger = new Logger({ level: 'notice', write: (l) => lines.push(l) });
  remove = handleSignals({ shutdown }, logger, (code) => exits.push(code));
  return { lines, exits };
}

test('a signal shuts down and exits with its code', async () => {
  const { lines, exits } = setup(async () => 0);
  process.emit('SIGTERM', 'SIGTERM');
  await new Promise((resolve) => setImmediate(resolve));
  expect(exits).toEqual([0]);
  expect(lines[0]).toMatch(
    /^\d+:signal-handler \(\d+\) Received SIGTERM scheduling shutdown\.\.\.\n$/,
  );
});

test('a second signal during the shutdown exits at once with 1', async () => {
  let finish!: (code: number) => void;
  const { lines, exits } = setup(() => new Promise<number>((resolve) => (finish = resolve)));
  process.emit('SIGINT', 'SIGINT');
  await new Promise((resolve) => setImmediate(resolve));
  expect(exits).toEqual([]);
  process.emit('SIGINT', 'SIGINT');
  expect(exits).toEqual([1]);
  expect(lines[1]).toMatch(/# You insist\.\.\. exiting now\.\n$/);
  finish(0);
});

test('a shutdown that fails exits with 1', async () => {
  const { lines, exits } = setup(async () => {
    throw new Error('disk on fire');
  });
  process.emit('SIGTERM', 'SIGTERM');
  await new Promise((resolve) => setImmediate(resolve));
  expect(exits).toEqual([1]);
  expect(lines.at(-1)).toContain('# Shutdown failed: Error: disk on fire');
});
