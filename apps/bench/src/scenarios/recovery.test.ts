import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { recovery } from './recovery.js';
import { findStrataCli, hasRedisServer } from './server-harness.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-recovery-');

describe('recovery (tiny size)', () => {
  it.skipIf(findStrataCli() === null)(
    'restarts after kill -9 and a clean shutdown, every key back; strata reports what its recovery read',
    async () => {
      const json = await runTiny(recovery, { keys: 3000, valueBytes: 100, sample: 300 }, tmp.path);
      expect(json.scenario).toBe('recovery');
      const names = json.variants.map((v) => v.name);
      expect(names).toEqual(expect.arrayContaining(['strata-aof', 'strata-noaof', 'strata-clean']));
      for (const v of json.variants) {
        expect(v.unit).toBe('ms');
        expect(v.median).toBeGreaterThan(0);
      }
      // The crash restarts read keys back from the log (commit points), not all from the AOF.
      expect(json.metrics['strata-aof.log_bytes']).toBeGreaterThan(0);
      expect(json.metrics['strata-aof.aof_commands']).toBeLessThan(3000);
      expect(json.metrics['strata-noaof.log_bytes']).toBeGreaterThan(0);
      expect(json.metrics.recover_mbps_over_plain).toBeGreaterThan(0);
      if (hasRedisServer()) {
        expect(json.ratios.map((r) => r.name)).toContain('strata-aof/redis-aof');
      }
    },
    180_000,
  );
});
