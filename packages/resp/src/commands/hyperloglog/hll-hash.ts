/**
 * The element hash of Redis's HyperLogLog: MurmurHash64A (MurmurHash2, 64
 * bit, endian neutral as Redis modified it) with Redis's seed, and
 * hllPatLen, which turns a hash into a register index and the length of
 * its 000..1 pattern. The 64-bit arithmetic is done on two 32-bit halves:
 * BigInt would allocate on every element.
 */

/** The seed hllPatLen passes to MurmurHash64A (src/hyperloglog.c). */
export const HLL_HASH_SEED = 0xadc83b19;

// m = 0xc6a4a7935bd1e995, in halves.
const M_HI = 0xc6a4a793;
const M_LO = 0x5bd1e995;

// The result of mul64 (no allocation per multiply).
let outHi = 0;
let outLo = 0;

/** (aHi:aLo * bHi:bLo) mod 2^64 into outHi:outLo, all halves unsigned 32-bit. */
function mul64(aHi: number, aLo: number, bHi: number, bLo: number): void {
  // The low halves' full 64-bit product, from 16-bit pieces (each product
  // below 2^32, so exact in a double).
  const a0 = aLo & 0xffff;
  const a1 = aLo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const mid = a0 * b1 + a1 * b0;
  const lo = a0 * b0 + (mid % 0x10000) * 0x10000;
  const hi = a1 * b1 + Math.floor(mid / 0x10000) + Math.floor(lo / 0x100000000);
  // The cross terms only reach the high half (mod 2^32).
  outHi = (hi + Math.imul(aHi, bLo) + Math.imul(aLo, bHi)) >>> 0;
  outLo = lo >>> 0;
}

/** MurmurHash64A of `data[off, off + len)` into outHi:outLo (read at once: the next call reuses them). */
function murmur(data: Uint8Array, off: number, len: number, seed: number): void {
  // h = seed ^ (len * m)
  mul64(0, len >>> 0, M_HI, M_LO);
  let hHi = outHi;
  let hLo = (outLo ^ seed) >>> 0;
  const tail = len & 7;
  const end = off + len - tail;
  let p = off;
  while (p !== end) {
    let kLo = (data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24)) >>> 0;
    let kHi =
      (data[p + 4]! | (data[p + 5]! << 8) | (data[p + 6]! << 16) | (data[p + 7]! << 24)) >>> 0;
    mul64(kHi, kLo, M_HI, M_LO);
    // k ^= k >> 47: only the high half's top 17 bits land in the low half.
    kHi = outHi;
    kLo = (outLo ^ (outHi >>> 15)) >>> 0;
    mul64(kHi, kLo, M_HI, M_LO);
    hHi = (hHi ^ outHi) >>> 0;
    hLo = (hLo ^ outLo) >>> 0;
    mul64(hHi, hLo, M_HI, M_LO);
    hHi = outHi;
    hLo = outLo;
    p += 8;
  }
  if (tail !== 0) {
    // The C switch falls through from case 7 down to case 1, then multiplies.
    for (let i = tail - 1; i >= 0; i--) {
      const b = data[p + i]!;
      if (i >= 4) hHi = (hHi ^ (b << ((i - 4) * 8))) >>> 0;
      else hLo = (hLo ^ (b << (i * 8))) >>> 0;
    }
    mul64(hHi, hLo, M_HI, M_LO);
    hHi = outHi;
    hLo = outLo;
  }
  // h ^= h >> 47; h *= m; h ^= h >> 47
  hLo = (hLo ^ (hHi >>> 15)) >>> 0;
  mul64(hHi, hLo, M_HI, M_LO);
  outLo = (outLo ^ (outHi >>> 15)) >>> 0;
}

/** MurmurHash64A as a bigint (tests, and anything off the hot path). */
export function murmurHash64A(data: Uint8Array, seed = HLL_HASH_SEED): bigint {
  murmur(data, 0, data.length, seed >>> 0);
  return (BigInt(outHi) << 32n) | BigInt(outLo);
}

/** Registers: 2^14 (HLL_P = 14). */
const P = 14;
const P_MASK = (1 << P) - 1;

/**
 * Redis's hllPatLen for `data[off, off + len)`: the register index (the
 * hash's low 14 bits) and the pattern length (1 + the trailing zeros of the
 * other 50 bits, with bit 50 set so that it is at most 51), packed as
 * `count * 16384 + index` so the hot path allocates nothing.
 */
export function hllPatLen(data: Uint8Array, off = 0, len = data.length): number {
  murmur(data, off, len, HLL_HASH_SEED);
  const index = outLo & P_MASK;
  // hash >>= 14; hash |= 1 << 50
  const lo = ((outLo >>> P) | (outHi << (32 - P))) >>> 0;
  const hi = (outHi >>> P) | (1 << (50 - 32));
  const zeros = lo !== 0 ? 31 - Math.clz32(lo & -lo) : 32 + 31 - Math.clz32(hi & -hi);
  return (zeros + 1) * (P_MASK + 1) + index;
}

/** The register index of a packed hllPatLen result. */
export const patIndex = (packed: number): number => packed & P_MASK;
/** The pattern length of a packed hllPatLen result. */
export const patCount = (packed: number): number => Math.floor(packed / (P_MASK + 1));
