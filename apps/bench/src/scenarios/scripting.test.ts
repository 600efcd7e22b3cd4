import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { scripting } from './scripting.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-scripting-');

describe('scripting (tiny size)', () => {
  it('runs every script to its end on strata (and redis when installed)', async () => {
    const json = await runTiny(
      scripting,
      { requests: 500, clients: 4, depth: 1, keyspace: 100, jobs: 20 },
      tmp.path,
    );
    expect(json.scenario).toBe('scripting');
    const names = json.variants.map((v) => v.name);
    expect(names).toEqual(
      expect.arrayContaining(['strata-evalsha1', 'strata-evalsha10', 'strata-movetoactive']),
    );
    for (const v of json.variants) {
      expect(v.unit).toBe('ops/s');
      expect(v.median).toBeGreaterThan(0);
    }
    if (names.includes('redis-evalsha1')) {
      expect(json.ratios.map((r) => r.name)).toContain('strata-movetoactive/redis-movetoactive');
    }
    expect(json.metrics.strata_peak_rss_mb).toBeGreaterThan(10);
  }, 60_000);
});
