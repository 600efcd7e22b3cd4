import { runCase } from './compat-runner.js';
import { ENCODING_COMPAT_CASES } from './encoding-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';

/**
 * OBJECT ENCODING after each threshold crossing, byte for byte against
 * Redis 7 (see encoding-compat-cases.ts), in memory and with every
 * collection read back from disk between commands.
 */
describeRecordedCompat({
  run: runCase,
  cases: ENCODING_COMPAT_CASES,
  expectedFile: new URL('./encoding-compat-expected.json', import.meta.url),
  strataTitle: 'OBJECT ENCODING follows the encoding thresholds as Redis 7',
  redisTitle: 'the recorded encoding replies are what redis-server answers',
  evictedTitle: 'OBJECT ENCODING follows the thresholds with collections evicted',
});
