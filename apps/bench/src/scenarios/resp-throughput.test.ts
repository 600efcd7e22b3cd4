import { describe, expect, it } from 'vitest';
import {
  runTiny,
  scenarioTempDir,
  useStrataServerFromSources,
} from '../../test/scenario-support.js';
import { MiB } from '../sizes.js';
import { respThroughput } from './resp-throughput.js';
import { parseBenchmarkCsv } from './server-harness.js';

useStrataServerFromSources();
const tmp = scenarioTempDir('strata-bench-resp-');

describe('resp-throughput (tiny size)', () => {
  it('parses redis-benchmark CSV', () => {
    const m = parseBenchmarkCsv(
      '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"\n"SET","1000.00","0.5","0.1","0.4","0.9","1.2","3.0"\n',
    );
    expect(m.get('set')).toEqual({ rps: 1000, p50: 0.4, p99: 1.2 });
  });

  it('reports strata variants (and redis ones when installed) with p50/p99', async () => {
    const json = await runTiny(
      respThroughput,
      {
        requests: 2000,
        keyspace: 500,
        clients: 50,
        pipelines: [1, 16],
        manyClients: 120,
        valueBytes: 100,
        memory: 16 * MiB,
        diskMemory: 1 * MiB,
        diskKeyspace: 20_000,
        diskRequests: 1000,
      },
      tmp.path,
    );
    expect(json.scenario).toBe('resp-throughput');
    const names = json.variants.map((v) => v.name);
    expect(names).toContain('strata-set-p1');
    expect(names).toContain('strata-get-p16');
    expect(names).toContain('strata16x-get-p1');
    // The many-clients case, and strata-server on its defaults beside the tuned one.
    expect(names).toContain('strata-get-p1-c120');
    expect(names).toContain('defaults-set-p16');
    expect(names).toContain('defaults-get-p1-c120');
    expect(names).not.toContain('strata16x-get-p1-c120');
    // The first run on each fresh server (inserts) is reported apart from the variants' runs.
    expect(json.metrics['first_run.strata']).toBeGreaterThan(0);
    expect(json.metrics['first_run.defaults']).toBeGreaterThan(0);
    expect(Number.isFinite(json.metrics['first_run_p99_ms.defaults'])).toBe(true);
    // Most of strata16x's data is on the device; every server is its own process.
    expect(json.metrics.strata_peak_rss_mb).toBeGreaterThan(10);
    expect(json.metrics.strata16x_data_over_memory).toBeGreaterThan(2);
    for (const v of json.variants) {
      expect(v.unit).toBe('ops/s');
      expect(v.median).toBeGreaterThan(0);
      expect(Number.isFinite(json.metrics[`${v.name}.p50_ms`])).toBe(true);
      expect(Number.isFinite(json.metrics[`${v.name}.p99_ms`])).toBe(true);
      // Each server's CPU is read from /proc in 10 ms ticks: a tiny run may show none.
      expect(json.metrics[`${v.name}.cpu_us_per_op`]).toBeGreaterThanOrEqual(0);
    }
    if (names.includes('redis-set-p1')) {
      expect(json.ratios.map((r) => r.name)).toContain('strata-set-p1/redis-set-p1');
      expect(json.ratios.map((r) => r.name)).toContain('strata16x-get-p16/redis-get-p16');
      expect(json.ratios.map((r) => r.name)).toContain('defaults-get-p1-c120/redis-get-p1-c120');
      // The P1 p99 rows: strata's p99 over redis's in the same case.
      expect(json.metrics['p99_ratio.strata-get-p1']).toBeGreaterThan(0);
      expect(json.metrics['p99_ratio.defaults-set-p1']).toBeGreaterThan(0);
      expect(json.metrics['first_run_ratio.defaults']).toBeGreaterThan(0);
      // strata16x runs the 50-client cases only: its rows are there, no many-client ones.
      expect(json.metrics['p99_ratio.strata16x-get-p16']).toBeGreaterThan(0);
      expect(json.metrics['p99_ratio.strata16x-get-p1-c120']).toBeUndefined();
      expect(json.metrics['first_run_ratio.redis']).toBeUndefined();
    }
    for (const r of json.ratios) expect(r.median).toBeGreaterThan(0);
  }, 180_000);
});
