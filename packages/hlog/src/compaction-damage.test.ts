import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CorruptRecordError } from './errors.js';
import { Store, type StoreOptions } from './hlog-store.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const options: Partial<StoreOptions> = {
  memory: 4096,
  pageSize: 1024,
  segmentSize: 4096,
  indexBuckets: 256,
  expiry: false,
  compaction: false,
  logger: { warn: () => {} },
};

const k = (i: number) => Buffer.from(`key${i}`);
const v = (i: number) => Buffer.from(`value-${i}-${'#'.repeat(i % 40)}`);

describe('compaction over a damaged page', () => {
  it('stops before it, compacts what lies below, keeps it and all after; no key is lost silently', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hlog-compact-damage-'));
    dirs.push(dir);
    const n = 300;
    const s0 = await Store.open({ dir, ...options });
    for (let i = 0; i < n; i++) await s0.set(k(i), v(i));
    await s0.close();
    // One byte in the second page of segment 1 (log address 5120 + 200).
    const f = await open(join(dir, 'log.1'), 'r+');
    const b = Buffer.alloc(1);
    await f.read(b, 0, 1, 1024 + 200);
    b[0] = b[0]! ^ 0x01;
    await f.write(b, 0, 1, 1024 + 200);
    await f.close();

    const s = await Store.open({ dir, ...options });
    const r = await s.compact();
    expect(r.damagedAt).toBe(5120);
    expect(r.until).toBe(5120);
    expect(s.log.begin).toBe(5120);
    expect(s.damage.pages).toBe(1);
    let right = 0;
    let reported = 0;
    for (let i = 0; i < n; i++) {
      try {
        const got = await s.get(k(i));
        // Never missing (an entry dropped) nor another value (an older version).
        expect(got.status === 'found' && got.value.equals(v(i)), `key${i}`).toBe(true);
        right++;
      } catch (e) {
        expect(e).toBeInstanceOf(CorruptRecordError);
        reported++;
      }
    }
    expect(reported).toBeGreaterThan(0);
    expect(right + reported).toBe(n);
    // A second run stops at the same page and drops nothing more.
    const again = await s.compact();
    expect(again.damagedAt).toBe(5120);
    expect(s.log.begin).toBe(5120);
    await s.close();
  });
});
