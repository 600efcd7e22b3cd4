import { COMPAT_CASES } from './compat-cases.js';
import { runCase } from './compat-runner.js';
import { describeRecordedCompat } from './recorded-compat.js';

describeRecordedCompat({
  run: runCase,
  cases: COMPAT_CASES,
  expectedFile: new URL('./compat-expected.json', import.meta.url),
  strataTitle: 'replies are byte for byte those of Redis 7',
  redisTitle: 'the recorded replies are what redis-server answers',
});
