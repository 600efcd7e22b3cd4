import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';
import { TRACKING_COMPAT_CASES } from './tracking-compat-cases.js';

/**
 * Client-side caching replies and invalidation pushes byte for byte against
 * Redis 7 (see tracking-compat-cases.ts): compared with the recorded
 * transcripts always, and with a live redis-server when installed.
 */
describeRecordedCompat({
  cases: TRACKING_COMPAT_CASES,
  run: runSession,
  expectedFile: new URL('./tracking-compat-expected.json', import.meta.url),
  strataTitle: 'client tracking replies and invalidations are those of Redis 7',
  redisTitle: 'the recorded client tracking transcripts are what redis-server answers',
});
