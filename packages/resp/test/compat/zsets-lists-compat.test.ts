import { runCase } from './compat-runner.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { ZSET_LIST_COMPAT_CASES } from './zsets-lists-compat-cases.js';

/**
 * Sorted set and list replies byte for byte against Redis 7 (see
 * zsets-lists-compat-cases.ts): compared with the recorded replies always,
 * and with a live redis-server when it is installed.
 */
describeRecordedCompat({
  run: runCase,
  cases: ZSET_LIST_COMPAT_CASES,
  expectedFile: new URL('./zsets-lists-compat-expected.json', import.meta.url),
  strataTitle: 'sorted set and list replies are those of Redis 7',
  redisTitle: 'the recorded sorted set and list replies are what redis-server answers',
});
