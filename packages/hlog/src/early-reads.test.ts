import { MemoryDevice } from '@strata/io';
import { expect, it } from 'vitest';
import { EARLY_READS_MAX } from './early-reads.js';
import { StoreCore } from './store.js';

const k = (i: number) => Buffer.from(`key:${String(i).padStart(12, '0')}`);
const value = (i: number) => `v${i}-${'x'.repeat(40)}`;

/** A store whose first `n` keys were pushed out to the device by later ones. */
async function storeOnDisk(n: number): Promise<StoreCore> {
  const device = new MemoryDevice({ segmentSize: 1 << 20 });
  const s = new StoreCore({ device, memory: 8192, pageSize: 2048, indexBuckets: 1024 });
  for (let i = 0; i < n + 400; i++) {
    const v = s.upsert(k(i), Buffer.from(value(i)));
    if (v.status === 'pending') await v.pending;
  }
  return s;
}

/** Reads key `i` and returns its value as the store gives it (through the device or not). */
async function readValue(s: StoreCore, i: number): Promise<string> {
  const v = s.read(k(i));
  if (v.status === 'found') return v.bytes.toString('latin1', v.offset, v.offset + v.length);
  if (v.status === 'notFound') return 'notFound';
  const r = await v.pending;
  return r.status === 'found' ? r.value.toString('latin1') : r.status;
}

it("a pipelined run's keys on the device are read together by prefetch, once each", async () => {
  const s = await storeOnDisk(16);
  const keys = Array.from({ length: 16 }, (_, i) => k(i));
  const reads0 = s.counters.diskReads;
  s.prefetch(keys, keys.length);
  // All 16 first reads are on their way before any GET of the run runs.
  expect(s.counters.diskReads - reads0).toBe(16);
  for (let i = 0; i < 16; i++) expect(await readValue(s, i)).toBe(value(i));
  // Each GET took its key's read: no second read of any record.
  expect(s.counters.diskReads - reads0).toBe(16);
});

it('a read started early serves the newest value: a key written meanwhile is read from memory', async () => {
  const s = await storeOnDisk(4);
  s.prefetch([k(0), k(1)], 2);
  const w = s.upsert(k(0), Buffer.from('new'));
  if (w.status === 'pending') await w.pending;
  expect(await readValue(s, 0)).toBe('new');
  expect(await readValue(s, 1)).toBe(value(1));
});

it('keeps at most EARLY_READS_MAX reads; the forgotten ones are read again when wanted', async () => {
  const n = EARLY_READS_MAX + 64;
  const s = await storeOnDisk(n);
  for (let from = 0; from < n; from += 64) {
    const keys = Array.from({ length: Math.min(64, n - from) }, (_, i) => k(from + i));
    s.prefetch(keys, keys.length);
  }
  for (let i = 0; i < n; i++) expect(await readValue(s, i)).toBe(value(i));
});
