import { describe, expect, it } from 'vitest';
import { runTiny, scenarioTempDir } from '../../test/scenario-support.js';
import { embedded } from './embedded.js';

const tmp = scenarioTempDir('strata-bench-embedded-');

describe('embedded (tiny size)', () => {
  it('measures strata, lmdb and level on every operation, with ratios, targets and RSS samples', async () => {
    const json = await runTiny(
      embedded,
      {
        keys: 2000,
        gets: 4000,
        puts: 1000,
        loadKeys: 2000,
        diskKeys: 4000,
        diskGets: 500,
        window: 100,
        inFlight: 4,
        pageSize: 16 * 1024,
      },
      tmp.path,
    );
    expect(json.scenario).toBe('embedded');
    const names = json.variants.map((v) => v.name);
    for (const engine of ['strata', 'lmdb', 'level']) {
      for (const op of ['get', 'put', 'load', 'scan', 'disk']) {
        expect(names).toContain(`${engine}-${op}`);
      }
    }
    for (const v of json.variants) {
      expect(v.unit).toBe('ops/s');
      expect(v.median).toBeGreaterThan(0);
      expect(json.metrics[`${v.name}.peak_rss_mib`]).toBeGreaterThan(0);
    }
    expect(json.ratios.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'strata-get/lmdb-get',
        'strata-put/lmdb-put',
        'strata-scan/level-scan',
      ]),
    );
    expect(json.metrics.strata_put_over_lmdb).toBeGreaterThan(0);
  }, 120_000);
});
