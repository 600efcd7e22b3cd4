import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCommandTable } from '../../src/commands/index.js';
import { ACL_CATEGORIES } from '../../src/server/command-table.js';
import { startServer, type TestServer } from '../support/test-server.js';
import { hasRedisServer, startRedis } from './compat-runner.js';

/**
 * ACL CAT <category> lists, for the commands strata has, what Redis 7.0
 * lists (its order is its command dict's, so the lists are compared as
 * sets): the categories come from the command table's metadata.
 */
describe.skipIf(!hasRedisServer())(
  'ACL CAT lists the commands Redis 7.0 lists in each category',
  () => {
    let t: TestServer;
    let r: { port: number; stop(): void };
    let strata: Redis;
    let redis: Redis;
    beforeAll(async () => {
      t = await startServer();
      r = await startRedis();
      strata = new Redis({ port: t.port, host: '127.0.0.1' });
      redis = new Redis({ port: r.port, host: '127.0.0.1' });
    });
    afterAll(async () => {
      strata.disconnect();
      redis.disconnect();
      r.stop();
      await t.stop();
    });

    test('the categories themselves, in Redis order', async () => {
      expect(await strata.call('ACL', 'CAT')).toEqual(await redis.call('ACL', 'CAT'));
      expect(await strata.call('ACL', 'CAT')).toEqual([...ACL_CATEGORIES]);
    });

    for (const category of ACL_CATEGORIES) {
      test(`@${category}`, async () => {
        const ours = ((await strata.call('ACL', 'CAT', category)) as string[]).sort();
        // Every command strata has, containers and subcommands by full name.
        const names = new Set<string>();
        for (const spec of createCommandTable()) {
          names.add(spec.fullName);
          if (spec.subcommands !== null) for (const s of spec.subcommands) names.add(s.fullName);
        }
        // Every Redis command is @fast or @slow: strata's own commands are left out.
        const redisNames = new Set([
          ...((await redis.call('ACL', 'CAT', 'fast')) as string[]),
          ...((await redis.call('ACL', 'CAT', 'slow')) as string[]),
        ]);
        const theirs = ((await redis.call('ACL', 'CAT', category)) as string[])
          .filter((n) => names.has(n))
          .sort();
        // Strata's WAIT is flagged blocking (Redis 7.0's is not): the replication family's definition.
        const known = category === 'blocking' ? new Set(['wait']) : new Set<string>();
        expect(ours.filter((n) => redisNames.has(n) && !known.has(n))).toEqual(theirs);
      });
    }
  },
);
