import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';
import { runCase } from './compat-runner.js';
import { FIELD_EXPIRY_CASES, type FieldExpiryCase, render } from './hash-field-expiry-cases.js';

/**
 * Hash field expiry replies byte for byte (see hash-field-expiry-cases.ts),
 * RESP2 and RESP3, with the hashes in the collection cache and evicted (a
 * 1-byte cache: every command reads its hash back from the log or the
 * disk, so the field expiry times must come back with it).
 *
 * No live half: the installed redis-server (7.0.15) predates these
 * commands, so the expected replies are data derived from Redis 8's
 * source and tests rather than recorded from a server.
 */

const expected = (c: FieldExpiryCase): string =>
  c.steps.map(([, r]) => render(r, c.resp3 === true ? 3 : 2)).join('');

const run = (port: number, c: FieldExpiryCase): Promise<string> =>
  runCase(port, {
    name: c.name,
    ...(c.resp3 === true && { resp3: true }),
    commands: c.steps.map(([argv]) => argv),
  });

for (const [title, collectionMemory] of [
  ['hash field expiry replies are those of Redis 8', undefined],
  ['hash field expiry replies are those of Redis 8, collections evicted', 1],
] as const) {
  describe(title, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startServer(collectionMemory === undefined ? {} : { collectionMemory });
    });
    afterAll(async () => {
      await t.stop();
    });
    for (const c of FIELD_EXPIRY_CASES) {
      test(c.name, async () => {
        expect(await run(t.port, c)).toBe(expected(c));
      });
    }
  });
}
