import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { geo } from './geo.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-geo-');

describe('geo (tiny size)', () => {
  it('runs every geo command on strata (and redis when installed)', async () => {
    const json = await runTiny(
      geo,
      { requests: 300, searchRequests: 100, points: 2000, clients: 4, memory: 64 * 1024 * 1024 },
      tmp.path,
    );
    expect(json.scenario).toBe('geo');
    const names = json.variants.map((v) => v.name);
    expect(names).toEqual(expect.arrayContaining(['strata-radius', 'strata-storedist']));
    for (const v of json.variants) {
      expect(v.unit).toBe('ops/s');
      expect(v.median).toBeGreaterThan(0);
    }
    if (names.includes('redis-radius')) {
      expect(json.ratios.map((r) => r.name)).toContain('strata-storedist/redis-storedist');
    }
    expect(json.metrics.points).toBe(2000);
    expect(json.metrics.strata_peak_rss_mb).toBeGreaterThan(10);
  }, 60_000);
});
