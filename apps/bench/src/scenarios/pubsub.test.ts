import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { pubsub } from './pubsub.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-pubsub-');

describe('pubsub (tiny size)', () => {
  it('delivers every message to every subscriber on strata (and redis when installed)', async () => {
    const json = await runTiny(
      pubsub,
      {
        subscribers: [1, 10],
        patternSubscribers: [3],
        deliveries: 3000,
        depth: 8,
        messageBytes: 16,
      },
      tmp.path,
    );
    expect(json.scenario).toBe('pubsub');
    const names = json.variants.map((v) => v.name);
    expect(names).toEqual(
      expect.arrayContaining(['strata-subs1', 'strata-subs10', 'strata-psubs3']),
    );
    for (const v of json.variants) {
      expect(v.unit).toBe('msg/s');
      expect(v.median).toBeGreaterThan(0);
      expect(json.metrics[`${v.name}.cpu_us_per_msg`]).toBeGreaterThanOrEqual(0);
    }
    if (names.includes('redis-subs1')) {
      expect(json.ratios.map((r) => r.name)).toContain('strata-subs10/redis-subs10');
    }
    expect(json.metrics.strata_peak_rss_mb).toBeGreaterThan(10);
  }, 60_000);
});
