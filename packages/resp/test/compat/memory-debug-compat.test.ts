import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runCase } from './compat-runner.js';
import {
  DEBUG_COMPAT_CASES,
  DEBUG_DATA_CASES,
  type MaskedCase,
  MEMORY_COMPAT_CASES,
} from './memory-debug-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';

/**
 * MEMORY's subcommands and DEBUG against Redis 7.0 (see
 * memory-debug-compat-cases.ts), memory figures compared by shape.
 */
const run = async (port: number, c: MaskedCase) => {
  const text = await runCase(port, c);
  return c.mask === undefined ? text : c.mask(text);
};

describeRecordedCompat({
  cases: MEMORY_COMPAT_CASES,
  run,
  expectedFile: new URL('./memory-debug-compat-expected.json', import.meta.url),
  strataTitle: 'MEMORY STATS/DOCTOR/HELP and the DEBUG refusal answer as Redis 7',
  evictedTitle: 'MEMORY and DEBUG replies with collections evicted',
  redisTitle: 'the recorded MEMORY replies are what redis-server answers',
});

describeRecordedCompat({
  cases: DEBUG_COMPAT_CASES,
  run,
  expectedFile: new URL('./debug-compat-expected.json', import.meta.url),
  strataTitle: 'DEBUG, enabled, answers as Redis 7',
  evictedTitle: 'DEBUG replies with collections evicted',
  redisTitle: 'the recorded DEBUG replies are what redis-server answers',
  serverOptions: { configValues: { 'enable-debug-command': () => 'yes' } },
  redisArgs: ['--enable-debug-command', 'yes'],
});

// DEBUG RELOAD writes redis-server's dump.rdb: in a directory of its own.
const redisDir = mkdtempSync(join(tmpdir(), 'strata-debug-redis-'));
afterAll(() => rmSync(redisDir, { recursive: true, force: true }));

describeRecordedCompat({
  cases: DEBUG_DATA_CASES,
  run,
  expectedFile: new URL('./debug-data-compat-expected.json', import.meta.url),
  strataTitle: 'DEBUG DIGEST, DIGEST-VALUE, LISTPACK, QUICKLIST, RELOAD answer as Redis 7',
  evictedTitle: 'DEBUG DIGEST, LISTPACK, QUICKLIST, RELOAD with collections evicted',
  redisTitle: 'the recorded DEBUG DIGEST/RELOAD replies are what redis-server answers',
  serverOptions: { configValues: { 'enable-debug-command': () => 'yes' } },
  redisArgs: ['--enable-debug-command', 'yes', '--dir', redisDir],
});
