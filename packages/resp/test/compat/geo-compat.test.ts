import { runCase } from './compat-runner.js';
import { GEO_COMPAT_CASES, GEO_SESSION_CASES } from './geo-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';

/**
 * Geo replies byte for byte against Redis 7 (see geo-compat-cases.ts),
 * RESP2 and RESP3, with the sorted sets in the cache and evicted (read
 * back from the log or the disk at every command); the keyspace events are
 * a session of a listener and a writer, recorded in a file of their own.
 */
describeRecordedCompat({
  run: runCase,
  cases: GEO_COMPAT_CASES,
  expectedFile: new URL('./geo-compat-expected.json', import.meta.url),
  strataTitle: 'geo replies are those of Redis 7',
  evictedTitle: 'geo replies are those of Redis 7, collections evicted',
  redisTitle: 'the recorded geo replies are what redis-server answers',
});

describeRecordedCompat({
  run: runSession,
  cases: GEO_SESSION_CASES,
  expectedFile: new URL('./geo-notify-compat-expected.json', import.meta.url),
  strataTitle: 'geo keyspace notifications are those of Redis 7',
  redisTitle: 'the recorded geo notifications are what redis-server answers',
});
