import { runCase } from './compat-runner.js';
import { MIGRATE_COMPAT_CASES } from './migrate-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';

/** MIGRATE's replies that need no target against Redis 7 (see migrate-compat-cases.ts), in memory and evicted. */
describeRecordedCompat({
  run: runCase,
  cases: MIGRATE_COMPAT_CASES,
  expectedFile: new URL('./migrate-compat-expected.json', import.meta.url),
  strataTitle: 'MIGRATE replies are those of Redis 7',
  evictedTitle: 'MIGRATE replies are those of Redis 7, collections evicted',
  redisTitle: 'the recorded MIGRATE replies are what redis-server answers',
});
