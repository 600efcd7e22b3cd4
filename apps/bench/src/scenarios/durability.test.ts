import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { durability } from './durability.js';
import { findStrataCli, which } from './server-harness.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-durability-');
// It drives strata-server's build with redis-benchmark: both must be there.
const runnable = findStrataCli() !== null && which('redis-benchmark') !== null;

describe('durability (tiny size)', () => {
  it.skipIf(!runnable)(
    'measures SET per appendfsync policy, strata (and redis when installed), with always_over_no',
    async () => {
      const json = await runTiny(
        durability,
        { requests: 2000, clients: 50, valueBytes: 100, keyspace: 1000 },
        tmp.path,
      );
      expect(json.scenario).toBe('durability');
      const names = json.variants.map((v) => v.name);
      expect(names).toEqual(
        expect.arrayContaining(['strata-always', 'strata-everysec', 'strata-no']),
      );
      for (const v of json.variants) {
        expect(v.unit).toBe('ops/s');
        expect(v.median).toBeGreaterThan(0);
      }
      expect(json.metrics.always_over_no).toBeGreaterThan(0);
      if (which('redis-server') !== null) {
        expect(json.ratios.map((r) => r.name)).toContain('strata-always/redis-always');
      }
    },
    120_000,
  );
});
