import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Logger } from './logger.js';
import { OomScore } from './oom-score.js';

let dir: string;
let lines: string[];
let logger: Logger;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-oom-'));
  lines = [];
  logger = new Logger({ level: 'notice', write: (l) => lines.push(l) });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("OomScore: Redis's setOOMScoreAdj on a file standing in for /proc/self/oom_score_adj", () => {
  test('before start only kept; relative adds the score the process had, absolute not; no puts it back', async () => {
    const file = join(dir, 'oom_score_adj');
    await writeFile(file, '50\n');
    const oom = new OomScore(logger, file);
    oom.mode = 'yes';
    oom.values = [300, 0, 0];
    expect(oom.apply()).toBe(true);
    expect(await readFile(file, 'latin1')).toBe('50\n');
    oom.start();
    expect(await readFile(file, 'latin1')).toBe('350\n');
    oom.mode = 'absolute';
    expect(oom.apply()).toBe(true);
    expect(await readFile(file, 'latin1')).toBe('300\n');
    oom.values = [2000, 0, 0];
    oom.apply();
    expect(await readFile(file, 'latin1')).toBe('1000\n');
    oom.mode = 'no';
    oom.apply();
    expect(await readFile(file, 'latin1')).toBe('50\n');
  });

  test("a file that cannot be read or written: false, and Redis's log line", () => {
    const oom = new OomScore(logger, join(dir, 'missing', 'oom_score_adj'));
    oom.mode = 'absolute';
    oom.start();
    expect(oom.apply()).toBe(false);
    expect(lines.join('')).toContain('Unable to read oom_score_adj: No such file or directory');
  });
});
