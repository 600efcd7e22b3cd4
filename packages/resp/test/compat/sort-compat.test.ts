import { runCase } from './compat-runner.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';
import { SORT_COMPAT_CASES, SORT_SESSION_CASES } from './sort-compat-cases.js';

/**
 * SORT and SORT_RO replies byte for byte against Redis 7 (see
 * sort-compat-cases.ts), RESP2 and RESP3, with the collections in the cache
 * and evicted (read back from the log or the disk at every command); the
 * keyspace events are a session of a listener and a writer, recorded in a
 * file of their own.
 */
describeRecordedCompat({
  run: runCase,
  cases: SORT_COMPAT_CASES,
  expectedFile: new URL('./sort-compat-expected.json', import.meta.url),
  strataTitle: 'SORT replies are those of Redis 7',
  evictedTitle: 'SORT replies are those of Redis 7, collections evicted',
  redisTitle: 'the recorded SORT replies are what redis-server answers',
});

describeRecordedCompat({
  run: runSession,
  cases: SORT_SESSION_CASES,
  expectedFile: new URL('./sort-notify-compat-expected.json', import.meta.url),
  strataTitle: 'SORT keyspace notifications are those of Redis 7',
  redisTitle: 'the recorded SORT notifications are what redis-server answers',
});
