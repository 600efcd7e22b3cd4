import { BITS_COMPAT_CASES, BITS_SESSION_CASES } from './bits-compat-cases.js';
import { runCase } from './compat-runner.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';

/**
 * Bitmap replies byte for byte against Redis 7 (see bits-compat-cases.ts),
 * RESP2 and RESP3, also with the collection cache all but empty (the
 * strings on the disk are there in both: the cases' MSET fillers push
 * them out); the keyspace events are a session of a listener and a writer,
 * recorded in a file of their own.
 */
describeRecordedCompat({
  run: runCase,
  cases: BITS_COMPAT_CASES,
  expectedFile: new URL('./bits-compat-expected.json', import.meta.url),
  strataTitle: 'bitmap replies are those of Redis 7',
  evictedTitle: 'bitmap replies are those of Redis 7, collections evicted',
  redisTitle: 'the recorded bitmap replies are what redis-server answers',
});

describeRecordedCompat({
  run: runSession,
  cases: BITS_SESSION_CASES,
  expectedFile: new URL('./bits-notify-compat-expected.json', import.meta.url),
  strataTitle: 'bitmap keyspace notifications are those of Redis 7',
  redisTitle: 'the recorded bitmap notifications are what redis-server answers',
});
