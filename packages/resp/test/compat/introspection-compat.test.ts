import { runCase } from './compat-runner.js';
import type { DiagnosticsCase } from './diagnostics-compat-cases.js';
import { INTROSPECTION_COMPAT_CASES } from './introspection-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';

/**
 * COMMAND GETKEYSANDFLAGS, OBJECT FREQ/IDLETIME, LOLWUT and INFO
 * latencystats against Redis 7.0 (see introspection-compat-cases.ts):
 * random and timed values compared by shape. Re-record with
 * `STRATA_RECORD_COMPAT=1 npx vitest run test/compat/introspection-compat.test.ts`.
 */
describeRecordedCompat({
  cases: INTROSPECTION_COMPAT_CASES,
  run: async (port: number, c: DiagnosticsCase) => {
    const text = await runCase(port, c);
    return c.mask === undefined ? text : c.mask(text);
  },
  expectedFile: new URL('./introspection-compat-expected.json', import.meta.url),
  strataTitle: 'GETKEYSANDFLAGS, OBJECT FREQ/IDLETIME, LOLWUT, INFO latencystats answer as Redis 7',
  evictedTitle: 'the same with collections evicted to disk',
  redisTitle: 'the recorded introspection replies are what redis-server answers',
});
