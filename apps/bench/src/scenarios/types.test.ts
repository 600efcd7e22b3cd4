import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { MiB } from '../sizes.js';
import { which } from './server-harness.js';
import { types } from './types.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-types-');

describe.skipIf(which('redis-benchmark') === null)('types (tiny size)', () => {
  it('runs every op on the tuned strata-server, on its defaults and with many clients', async () => {
    const json = await runTiny(
      types,
      {
        // Enough that redis-benchmark's rate is never 'inf' (a run under 1 ms).
        requests: 3000,
        keyspace: 100,
        clients: 10,
        manyClients: 60,
        bigMembers: 2000,
        valueBytes: 16,
        memory: 32 * MiB,
      },
      tmp.path,
    );
    const names = json.variants.map((v) => v.name);
    for (const name of ['strata-hget', 'defaults-hget', 'strata-hset-c60', 'defaults-hget-c60']) {
      expect(names).toContain(name);
    }
    for (const v of json.variants) expect(v.median).toBeGreaterThan(0);
    // The first run of each write on a fresh server, reported apart from the variants' runs.
    for (const op of ['hset', 'sadd', 'zadd']) {
      expect(json.metrics[`first_run.strata-${op}`]).toBeGreaterThan(0);
      expect(json.metrics[`first_run.defaults-${op}`]).toBeGreaterThan(0);
    }
    if (names.includes('redis-hget')) {
      const ratios = json.ratios.map((r) => r.name);
      expect(ratios).toContain('defaults-hget/redis-hget');
      expect(ratios).toContain('strata-hset-c60/redis-hset-c60');
      expect(json.metrics['p99_ratio.strata-hget']).toBeGreaterThan(0);
      expect(json.metrics['p99_ratio.defaults-hget-c60']).toBeGreaterThan(0);
      expect(json.metrics['first_run_ratio.defaults-hset']).toBeGreaterThan(0);
      expect(json.metrics['first_run_ratio.strata-zadd']).toBeGreaterThan(0);
      expect(json.metrics['first_run_ratio.redis-hset']).toBeUndefined();
    }
  }, 180_000);
});
