import { MemoryDevice } from '@strata/io';
import { expect, it } from 'vitest';
import { StoreCore } from './store.js';

const k = (i: number) => Buffer.from(`key:${String(i).padStart(12, '0')}`);

/** Every key's read: its value, `notFound`, or `disk:` and the value read from the device. */
async function snapshot(s: StoreCore, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const v = s.read(k(i));
    if (v.status === 'found') out.push(v.bytes.toString('latin1', v.offset, v.offset + v.length));
    else if (v.status === 'notFound') out.push('notFound');
    else {
      const r = await v.pending;
      out.push(r.status === 'found' ? `disk:${r.value.toString('latin1')}` : `disk:${r.status}`);
    }
  }
  return out;
}

it('prefetch changes nothing: keys in memory, on the device, missing, deleted, more than 64', async () => {
  const device = new MemoryDevice({ segmentSize: 1 << 16 });
  const s = new StoreCore({ device, memory: 4096, pageSize: 1024, indexBuckets: 16 });
  const n = 200;
  for (let i = 0; i < n; i += 2) {
    const v = s.upsert(k(i), Buffer.from(`v${i}-${'x'.repeat(i % 80)}`));
    if (v.status === 'pending') await v.pending;
  }
  for (let i = 0; i < n; i += 10) {
    const v = s.remove(k(i));
    if (v.status === 'pending') await v.pending;
  }
  const before = await snapshot(s, n);
  // Most records were pushed out of the small memory; some keys are missing.
  expect(before.filter((v) => v.startsWith('disk:v')).length).toBeGreaterThan(0);
  expect(before.filter((v) => v.startsWith('v')).length).toBeGreaterThan(0);
  expect(before.filter((v) => v.endsWith('notFound')).length).toBeGreaterThan(100);
  const stats = JSON.stringify(s.coreStats().index);
  const tail = s.log.tail;
  const keys = Array.from({ length: n }, (_, i) => k(i));
  s.prefetch(keys, keys.length);
  s.prefetch(keys.slice(150), 3);
  s.prefetch([], 0);
  expect(JSON.stringify(s.coreStats().index)).toBe(stats);
  expect(s.log.tail).toBe(tail);
  expect(await snapshot(s, n)).toEqual(before);
});
