import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';
import { hasRedisServer, runCase, startRedis } from './compat-runner.js';
import { CONFIG_COMPAT_CASES } from './config-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';

/**
 * CONFIG GET and SET against Redis 7 (see config-compat-cases.ts). Re-record with
 * `STRATA_RECORD_COMPAT=1 npx vitest run test/compat/config-compat.test.ts` (from packages/resp).
 */
describeRecordedCompat({
  run: runCase,
  cases: CONFIG_COMPAT_CASES,
  expectedFile: new URL('./config-compat-expected.json', import.meta.url),
  strataTitle: "CONFIG GET and SET answer as Redis 7's do, parameter by parameter",
  redisTitle: 'the recorded CONFIG replies are what redis-server answers',
});

async function parameterNames(port: number): Promise<string[]> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  await c.connect();
  try {
    const flat = (await c.config('GET', '*')) as string[];
    return flat.filter((_, i) => i % 2 === 0).sort();
  } finally {
    c.disconnect();
  }
}

// The recorded cases ask the table's parameters; this asks Redis for its own,
// so a parameter Redis has and the table lacks is found (live half only).
describe.skipIf(!hasRedisServer())('CONFIG GET * names the parameters redis-server 7 has', () => {
  let t: TestServer;
  let r: { port: number; stop(): void };
  beforeAll(async () => {
    t = await startServer();
    r = await startRedis();
  });
  afterAll(async () => {
    r.stop();
    await t.stop();
  });
  test('the same names, aliases included', async () => {
    expect(await parameterNames(t.port)).toEqual(await parameterNames(r.port));
  });
});
