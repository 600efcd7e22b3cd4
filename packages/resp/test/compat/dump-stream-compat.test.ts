import { runCase } from './compat-runner.js';
import { DUMP_STREAM_COMPAT_CASES } from './dump-stream-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';

/** Streams through DUMP and RESTORE against Redis 7 (see dump-stream-compat-cases.ts), in memory and evicted. */
describeRecordedCompat({
  run: runCase,
  cases: DUMP_STREAM_COMPAT_CASES,
  expectedFile: new URL('./dump-stream-compat-expected.json', import.meta.url),
  strataTitle: 'streams through DUMP and RESTORE are those of Redis 7',
  evictedTitle: 'streams through DUMP and RESTORE are those of Redis 7, collections evicted',
  redisTitle: 'the recorded stream DUMP and RESTORE replies are what redis-server answers',
});
