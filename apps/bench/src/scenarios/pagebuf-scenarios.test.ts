import { describe, expect, it } from 'vitest';
import { type ReportJson, runTiny, scenarioTempDir } from '../../test/scenario-support.js';
import type { AnyScenario, Params } from '../scenario.js';
import { KiB, MiB } from '../sizes.js';
import { pageListAppend } from './page-list-append.js';
import { pagebufReadahead } from './pagebuf-readahead.js';
import { pagebufScan } from './pagebuf-scan.js';
import { checksum } from './pagebuf-support.js';

const tmp = scenarioTempDir('strata-bench-pagebuf-');

async function tiny(scenario: AnyScenario, params: Params): Promise<ReportJson> {
  const json = await runTiny(scenario, params, tmp.path);
  for (const v of json.variants) expect(Number.isFinite(v.median)).toBe(true);
  for (const m of Object.values(json.metrics)) expect(Number.isFinite(m)).toBe(true);
  return json;
}

describe('pagebuf scenarios end to end (tiny sizes)', () => {
  it('pagebuf-scan reports every mode, the ratios and adaptive_over_best_plain', async () => {
    const json = await tiny(pagebufScan, {
      fileBytes: 4 * MiB,
      pageSize: 256 * KiB,
      smallPageSize: 64 * KiB,
    });
    expect(json.variants.map((v) => v.name)).toEqual([
      'single',
      'double',
      'frames4',
      'adaptive',
      'plain',
      'single-p64k',
      'double-p64k',
    ]);
    expect(json.ratios.map((r) => r.name)).toEqual(
      expect.arrayContaining(['double/single', 'adaptive/single', 'double-p64k/single-p64k']),
    );
    expect(json.metrics).toHaveProperty('adaptive_over_best_plain');
    expect(json.metrics.page_process_us).toBeGreaterThan(0);
  });

  it('pagebuf-readahead reports adaptive/fixed16k and the random read amplification', async () => {
    const json = await tiny(pagebufReadahead, {
      fileBytes: 4 * MiB,
      randomReads: 64,
    });
    expect(json.ratios.map((r) => r.name)).toContain('adaptive/fixed16k');
    // The adaptive reader reads exactly the pages asked for at random.
    expect(json.metrics.random_read_amplification).toBe(1);
    expect(json.metrics.random_read_amplification_ahead128k).toBeGreaterThan(2);
  });

  it('page-list-append reports both curves', async () => {
    const json = await tiny(pageListAppend, { entries: 50_000, naiveEntries: 2_000 });
    expect(json.variants.map((v) => v.name)).toEqual(['chunked', 'naive']);
    expect(Object.keys(json.metrics)).toEqual(
      expect.arrayContaining(['chunked_last_over_first', 'naive_last_over_first']),
    );
  });

  it('checksum visits exactly the bytes asked for, wrapping over the frame', () => {
    const bytes = Uint8Array.from([1, 2, 3]);
    expect(checksum(bytes, 0, 3, 6, 7)).toBe(
      checksum(Uint8Array.from([1, 2, 3, 1, 2, 3]), 0, 6, 6, 7),
    );
    expect(checksum(bytes, 1, 2, 0, 5)).toBe(5);
  });
});
