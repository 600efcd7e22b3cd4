import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../test-helpers.js';
import { COMPAT_CASES } from './compat-cases.js';
import { hasRedisServer, runCase, startRedis } from './compat-runner.js';

const EXPECTED_FILE = new URL('./compat-expected.json', import.meta.url);
const RECORD = process.env.STRATA_RECORD_COMPAT === '1';

function loadExpected(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(EXPECTED_FILE, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

const expected = loadExpected();

describe('replies are byte for byte those of Redis 7', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => {
    await t.stop();
  });

  for (const c of COMPAT_CASES) {
    test.skipIf(RECORD)(`strata: ${c.name}`, async () => {
      expect(await runCase(t.port, c)).toBe(expected[c.name]);
    });
  }
});

const redis = hasRedisServer();
if (!redis) console.warn('redis-server is not installed: the recorded replies are not re-checked');

describe.skipIf(!redis)('the recorded replies are what redis-server answers', () => {
  let r: { port: number; stop(): void };
  const recorded: Record<string, string> = {};
  beforeAll(async () => {
    r = await startRedis();
  });
  afterAll(() => {
    r.stop();
    if (RECORD) writeFileSync(EXPECTED_FILE, `${JSON.stringify(recorded, null, 2)}\n`);
  });

  for (const c of COMPAT_CASES) {
    test(`redis: ${c.name}`, async () => {
      const got = await runCase(r.port, c);
      recorded[c.name] = got;
      if (!RECORD) expect(got).toBe(expected[c.name]);
    });
  }
});
