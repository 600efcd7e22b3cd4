import { describe, expect, test } from 'vitest';
import { hllCount, hllCountRaw, hllSigma, hllTau } from './hll-count.js';
import {
  cachedCardinality,
  decodeSparse,
  denseGet,
  denseSetRegister,
  HLL_DENSE,
  HLL_DENSE_SIZE,
  HLL_HDR_SIZE,
  HLL_REGISTERS,
  HLL_SPARSE,
  HllValue,
  isHll,
  mergeInto,
} from './hll-encoding.js';
import { HLL_HASH_SEED, hllPatLen, murmurHash64A, patCount, patIndex } from './hll-hash.js';

const hex = (h: string) => Buffer.from(h.replace(/\s+/g, ''), 'hex');
const M = 0xc6a4a7935bd1e995n;
const MASK = (1n << 64n) - 1n;

/** MurmurHash64A straight from Redis's C, in bigints: the reference for the 32-bit halves. */
function referenceMurmur(data: Uint8Array, seed: bigint): bigint {
  const len = data.length;
  let h = (seed ^ (BigInt(len) * M)) & MASK;
  const tail = len & 7;
  let p = 0;
  for (; p < len - tail; p += 8) {
    let k = 0n;
    for (let i = 7; i >= 0; i--) k = (k << 8n) | BigInt(data[p + i]!);
    k = (k * M) & MASK;
    k ^= k >> 47n;
    k = (k * M) & MASK;
    h ^= k;
    h = (h * M) & MASK;
  }
  if (tail > 0) {
    for (let i = tail - 1; i >= 0; i--) h ^= BigInt(data[p + i]!) << BigInt(8 * i);
    h = (h * M) & MASK;
  }
  h ^= h >> 47n;
  h = (h * M) & MASK;
  h ^= h >> 47n;
  return h;
}

/** A seeded pseudo-random byte source (the test is the same every run). */
function bytes(seed: number, n: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

/** The sparse opcodes of a value, as PFDEBUG DECODE prints them. */
const decode = (v: HllValue) => decodeSparse(v.bytes, 0, v.length);

/** Redis 7.0's PFADD k a b c (GET before any PFCOUNT). */
const REDIS_ABC = hex('48594c4c01000000 0000000000000080 60f38050b1844bfb80425a');

describe('the element hash', () => {
  test('MurmurHash64A on 32-bit halves equals the 64-bit C arithmetic', () => {
    for (let len = 0; len <= 40; len++) {
      for (let s = 1; s <= 8; s++) {
        const data = bytes(len * 31 + s, len);
        expect(murmurHash64A(data)).toBe(referenceMurmur(data, BigInt(HLL_HASH_SEED)));
        expect(murmurHash64A(data, 0)).toBe(referenceMurmur(data, 0n));
      }
    }
    const big = bytes(99, 5000);
    expect(murmurHash64A(big)).toBe(referenceMurmur(big, BigInt(HLL_HASH_SEED)));
  });

  test("hllPatLen: Redis's registers for a, b and c", () => {
    // From redis-server: PFADD k a b c decodes as Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603.
    const pat = (s: string) => {
      const p = hllPatLen(Buffer.from(s));
      return [patIndex(p), patCount(p)];
    };
    expect(pat('c')).toEqual([8436, 1]);
    expect(pat('a')).toEqual([12711, 2]);
    expect(pat('b')).toEqual([15780, 1]);
  });

  test('the pattern length is the trailing zeros above the index bits, plus 1, at most 51', () => {
    for (let s = 0; s < 2000; s++) {
      const data = bytes(s, 1 + (s % 20));
      const h = referenceMurmur(data, BigInt(HLL_HASH_SEED));
      let rest = (h >> 14n) | (1n << 50n);
      let count = 1;
      while ((rest & 1n) === 0n) {
        count++;
        rest >>= 1n;
      }
      const p = hllPatLen(data);
      expect(patIndex(p)).toBe(Number(h & 16383n));
      expect(patCount(p)).toBe(count);
    }
  });
});

describe('the sparse and dense encodings', () => {
  test("an empty HLL is Redis's createHLLObject: XZERO:16384, cardinality 0 and valid", () => {
    const v = HllValue.empty();
    expect(v.view()).toEqual(hex('48594c4c01000000 0000000000000000 7fff'));
    expect(decode(v)).toBe('Z:16384');
    expect(cachedCardinality(v.bytes, 0)).toBe(0);
  });

  test("PFADD's bytes are Redis's", () => {
    const v = HllValue.empty();
    for (const e of ['a', 'b', 'c']) expect(v.add(Buffer.from(e), 3000)).toBe(1);
    expect(v.add(Buffer.from('a'), 3000)).toBe(0);
    expect(v.view()).toEqual(REDIS_ABC);
    expect(hllCount(v.bytes, 0, v.length)).toBe(3);
  });

  test('opcode splits and merges', () => {
    const v = HllValue.empty();
    v.invalidateCache();
    // XZERO split in three, then a ZERO of 1 becomes a VAL, and equal VALs merge.
    expect(v.set(100, 3, 3000)).toBe(1);
    expect(decode(v)).toBe('Z:100 v:3,1 Z:16283');
    expect(v.set(102, 3, 3000)).toBe(1);
    expect(decode(v)).toBe('Z:100 v:3,1 z:1 v:3,1 Z:16281');
    expect(v.set(101, 3, 3000)).toBe(1);
    expect(decode(v)).toBe('Z:100 v:3,3 Z:16281');
    // A lower count changes nothing; a higher one splits the VAL run.
    expect(v.set(101, 2, 3000)).toBe(0);
    expect(v.set(101, 5, 3000)).toBe(1);
    expect(decode(v)).toBe('Z:100 v:3,1 v:5,1 v:3,1 Z:16281');
    expect(v.set(0, 1, 3000)).toBe(1);
    expect(decode(v)).toBe('v:1,1 Z:99 v:3,1 v:5,1 v:3,1 Z:16281');
    expect(v.set(16383, 1, 3000)).toBe(1);
    expect(decode(v)).toBe('v:1,1 Z:99 v:3,1 v:5,1 v:3,1 Z:16280 v:1,1');
    expect(v.encoding).toBe(HLL_SPARSE);
    expect(v.bytes[v.length]).toBe(0);
  });

  test('a sparse value turns dense past the size limit, or for a count above 32', () => {
    const v = HllValue.empty();
    let i = 0;
    while (v.encoding === HLL_SPARSE) v.set((i++ * 97) % HLL_REGISTERS, 1 + (i % 5), 40);
    expect(v.length).toBe(HLL_DENSE_SIZE);
    expect(i).toBeLessThan(20);
    for (let j = 0; j < i; j++)
      expect(v.denseGet((j * 97) % HLL_REGISTERS)).toBe(1 + ((j + 1) % 5));

    const w = HllValue.empty();
    w.set(7, 3, 3000);
    expect(w.set(5, 40, 3000)).toBe(1);
    expect(w.encoding).toBe(HLL_DENSE);
    expect([w.denseGet(4), w.denseGet(5), w.denseGet(6), w.denseGet(7)]).toEqual([0, 40, 0, 3]);
    expect(isHll(w.bytes, 0, w.length)).toBe(true);
  });

  test('dense registers keep their values and leave their neighbours alone', () => {
    const b = Buffer.alloc(HLL_DENSE_SIZE + 1);
    const want = new Uint8Array(HLL_REGISTERS);
    const r = bytes(7, HLL_REGISTERS);
    for (let i = 0; i < HLL_REGISTERS; i++) {
      want[i] = r[i]! & 63;
      denseSetRegister(b, HLL_HDR_SIZE, i, want[i]!);
    }
    for (let i = HLL_REGISTERS - 1; i >= 0; i -= 3) {
      want[i] = 63 - want[i]!;
      denseSetRegister(b, HLL_HDR_SIZE, i, want[i]!);
    }
    for (let i = 0; i < HLL_REGISTERS; i++) {
      expect(denseGet(b, HLL_HDR_SIZE, HLL_DENSE_SIZE, i)).toBe(want[i]);
    }
    // The byte past the last register is never changed.
    expect(b[HLL_DENSE_SIZE]).toBe(0);
  });

  test('a corrupt sparse code: no dense form, no merge, no count', () => {
    const short = HllValue.copyOf(hex('48594c4c01000000 0000000000000080 00'), 0, 17);
    expect(short.toDense()).toBe(false);
    expect(short.encoding).toBe(HLL_SPARSE);
    expect(hllCount(short.bytes, 0, short.length)).toBe(-1);
    expect(mergeInto(new Uint8Array(HLL_REGISTERS), short.bytes, 0, short.length)).toBe(false);
    // Registers 8000 on are not covered: an add there fails.
    const part = HllValue.copyOf(hex('48594c4c01000000 0000000000000080 5f3f'), 0, 18);
    expect(part.set(7999, 1, 3000)).toBe(1);
    expect(part.set(8000, 1, 3000)).toBe(-1);
    // One VAL past the last register.
    const over = hex('48594c4c01000000 0000000000000080 7ffe 83');
    expect(mergeInto(new Uint8Array(HLL_REGISTERS), over, 0, over.length)).toBe(false);
  });

  test("isHll: Redis's checks of the header", () => {
    const abc = REDIS_ABC;
    expect(isHll(abc, 0, abc.length)).toBe(true);
    expect(isHll(abc, 0, 15)).toBe(false);
    expect(isHll(Buffer.from('hyll0000000000000000'), 0, 20)).toBe(false);
    const enc2 = Buffer.from(abc);
    enc2[4] = 2;
    expect(isHll(enc2, 0, enc2.length)).toBe(false);
    const dense = HllValue.empty();
    expect(dense.toDense()).toBe(true);
    expect(isHll(dense.bytes, 0, HLL_DENSE_SIZE)).toBe(true);
    expect(isHll(dense.bytes, 0, HLL_DENSE_SIZE - 1)).toBe(false);
  });

  test('the cached cardinality: stale bit, little endian, past 2^53', () => {
    const v = HllValue.empty();
    v.setCardinality(1234567);
    expect(cachedCardinality(v.bytes, 0)).toBe(1234567);
    v.invalidateCache();
    expect(cachedCardinality(v.bytes, 0)).toBe(-1);
    const big = Buffer.from(REDIS_ABC);
    big.writeBigUInt64LE(4611686018427387909n, 8);
    expect(cachedCardinality(big, 0)).toBe(4611686018427387909n);
  });
});

describe('the estimate', () => {
  test("Ertl's sigma and tau at their ends", () => {
    expect(hllSigma(1)).toBe(Number.POSITIVE_INFINITY);
    expect(hllSigma(0)).toBe(0);
    expect(hllTau(0)).toBe(0);
    expect(hllTau(1)).toBe(0);
    expect(hllTau(0.5)).toBeGreaterThan(0);
  });

  test("Redis's estimates of crafted dense values", () => {
    // Recorded from redis-server 7.0 (hyperloglog-compat-cases.ts: SET then PFCOUNT).
    const dense = (f: (i: number) => number) => {
      const v = HllValue.empty();
      v.toDense();
      for (let i = 0; i < HLL_REGISTERS; i++) denseSetRegister(v.bytes, HLL_HDR_SIZE, i, f(i));
      return v;
    };
    const a = dense((i) => (i * 7) % 23);
    const b = dense((i) => (i % 3 === 0 ? 0 : i % 50));
    expect(hllCount(a.bytes, 0, a.length)).toBe(132963);
    expect(hllCount(b.bytes, 0, b.length)).toBe(23176);
    expect(hllCount(dense(() => 0).bytes, 0, HLL_DENSE_SIZE)).toBe(0);
    const max = new Uint8Array(HLL_REGISTERS);
    expect(mergeInto(max, a.bytes, 0, a.length)).toBe(true);
    expect(mergeInto(max, b.bytes, 0, b.length)).toBe(true);
    expect(mergeInto(max, REDIS_ABC, 0, REDIS_ABC.length)).toBe(true);
    expect(hllCountRaw(max)).toBe(361100);
  });

  test('dense and sparse agree, within the standard error', () => {
    const sparse = HllValue.empty();
    const dense = HllValue.empty();
    dense.toDense();
    for (let n = 1; n <= 20000; n++) {
      const e = Buffer.from(`element:${n}`);
      sparse.add(e, 3000);
      dense.add(e, 3000);
      if (n % 2500 === 0 || n === 10 || n === 100) {
        const c = hllCount(dense.bytes, 0, dense.length);
        expect(hllCount(sparse.bytes, 0, sparse.length)).toBe(c);
        expect(Math.abs(c - n)).toBeLessThanOrEqual(Math.ceil((1.04 / 128) * 6 * n));
      }
    }
    expect(sparse.encoding).toBe(HLL_DENSE);
    expect(sparse.view().subarray(HLL_HDR_SIZE)).toEqual(dense.view().subarray(HLL_HDR_SIZE));
  });
});
