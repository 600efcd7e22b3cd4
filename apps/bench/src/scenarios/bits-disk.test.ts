import { describe, expect, it } from 'vitest';
import { runTiny, scenarioTempDir } from '../../test/scenario-support.js';
import { bitsDisk } from './bits-disk.js';

const tmp = scenarioTempDir('strata-bench-bits-disk-');

describe('bits-disk (tiny size)', () => {
  it('answers GETBIT from a chunk of the bitmap, reads far less per op than a whole read, and reports what a SETBIT reads and logs', async () => {
    const json = await runTiny(
      bitsDisk,
      { bitmapBytes: 2 * 1024 * 1024, ops: 200, wholeOps: 4, writeOps: 2, pipeline: 4 },
      tmp.path,
    );
    expect(json.variants.map((v) => v.name)).toEqual([
      'getbit',
      'store-range',
      'store-whole',
      'setbit',
    ]);
    for (const v of json.variants) expect(v.median).toBeGreaterThan(0);
    const perOp = (name: string) => json.metrics[`${name}.bytes_per_op`]!;
    // A chunk (64 KiB), the chunk table and a record: well under the 2 MiB.
    expect(perOp('getbit')).toBeLessThan(128 * 1024);
    expect(perOp('store-range')).toBeLessThan(128 * 1024);
    expect(perOp('store-whole')).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    // A write is not ranged (the log is written once): SETBIT reads the
    // bitmap whole and appends a whole new one. When writes become ranged,
    // these bounds turn into upper ones.
    expect(perOp('setbit')).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(json.metrics['setbit.log_bytes_per_op']).toBeGreaterThanOrEqual(2 * 1024 * 1024);
  }, 120_000);
});
