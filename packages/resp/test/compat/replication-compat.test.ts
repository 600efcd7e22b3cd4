import { describeRecordedCompat } from './recorded-compat.js';
import { REPLICATION_SESSION_CASES } from './replication-compat-cases.js';
import { runSession } from './session-runner.js';

/**
 * WAIT against Redis 7 (see replication-compat-cases.ts): compared with the
 * recorded transcripts always, and with a live redis-server when it is
 * installed. Re-record with
 * `STRATA_RECORD_COMPAT=1 pnpm vitest run --project resp test/compat/replication-compat.test.ts`.
 */
describeRecordedCompat({
  run: runSession,
  cases: REPLICATION_SESSION_CASES,
  expectedFile: new URL('./replication-session-expected.json', import.meta.url),
  strataTitle: 'WAIT sessions are those of Redis 7 (no replicas)',
  redisTitle: 'the recorded WAIT sessions are what redis-server answers',
});
