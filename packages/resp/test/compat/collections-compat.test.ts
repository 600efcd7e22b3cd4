import { COLLECTION_COMPAT_CASES } from './collections-compat-cases.js';
import { runCase } from './compat-runner.js';
import { describeRecordedCompat } from './recorded-compat.js';

/** Hash and set replies byte for byte against Redis 7 (see collections-compat-cases.ts). */
describeRecordedCompat({
  run: runCase,
  cases: COLLECTION_COMPAT_CASES,
  expectedFile: new URL('./collections-compat-expected.json', import.meta.url),
  strataTitle: 'hash and set replies are those of Redis 7',
  redisTitle: 'the recorded hash and set replies are what redis-server answers',
});
