import { ACCESS_COMPAT_CASES } from './access-compat-cases.js';
import { runCase } from './compat-runner.js';
import { describeRecordedCompat } from './recorded-compat.js';

/**
 * OBJECT IDLETIME and FREQ byte for byte against Redis 7 where they do not
 * depend on the time (see access-compat-cases.ts), with the collections in
 * the cache and evicted (read back from the log or the disk each command).
 */
describeRecordedCompat({
  run: runCase,
  cases: ACCESS_COMPAT_CASES,
  expectedFile: new URL('./access-compat-expected.json', import.meta.url),
  strataTitle: 'OBJECT IDLETIME and FREQ replies are those of Redis 7',
  evictedTitle: 'OBJECT IDLETIME and FREQ replies are those of Redis 7, collections evicted',
  redisTitle: 'the recorded OBJECT IDLETIME and FREQ replies are what redis-server answers',
});
