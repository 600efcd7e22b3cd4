import { runCase } from './compat-runner.js';
import { HYPERLOGLOG_COMPAT_CASES, HYPERLOGLOG_SESSION_CASES } from './hyperloglog-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';

/**
 * HyperLogLog replies and values byte for byte against Redis 7 (see
 * hyperloglog-compat-cases.ts): compared with the recorded replies always,
 * and with a live redis-server when it is installed. The keyspace events
 * are a session of a listener and a writer, recorded in a file of their own.
 */
describeRecordedCompat({
  run: runCase,
  cases: HYPERLOGLOG_COMPAT_CASES,
  expectedFile: new URL('./hyperloglog-compat-expected.json', import.meta.url),
  strataTitle: 'HyperLogLog replies and values are those of Redis 7',
  redisTitle: 'the recorded HyperLogLog replies are what redis-server answers',
});

describeRecordedCompat({
  run: runSession,
  cases: HYPERLOGLOG_SESSION_CASES,
  expectedFile: new URL('./hyperloglog-notify-compat-expected.json', import.meta.url),
  strataTitle: 'HyperLogLog keyspace notifications are those of Redis 7',
  redisTitle: 'the recorded HyperLogLog notifications are what redis-server answers',
});
