import { runCase } from './compat-runner.js';
import { describeRecordedRedis } from './recorded-compat.js';
import { runSession } from './session-runner.js';
import { STREAM_COMPAT_CASES, STREAM_SESSION_CASES } from './streams-compat-cases.js';

/**
 * Stream replies of Redis 7 (see streams-compat-cases.ts), recorded from
 * redis-server and re-checked against it when it is installed. Strata's
 * side of these cases is written with the stream commands (issue 17):
 * `describeRecordedCompat` over the same files. Re-record both with
 * `STRATA_RECORD_COMPAT=1 pnpm vitest run --project resp test/compat/streams-compat.test.ts`.
 */
describeRecordedRedis({
  run: runCase,
  cases: STREAM_COMPAT_CASES,
  expectedFile: new URL('./streams-compat-expected.json', import.meta.url),
  redisTitle: 'the recorded stream replies are what redis-server answers',
});

describeRecordedRedis({
  run: runSession,
  cases: STREAM_SESSION_CASES,
  expectedFile: new URL('./streams-session-expected.json', import.meta.url),
  redisTitle: 'the recorded blocking stream sessions are what redis-server answers',
});
