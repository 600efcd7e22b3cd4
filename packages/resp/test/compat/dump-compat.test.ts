import { runCase } from './compat-runner.js';
import { DUMP_COMPAT_CASES } from './dump-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';

/** DUMP and RESTORE replies byte for byte against Redis 7 (see dump-compat-cases.ts), in memory and evicted. */
describeRecordedCompat({
  run: runCase,
  cases: DUMP_COMPAT_CASES,
  expectedFile: new URL('./dump-compat-expected.json', import.meta.url),
  strataTitle: 'DUMP and RESTORE replies are those of Redis 7',
  evictedTitle: 'DUMP and RESTORE replies are those of Redis 7, collections evicted',
  redisTitle: 'the recorded DUMP and RESTORE replies are what redis-server answers',
});
