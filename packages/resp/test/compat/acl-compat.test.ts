import { ACL_CASES, type AclCase, maskAclLog } from './acl-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';

/**
 * ACL against Redis 7.0 (see acl-compat-cases.ts), RESP2 and RESP3, keys in
 * memory and evicted. Re-record with
 * `STRATA_RECORD_COMPAT=1 npx vitest run test/compat/acl-compat.test.ts`.
 */
describeRecordedCompat({
  cases: ACL_CASES,
  run: async (port: number, c: AclCase) => {
    const text = maskAclLog(await runSession(port, c));
    return c.mask === undefined ? text : c.mask(text);
  },
  expectedFile: new URL('./acl-compat-expected.json', import.meta.url),
  strataTitle: 'ACL users, rules, NOPERM and ACL LOG are those of Redis 7',
  evictedTitle: 'ACL with collections evicted to disk',
  redisTitle: 'the recorded ACL sessions are what redis-server answers',
});
