import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';
import { hasRedisServer, startRedis } from './compat-runner.js';

/**
 * Declares the recorded-replies compat suites for `cases`: strata's replies
 * must equal those recorded in `expectedFile`, and (when redis-server is
 * installed) so must redis-server's. With STRATA_RECORD_COMPAT=1 the
 * redis-server replies are written to `expectedFile` instead.
 */
export function describeRecordedCompat<C extends { readonly name: string }>(opts: {
  cases: readonly C[];
  /** Runs one case against the server on `port`: its replies as latin1 text. */
  run: (port: number, c: C) => Promise<string>;
  expectedFile: URL;
  strataTitle: string;
  redisTitle: string;
  /**
   * When given, the strata half runs a second time under this title, on a
   * server whose collection cache holds almost nothing (1 byte), so every
   * command finds its collections evicted: read back from the log or disk.
   */
  evictedTitle?: string;
  /** More options for the strata server (e.g. configValues). */
  serverOptions?: Parameters<typeof startServer>[0];
  /** More redis-server command-line options. */
  redisArgs?: readonly string[];
}): void {
  const record = process.env.STRATA_RECORD_COMPAT === '1';
  const expected = loadExpected(opts.expectedFile);
  const strataHalf = (title: string, collectionMemory?: number) =>
    describe(title, () => {
      let t: TestServer;
      beforeAll(async () => {
        const base = opts.serverOptions ?? {};
        t = await startServer(
          collectionMemory === undefined ? base : { ...base, collectionMemory },
        );
      });
      afterAll(async () => {
        await t.stop();
      });
      for (const c of opts.cases) {
        test.skipIf(record)(`strata: ${c.name}`, async () => {
          expect(await opts.run(t.port, c)).toBe(expected[c.name]);
        });
      }
    });

  strataHalf(opts.strataTitle);
  if (opts.evictedTitle !== undefined) strataHalf(opts.evictedTitle, 1);
  describeRecordedRedis(opts);
}

/**
 * The redis-server half alone: the recorded replies are what redis-server
 * answers (with STRATA_RECORD_COMPAT=1, written to `expectedFile`). For
 * replies recorded before strata has the commands; their strata half is
 * `describeRecordedCompat` once it does.
 */
export function describeRecordedRedis<C extends { readonly name: string }>(opts: {
  cases: readonly C[];
  run: (port: number, c: C) => Promise<string>;
  expectedFile: URL;
  redisTitle: string;
  redisArgs?: readonly string[];
}): void {
  const record = process.env.STRATA_RECORD_COMPAT === '1';
  const expected = loadExpected(opts.expectedFile);
  const redis = hasRedisServer();
  if (!redis)
    console.warn('redis-server is not installed: the recorded replies are not re-checked');

  describe.skipIf(!redis)(opts.redisTitle, () => {
    let r: { port: number; stop(): void };
    const recorded: Record<string, string> = {};
    beforeAll(async () => {
      r = await startRedis(opts.redisArgs);
    });
    afterAll(() => {
      r.stop();
      if (record) writeFileSync(opts.expectedFile, `${JSON.stringify(recorded, null, 2)}\n`);
    });
    for (const c of opts.cases) {
      test(`redis: ${c.name}`, async () => {
        const got = await opts.run(r.port, c);
        recorded[c.name] = got;
        if (!record) expect(got).toBe(expected[c.name]);
      });
    }
  });
}

function loadExpected(file: URL): Record<string, string> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}
