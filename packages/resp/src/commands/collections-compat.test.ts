import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasRedisServer, runCase, startRedis } from '../compat/compat-runner.js';
import { startServer, type TestServer } from '../test-helpers.js';
import { COLLECTION_COMPAT_CASES } from './collections-compat-cases.js';

/** Hash and set replies byte for byte against Redis 7 (see collections-compat-cases.ts). */

const EXPECTED_FILE = new URL('./collections-compat-expected.json', import.meta.url);
const RECORD = process.env.STRATA_RECORD_COMPAT === '1';

function loadExpected(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(EXPECTED_FILE, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

const expected = loadExpected();

describe('hash and set replies are those of Redis 7', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => {
    await t.stop();
  });
  for (const c of COLLECTION_COMPAT_CASES) {
    test.skipIf(RECORD)(`strata: ${c.name}`, async () => {
      expect(await runCase(t.port, c)).toBe(expected[c.name]);
    });
  }
});

describe.skipIf(!hasRedisServer())(
  'the recorded hash and set replies are what redis-server answers',
  () => {
    let r: { port: number; stop(): void };
    const recorded: Record<string, string> = {};
    beforeAll(async () => {
      r = await startRedis();
    });
    afterAll(() => {
      r.stop();
      if (RECORD) writeFileSync(EXPECTED_FILE, `${JSON.stringify(recorded, null, 2)}\n`);
    });
    for (const c of COLLECTION_COMPAT_CASES) {
      test(`redis: ${c.name}`, async () => {
        const got = await runCase(r.port, c);
        recorded[c.name] = got;
        if (!RECORD) expect(got).toBe(expected[c.name]);
      });
    }
  },
);
