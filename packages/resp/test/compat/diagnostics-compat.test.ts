import { runCase } from './compat-runner.js';
import { DIAGNOSTICS_COMPAT_CASES, type DiagnosticsCase } from './diagnostics-compat-cases.js';
import { maskMonitor } from './diagnostics-masks.js';
import { DIAGNOSTICS_SESSION_CASES } from './diagnostics-session-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';

/**
 * SLOWLOG, LATENCY, INFO commandstats, MONITOR, CLIENT REPLY and CLIENT
 * PAUSE against Redis 7.0 (see diagnostics-compat-cases.ts and
 * diagnostics-session-cases.ts): time-dependent values compared by shape.
 * Re-record with `STRATA_RECORD_COMPAT=1 npx vitest run test/compat/diagnostics-compat.test.ts`.
 */
describeRecordedCompat({
  cases: DIAGNOSTICS_COMPAT_CASES,
  run: async (port: number, c: DiagnosticsCase) => {
    const text = await runCase(port, c);
    return c.mask === undefined ? text : c.mask(text);
  },
  expectedFile: new URL('./diagnostics-compat-expected.json', import.meta.url),
  strataTitle: 'SLOWLOG, LATENCY, commandstats, CLIENT REPLY/PAUSE, MONITOR answer as Redis 7',
  redisTitle: 'the recorded diagnostics replies are what redis-server answers',
});

describeRecordedCompat({
  cases: DIAGNOSTICS_SESSION_CASES,
  run: async (port, c) => maskMonitor(await runSession(port, c)),
  expectedFile: new URL('./diagnostics-session-expected.json', import.meta.url),
  strataTitle: 'MONITOR, CLIENT PAUSE and CLIENT REPLY sessions are those of Redis 7',
  redisTitle: 'the recorded diagnostics sessions are what redis-server answers',
});
