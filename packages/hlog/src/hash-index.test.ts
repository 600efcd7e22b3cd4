import { describe, expect, it } from 'vitest';
import { HashIndex } from './hash-index.js';
import { hashKey } from './key-hash.js';

function keyHash(i: number): number {
  const b = Buffer.alloc(16);
  b.writeUInt32LE(i, 0);
  b.writeUInt32LE(i * 7 + 1, 8);
  return hashKey(b);
}

describe('hash index', () => {
  it('finds, replaces, compare-and-sets and removes entries', () => {
    const idx = new HashIndex({ initialBuckets: 16 });
    const h = keyHash(1);
    expect(idx.find(h)).toBe(0);
    idx.upsert(h, 64);
    expect(idx.find(h)).toBe(64);
    expect(idx.compareAndSet(h, 65, 128)).toBe(false);
    expect(idx.compareAndSet(h, 64, 2 ** 47 + 8)).toBe(true);
    expect(idx.find(h)).toBe(2 ** 47 + 8);
    expect(idx.compareAndSet(keyHash(2), 0, 72)).toBe(true);
    expect(idx.size).toBe(2);
    expect(idx.remove(h, 64)).toBe(false);
    expect(idx.remove(h, 2 ** 47 + 8)).toBe(true);
    expect(idx.find(h)).toBe(0);
    expect(idx.size).toBe(1);
  });

  it('grows online by splitting buckets and keeps every entry', () => {
    const idx = new HashIndex({ initialBuckets: 16 });
    const model = new Map<number, number>();
    const n = 60_000;
    for (let i = 1; i <= n; i++) {
      const h = keyHash(i);
      const a = i * 8 + 32;
      idx.upsert(h, a);
      // Tag-sharing keys share an entry: the newest address wins.
      const key = idx.bucketOf(h) * 65536 + idx.tagOf(h);
      model.set(key, a);
    }
    const st = idx.stats();
    expect(st.buckets).toBeGreaterThan(n / 6);
    expect(st.entries).toBeGreaterThan(n * 0.9);
    let missing = 0;
    for (let i = 1; i <= n; i++) {
      const a = idx.find(keyHash(i));
      if (a === 0) missing++;
    }
    expect(missing).toBe(0);
    // Each key's entry is the newest address among keys sharing its tag.
    for (let i = 1; i <= n; i += 97) {
      expect(idx.find(keyHash(i))).toBeGreaterThanOrEqual(i * 8 + 32);
    }
    expect(st.overflowRate).toBeLessThan(0.5);
  });

  // 8 bytes per entry and 4 per access word (Redis's 24-bit LRU/LFU field,
  // access-clock.ts), at about 5.5 entries per 7-slot bucket.
  it('stays under 22 bytes per entry at scale', () => {
    const idx = new HashIndex({ initialBuckets: 1 << 12 });
    const n = 400_000;
    for (let i = 1; i <= n; i++) idx.upsert(keyHash(i), i * 8 + 32);
    const st = idx.stats();
    expect(st.bytes / st.entries).toBeLessThanOrEqual(22);
  });

  it('grows incrementally: at most one bucket split per insert', () => {
    // The bound behind "no pause while growing": each insert does O(one
    // bucket chain) of growth work, never a rehash of the table. (Wall-clock
    // pauses are measured by the hlog-load bench, not asserted on a shared CI box.)
    const idx = new HashIndex({ initialBuckets: 1 << 10 });
    let buckets = idx.buckets;
    let maxStep = 0;
    for (let i = 1; i <= 1_000_000; i++) {
      idx.upsert(keyHash(i), i * 8 + 32);
      const now = idx.buckets;
      maxStep = Math.max(maxStep, now - buckets);
      buckets = now;
    }
    expect(maxStep).toBe(1);
    expect(idx.size).toBeGreaterThan(990_000);
    expect(buckets).toBeGreaterThan(1 << 17);
    expect(idx.stats().bytes / idx.size).toBeLessThanOrEqual(22);
  });

  it('visits every entry and round-trips through a snapshot', () => {
    const idx = new HashIndex({ initialBuckets: 16 });
    for (let i = 1; i <= 5000; i++) idx.upsert(keyHash(i), i * 8 + 32);
    const seen = new Set<number>();
    let cursor = 0;
    do {
      cursor = idx.visitBuckets(cursor, 100, (a) => seen.add(a));
    } while (cursor !== 0);
    expect(seen.size).toBe(idx.size);
    const parts = idx.snapshot();
    const bytes = Buffer.concat(parts);
    const copy = HashIndex.fromSnapshot(bytes);
    expect(copy.size).toBe(idx.size);
    for (let i = 1; i <= 5000; i++) expect(copy.find(keyHash(i))).toBe(idx.find(keyHash(i)));
    copy.upsert(keyHash(9999), 8);
    expect(copy.find(keyHash(9999))).toBe(8);
    expect(() => HashIndex.fromSnapshot(bytes.subarray(0, 100))).toThrow(/corrupt/);
  });

  it('reserve + insertBatch (the rebuild) give the index upsert gives', () => {
    // Hash collisions on purpose (i % 30_000): later records of a hash win.
    const n = 100_000;
    const hashes = new Float64Array(n);
    const addresses = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      hashes[i] = keyHash(i % 30_000);
      addresses[i] = i * 8 + 32;
    }
    const byUpsert = new HashIndex({ initialBuckets: 16 });
    for (let i = 0; i < n; i++) byUpsert.upsert(hashes[i]!, addresses[i]!);
    for (const reserve of [0, 10_000, 30_000, 200_000]) {
      const bulk = new HashIndex({ initialBuckets: 16 });
      bulk.reserve(reserve);
      if (reserve > 0) expect(bulk.buckets * 5.5).toBeGreaterThanOrEqual(reserve);
      // Two batches, as the rebuilder feeds them.
      bulk.insertBatch(hashes, addresses, n / 2);
      bulk.insertBatch(hashes.subarray(n / 2), addresses.subarray(n / 2), n / 2);
      expect(bulk.size).toBe(byUpsert.size);
      for (let i = 0; i < 30_000; i++)
        expect(bulk.find(keyHash(i))).toBe(byUpsert.find(keyHash(i)));
      bulk.upsert(keyHash(123_456), 8);
      expect(bulk.find(keyHash(123_456))).toBe(8);
    }
  });

  // At 0 the low part holds no bucket (and no overflow bucket): the high part's ids stay.
  it.each([4096, 0])(
    'join: two parts of fixed geometry, each with its own buckets, make the one index (cut at %i)',
    (at) => {
      // Reserved for far fewer entries than inserted: with splits off, chains
      // grow overflow buckets in both parts (the high part's are renumbered).
      const n = 120_000;
      const hashes = new Float64Array(n);
      const addresses = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        hashes[i] = keyHash(i % 50_000);
        addresses[i] = i * 8 + 32;
      }
      const byUpsert = new HashIndex({ initialBuckets: 16 });
      for (let i = 0; i < n; i++) byUpsert.upsert(hashes[i]!, addresses[i]!);
      const part = (from: number, to: number): HashIndex => {
        const p = new HashIndex({ initialBuckets: 16, part: { from, to } });
        p.reserve(5.5 * 3 * 4096);
        return p;
      };
      const low = part(0, at);
      const high = part(at, Number.POSITIVE_INFINITY);
      for (let i = 0; i < n; i++) {
        const into = low.bucketOf(hashes[i]!) < at ? low : high;
        into.insertBatch(hashes.subarray(i, i + 1), addresses.subarray(i, i + 1), 1, true);
      }
      expect(low.stats().overflowBuckets > 0).toBe(at > 0);
      expect(high.stats().overflowBuckets).toBeGreaterThan(0);
      // Not split while building: the buckets stayed where they were reserved.
      expect(low.buckets).toBe(3 * 4096);
      const joined = HashIndex.join(low, high, at)!;
      expect(joined.size).toBe(byUpsert.size);
      for (let i = 0; i < 50_000; i++)
        expect(joined.find(keyHash(i))).toBe(byUpsert.find(keyHash(i)));
      // Grown afterwards, it still finds everything, and takes new entries
      // (overflow buckets from the free ids between the parts, or new ones).
      joined.reserve(joined.size);
      expect(joined.buckets * 5.5).toBeGreaterThanOrEqual(joined.size);
      for (let i = 0; i < 50_000; i++)
        expect(joined.find(keyHash(i))).toBe(byUpsert.find(keyHash(i)));
      for (let i = 50_000; i < 60_000; i++) {
        joined.upsert(keyHash(i), i * 8);
        byUpsert.upsert(keyHash(i), i * 8);
      }
      expect(joined.size).toBe(byUpsert.size);
      for (let i = 0; i < 60_000; i++)
        expect(joined.find(keyHash(i))).toBe(byUpsert.find(keyHash(i)));
      // And survives a snapshot.
      const copy = HashIndex.fromSnapshot(Buffer.concat(joined.snapshot()));
      for (let i = 0; i < 60_000; i += 7)
        expect(copy.find(keyHash(i))).toBe(joined.find(keyHash(i)));
    },
  );

  it('join refuses parts of different geometry', () => {
    const a = new HashIndex({ initialBuckets: 4096 });
    const b = new HashIndex({ initialBuckets: 8192 });
    expect(HashIndex.join(a, b, 4096)).toBeNull();
    expect(HashIndex.join(a, new HashIndex({ initialBuckets: 4096 }), 100)).toBeNull();
  });
});
