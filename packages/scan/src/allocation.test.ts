import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { keyLengthOf, keyOffsetOf } from '@strata/hlog';
import { afterEach, describe, expect, it } from 'vitest';
import { openTiny, removeTempDirs } from '../test/support.js';
import { KeyScanner } from './key-scanner.js';
import { LogIterator } from './log-iterator.js';

afterEach(removeTempDirs);

/** Young-generation collections while `work` runs: a proxy for allocation. */
async function minorGcs(work: () => Promise<void>): Promise<number> {
  let count = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const detail = (e as PerformanceEntry & { detail?: { kind?: number } }).detail;
      // NODE_PERFORMANCE_GC_MINOR = 1
      if (detail?.kind === 1) count++;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  await work();
  await new Promise((resolve) => setTimeout(resolve, 20));
  obs.disconnect();
  return count;
}

describe('hot paths allocate nothing per record', () => {
  it('walking and filtering ~3M records causes (almost) no young-generation GC', async () => {
    const store = await openTiny({
      memory: 32 << 20,
      pageSize: 1 << 20,
      segmentSize: 64 << 20,
      indexBuckets: 1 << 16,
    });
    const key = Buffer.alloc(12);
    const value = Buffer.alloc(8, 1);
    for (let i = 0; i < 150_000; i++) {
      key.write(`key:${String(i).padStart(8, '0')}`, 'latin1');
      const r = store.upsert(key, value);
      if (r.status === 'pending') await r.pending;
    }
    expect(store.log.head).toBe(store.log.begin);
    const it = new LogIterator(store.log);
    const scanner = new KeyScanner(store);
    let sum = 0;
    const pass = async (): Promise<void> => {
      await it.iterate({
        from: store.log.begin,
        onRecord: (rec, off) => {
          sum += rec.bytes[keyOffsetOf(rec, off) + keyLengthOf(rec, off) - 1]!;
          return true;
        },
      });
      // A MATCH that rejects every record: one call visits them all.
      const r = await scanner.scan(0, { match: 'nomatch:*', count: 20_000 });
      expect(r.keys).toHaveLength(0);
    };
    await pass();
    const gcs = await minorGcs(async () => {
      for (let i = 0; i < 10; i++) await pass();
    });
    // 3M records; 48 bytes per record would be ~140 MB of garbage (many scavenges).
    expect(gcs).toBeLessThanOrEqual(2);
    expect(sum).toBeGreaterThan(0);
    await it.close();
    await scanner.close();
    await store.close();
  });
});
