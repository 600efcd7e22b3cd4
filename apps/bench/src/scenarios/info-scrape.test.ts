import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { infoScrape } from './info-scrape.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-info-scrape-');

describe('info-scrape (tiny size)', () => {
  it('runs the load with and without the scraper, and the scraper is answered', async () => {
    const json = await runTiny(
      infoScrape,
      { requests: 20_000, clients: 4, keyspace: 100, intervalMs: 20, memory: 64 * 1024 * 1024 },
      tmp.path,
    );
    expect(json.scenario).toBe('info-scrape');
    expect(json.variants.map((v) => v.name)).toEqual(
      expect.arrayContaining(['strata-plain', 'strata-scraped']),
    );
    for (const v of json.variants) expect(v.median).toBeGreaterThan(0);
    expect(json.ratios.map((r) => r.name)).toContain('strata-scraped/strata-plain');
    expect(json.metrics.strata_scrapes).toBeGreaterThan(0);
    // INFO ALL is several kilobytes: every section answered.
    expect(json.metrics.strata_info_bytes).toBeGreaterThan(2000);
  }, 60_000);
});
