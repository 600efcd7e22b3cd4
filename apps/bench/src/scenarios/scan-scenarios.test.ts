import { describe, expect, it } from 'vitest';
import { type ReportJson, runTiny, scenarioTempDir } from '../../test/scenario-support.js';
import type { AnyScenario, Params } from '../scenario.js';
import { KiB } from '../sizes.js';
import { multigetBatch } from './multiget-batch.js';
import { scanDbsize } from './scan-dbsize.js';
import { globToRegExp, scanFilters } from './scan-filters.js';
import { scanSummaries } from './scan-summaries.js';

const tmp = scenarioTempDir('strata-bench-scan-');

async function tiny(scenario: AnyScenario, params: Params): Promise<ReportJson> {
  const json = await runTiny(scenario, params, tmp.path);
  expect(json.scenario).toBe(scenario.name);
  for (const v of json.variants) expect(v.median).toBeGreaterThan(0);
  for (const r of json.ratios) expect(r.median).toBeGreaterThan(0);
  for (const m of Object.values(json.metrics)) expect(Number.isFinite(m)).toBe(true);
  return json;
}

describe('scan scenarios end to end (tiny sizes)', () => {
  it('scan-dbsize reports the read modes of both shapes, ratios and adaptive_over_best_plain', async () => {
    const json = await tiny(scanDbsize, {
      keys: 20_000,
      valueBytes: 64,
      largeKeys: 100,
      largeValueBytes: 4 * KiB,
      memory: 256 * KiB,
      pageSize: 32 * KiB,
    });
    expect(json.variants.map((v) => v.name)).toEqual([
      'single',
      'double',
      'adaptive',
      'single-large',
      'double-large',
      'adaptive-large',
      'plain',
      'plain-large',
      'o1',
      'o1-large',
    ]);
    expect(
      json.variants.filter((v) => !v.name.startsWith('o1')).every((v) => v.unit === 'MB/s'),
    ).toBe(true);
    expect(json.variants.filter((v) => v.name.startsWith('o1')).map((v) => v.unit)).toEqual([
      'us',
      'us',
    ]);
    expect(json.ratios.map((r) => r.name)).toEqual([
      'double/single',
      'adaptive/single',
      'double-large/single-large',
      'adaptive-large/single-large',
      'adaptive/double',
      'adaptive/plain',
      'adaptive-large/double-large',
      'adaptive-large/plain-large',
    ]);
    expect(json.metrics.adaptive_over_best_plain).toBeGreaterThan(0);
    expect(json.metrics.adaptive_large_over_best_plain).toBeGreaterThan(0);
    expect(json.metrics.best_plain_mbps).toBeGreaterThan(0);
    expect(json.metrics.log_over_memory).toBeGreaterThan(1);
    expect(json.metrics['adaptive.keys']).toBe(20_000);
    expect(json.metrics['adaptive-large.keys']).toBe(100);
    // The O(1) count: exact (the run fails otherwise) and reported beside the pass.
    expect(json.metrics['o1.keys']).toBe(20_000);
    expect(json.metrics['o1-large.keys']).toBe(100);
    expect(json.metrics.o1_count_us).toBeGreaterThan(0);
    expect(json.metrics.o1_over_adaptive).toBeGreaterThan(0);
    expect(json.metrics.o1_large_over_adaptive_large).toBeGreaterThan(0);
    // Plain reads interleaved with the passes, and each pass's CPU per record.
    expect(json.metrics.plain_mbps).toBeGreaterThan(0);
    expect(json.metrics.plain_mbps_large).toBeGreaterThan(0);
    for (const m of ['single', 'double', 'adaptive', 'single_large', 'adaptive_large']) {
      expect(json.metrics[`${m}_cpu_ns_per_record`], m).toBeGreaterThan(0);
    }
  });

  it('scan-dbsize runs without the large shape', async () => {
    const json = await tiny(scanDbsize, {
      keys: 5_000,
      valueBytes: 64,
      largeKeys: 0,
      largeValueBytes: 4 * KiB,
      memory: 64 * KiB,
      pageSize: 16 * KiB,
    });
    expect(json.variants.map((v) => v.name)).toEqual([
      'single',
      'double',
      'adaptive',
      'plain',
      'o1',
    ]);
    expect(json.metrics.adaptive_large_over_best_plain).toBeUndefined();
    expect(json.metrics.o1_count_us_large).toBeUndefined();
    expect(json.metrics['o1.keys']).toBe(5_000);
  });

  it('scan-filters reports every filter, the naive baselines and the ratios, on strings and mixed types', async () => {
    const json = await tiny(scanFilters, { keys: 5_000, valueBytes: 16, count: 1000 });
    expect(json.variants.map((v) => v.name)).toEqual([
      'nofilter',
      'match100',
      'callback',
      'match0',
      'type-string',
      'type-hash',
      'naive',
      'mixed-nofilter',
      'mixed-type-hash',
      'mixed-match-type',
      'mixed-naive-type',
    ]);
    expect(json.ratios.map((r) => r.name)).toEqual([
      'match0/nofilter',
      'callback/naive',
      'mixed-type-hash/mixed-naive-type',
      'mixed-type-hash/mixed-nofilter',
    ]);
    expect(json.metrics['nofilter.keys_found']).toBe(5_000);
    expect(json.metrics['match100.keys_found']).toBe(5_000);
    expect(json.metrics['callback.keys_found']).toBe(2_500);
    expect(json.metrics['naive.keys_found']).toBe(2_500);
    expect(json.metrics['match0.keys_found']).toBe(0);
    expect(json.metrics['type-hash.keys_found']).toBe(0);
    // Key i has type i % 5 (string hash set zset list); each run also checks its count.
    expect(json.metrics['mixed-nofilter.keys_found']).toBe(5_000);
    expect(json.metrics['mixed-type-hash.keys_found']).toBe(1_000);
    expect(json.metrics['mixed-naive-type.keys_found']).toBe(1_000);
    expect(json.metrics['mixed-match-type.keys_found']).toBe(500);
    expect(json.metrics.mixed_type_over_naive).toBeGreaterThan(0);
  });

  it('globToRegExp covers the naive baseline patterns', () => {
    expect(globToRegExp('user:*').test('user:1')).toBe(true);
    expect(globToRegExp('user:*').test('item:1')).toBe(false);
    expect(globToRegExp('*:*').test('a:b')).toBe(true);
    expect(globToRegExp('a?c.').test('abc.')).toBe(true);
    expect(globToRegExp('a?c.').test('abcx')).toBe(false);
  });

  it('scan-summaries reports pages_read_fraction and the speedups', async () => {
    const json = await tiny(scanSummaries, {
      keys: 20_000,
      valueBytes: 64,
      pageSize: 16 * KiB,
      pagesInMemory: 16,
    });
    expect(json.variants.map((v) => v.name)).toEqual([
      'keys-summarized',
      'keys-plain',
      'scan-summarized',
      'scan-plain',
      'type-summarized',
      'type-plain',
    ]);
    expect(json.metrics.pages_read_fraction).toBeGreaterThan(0);
    expect(json.metrics.pages_read_fraction).toBeLessThan(1);
    expect(json.metrics['keys-plain.pages_read_fraction']).toBe(1);
    // The rare keys are hashes: TYPE hash reads only their pages too.
    expect(json.metrics.type_pages_read_fraction).toBeGreaterThan(0);
    expect(json.metrics.type_pages_read_fraction).toBeLessThan(0.5);
    expect(json.metrics['type-summarized.device_reads']).toBeLessThan(
      json.metrics['type-plain.device_reads']!,
    );
  });

  it('multiget-batch reports latency and device reads, batched and one by one', async () => {
    const json = await tiny(multigetBatch, {
      keys: 20_000,
      valueBytes: 100,
      pageSize: 32 * KiB,
      memory: 256 * KiB,
      batch: 100,
    });
    expect(json.ratios.map((r) => r.name)).toEqual([
      'single-clustered/batched-clustered',
      'single-random/batched-random',
    ]);
    expect(json.metrics.reads_single_clustered).toBeGreaterThan(0);
    expect(json.metrics.reads_batched_clustered).toBeGreaterThan(0);
    expect(json.metrics.reads_batched_clustered).toBeLessThan(json.metrics.reads_single_clustered!);
  });
});
