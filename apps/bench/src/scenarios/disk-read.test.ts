import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { MiB } from '../sizes.js';
import { diskRead } from './disk-read.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-disk-read-');

describe('disk-read (tiny size)', () => {
  it('measures the device and strata GETs of data 16x memory at each depth, with ratios', async () => {
    const json = await runTiny(
      diskRead,
      {
        memory: 1 * MiB,
        pageSize: 64 * 1024,
        keys: 100_000,
        valueBytes: 100,
        depths: [1, 8],
        pipeline: 4,
        requests: 400,
        evictEveryMs: 20,
        pageCache: 'evict-loop',
      },
      tmp.path,
    );
    expect(json.scenario).toBe('disk-read');
    const names = json.variants.map((v) => v.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'device-q1',
        'device-q8',
        'strata-uniform-q1',
        'strata-uniform-q8',
        'strata-zipf-q8',
        'strata-uniform-q8-p4',
      ]),
    );
    for (const v of json.variants) {
      expect(v.unit).toBe('ops/s');
      expect(v.median).toBeGreaterThan(0);
    }
    expect(json.ratios.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'strata-uniform-q8/device-q8',
        'strata-zipf-q1/device-q1',
        'strata-uniform-q8-p4/device-q8',
      ]),
    );
    // Most of the data is on the device: the GETs had to read it.
    expect(json.metrics.data_over_memory).toBeGreaterThan(8);
    expect(json.metrics['get_over_device.q8']).toBeGreaterThan(0);
    expect(json.metrics.strata_peak_rss_mb).toBeGreaterThan(0);
    expect(Number.isFinite(json.metrics['strata-uniform-q8.p99_ms'])).toBe(true);
  }, 120_000);
});
