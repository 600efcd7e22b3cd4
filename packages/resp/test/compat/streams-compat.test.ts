import { runCase } from './compat-runner.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';
import { STREAM_COMPAT_CASES, STREAM_SESSION_CASES } from './streams-compat-cases.js';

/**
 * Stream replies byte for byte against Redis 7 (see streams-compat-cases.ts):
 * compared with the recorded replies always, and with a live redis-server
 * when it is installed. Re-record with
 * `STRATA_RECORD_COMPAT=1 pnpm vitest run --project resp test/compat/streams-compat.test.ts`.
 */
describeRecordedCompat({
  run: runCase,
  cases: STREAM_COMPAT_CASES,
  expectedFile: new URL('./streams-compat-expected.json', import.meta.url),
  strataTitle: 'stream replies are those of Redis 7',
  evictedTitle: 'stream replies are those of Redis 7 with every stream evicted between commands',
  redisTitle: 'the recorded stream replies are what redis-server answers',
});

describeRecordedCompat({
  run: runSession,
  cases: STREAM_SESSION_CASES,
  expectedFile: new URL('./streams-session-expected.json', import.meta.url),
  strataTitle: 'blocking stream sessions and their events are those of Redis 7',
  evictedTitle: 'blocking stream sessions are those of Redis 7 with every stream evicted',
  redisTitle: 'the recorded blocking stream sessions are what redis-server answers',
});
