import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runTiny, scenarioTempDir } from '../../test/scenario-support.js';
import { KiB } from '../sizes.js';
import { ioSeqRead } from './io-seq-read.js';

const tmp = scenarioTempDir('strata-bench-e2e-');

describe('io-seq-read', () => {
  it('runs end to end on a real file at a tiny size', async () => {
    const json = await runTiny(
      ioSeqRead,
      { fileBytes: 512 * KiB, readSizes: [16 * KiB, 64 * KiB], inFlight: [1, 4] },
      tmp.path,
      { runs: 2, warmup: 1 },
    );
    expect(json.scenario).toBe('io-seq-read');
    expect(json.params).toMatchObject({
      fileBytes: 512 * KiB,
      ci: false,
      runs: 2,
      warmup: 1,
      cache: 'warm',
    });
    expect(json.machine.cpus).toBeGreaterThan(0);
    expect(json.variants.map((v: { name: string }) => v.name)).toEqual([
      'file-16k-q1',
      'file-16k-q4',
      'fs-16k',
      'file-64k-q1',
      'file-64k-q4',
      'fs-64k',
    ]);
    for (const v of json.variants) {
      expect(v.unit).toBe('MB/s');
      expect(v.min).toBeGreaterThan(0);
      expect(v.median).toBeGreaterThanOrEqual(v.min);
      expect(v.max).toBeGreaterThanOrEqual(v.median);
    }
    expect(json.ratios.map((r: { name: string }) => r.name)).toEqual([
      'file-16k-q1/fs-16k',
      'file-16k-q4/fs-16k',
      'file-64k-q1/fs-64k',
      'file-64k-q4/fs-64k',
    ]);
    for (const r of json.ratios) expect(r.median).toBeGreaterThan(0);
    expect(json.metrics.best_plain_mbps).toBeGreaterThan(0);
    expect(json.metrics.best_plain_mbps).toBe(
      Math.max(
        ...json.variants
          .filter((v: { name: string }) => v.name.startsWith('fs-'))
          .map((v: { median: number }) => v.median),
      ),
    );
    // The data file went away with the scenario's temp dir.
    expect(await readdir(tmp.path)).toEqual([]);
  });
});
