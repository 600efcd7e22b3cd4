import { describe, expect, it } from 'vitest';
import { HashIndex } from './hash-index.js';
import { hashKey } from './key-hash.js';

function keyHash(i: number): number {
  const b = Buffer.alloc(16);
  b.writeUInt32LE(i, 0);
  b.writeUInt32LE(i * 7 + 1, 8);
  return hashKey(b);
}

const N = 300_000;

/** An index of `n` keys from 16 buckets: many splits, overflow chains. */
function filled(n: number): HashIndex {
  const idx = new HashIndex({ initialBuckets: 16 });
  for (let i = 1; i <= n; i++) idx.upsert(keyHash(i), i * 8 + 64);
  return idx;
}

describe('copy-on-write index snapshot', () => {
  it('is the index of its start, byte for byte, whatever changes during the copy', () => {
    const idx = filled(N);
    const reference = Buffer.concat(idx.snapshot());
    const before = new Map<number, number>();
    for (let i = 1; i <= N + 10_000; i++) before.set(i, idx.find(keyHash(i)));
    const size = idx.size;

    const snap = idx.beginSnapshot();
    let step = 0;
    // One small slice at a time, and between slices every kind of write:
    // replaced entries, new ones (which split buckets and grow chunks),
    // removals (which unlink overflow buckets) and a sweep.
    while (!snap.copySome(1)) {
      step++;
      // One write per slice, of each kind in turn.
      const i = 1 + ((step * 7919) % N);
      switch (step % 4) {
        case 0:
          idx.upsert(keyHash(i), i * 8 + 1_000_000);
          break;
        case 1:
          // New keys: splits, new chunks, new overflow buckets.
          for (let j = 0; j < 2; j++) idx.upsert(keyHash(N + step * 2 + j), 5_000_000 + j * 8);
          break;
        case 2:
          idx.remove(keyHash(i), idx.find(keyHash(i)));
          break;
        default:
          idx.sweepBuckets(i % idx.buckets, 4, (a) => a % 3 === 0);
      }
    }
    expect(step).toBeGreaterThan(3);
    const bytes = Buffer.concat(snap.parts());
    expect(bytes.equals(reference)).toBe(true);

    const restored = HashIndex.fromSnapshot(bytes);
    expect(restored.size).toBe(size);
    for (const [i, address] of before) expect(restored.find(keyHash(i))).toBe(address);
    // The live index kept its own changes.
    expect(idx.find(keyHash(N + 2))).toBe(5_000_000);
  });

  it('stops preserving once released, and a new snapshot can start', () => {
    const idx = filled(20_000);
    const snap = idx.beginSnapshot();
    expect(() => idx.beginSnapshot()).toThrow(/already/);
    snap.copySome(1);
    snap.release();
    idx.upsert(keyHash(1), 8);
    expect(() => snap.parts()).toThrow(/before its copy completed/);
    // The one error model: a StrataError with its code.
    expect(() => snap.parts()).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }));
    const again = idx.snapshot();
    expect(HashIndex.fromSnapshot(Buffer.concat(again)).find(keyHash(1))).toBe(8);
  });
});
