import { runCase } from './compat-runner.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { SCRIPTING_COMPAT_CASES } from './scripting-compat-cases.js';

/**
 * Lua scripts against Redis 7 (see scripting-compat-cases.ts). Re-record with
 * `STRATA_RECORD_COMPAT=1 npx vitest run test/compat/scripting-compat.test.ts` (from packages/resp).
 */
describeRecordedCompat({
  run: runCase,
  cases: SCRIPTING_COMPAT_CASES,
  expectedFile: new URL('./scripting-compat-expected.json', import.meta.url),
  strataTitle: "scripts answer as Redis 7's do",
  redisTitle: 'the recorded script replies are what redis-server answers',
});
