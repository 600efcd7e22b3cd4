import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { rdbImport } from './rdb-import.js';
import { hasRedisServer } from './server-harness.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-import-');

describe.skipIf(!hasRedisServer())('import (tiny size; redis-server writes the file)', () => {
  it('times both loads and reads every key back equal from strata and redis', async () => {
    const json = await runTiny(rdbImport, { keys: 3000, memory: '64mb', sample: 0 }, tmp.path);
    expect(json.scenario).toBe('import');
    expect(json.variants.map((v) => v.name).sort()).toEqual(['redis', 'strata']);
    for (const v of json.variants) {
      expect(v.unit).toBe('ms');
      expect(v.median).toBeGreaterThan(0);
    }
    expect(json.ratios.map((r) => r.name)).toEqual(['strata/redis']);
    // 3000 strings, then 30 of each collection kind and 30 keys with a TTL.
    expect(json.metrics.verified_keys).toBe(3150);
    expect(json.metrics.dbsize).toBe(3150);
    expect(json.metrics.mismatches).toBe(0);
    expect(json.metrics['strata.peak_rss_mb']).toBeGreaterThan(10);
  }, 120_000);
});
