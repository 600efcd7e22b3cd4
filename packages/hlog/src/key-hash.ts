/**
 * A 48-bit key hash over bytes, computed with 32-bit integer math and no
 * allocation: murmur3's x86_32 body gives the low 32 bits, a second
 * finalisation of the same state 16 more. (The index takes bucket bits
 * from the bottom and tag bits right above its initial bucket bits, so at
 * the default size both come from the low 32.) 48 bits fit a double
 * exactly, so the hash travels as a plain number.
 */

const TWO_32 = 2 ** 32;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of `bytes[offset, offset + length)`: an integer in [0, 2^48). */
export function hashBytes(bytes: Uint8Array, offset: number, length: number): number {
  let h1 = 0x9747b28c ^ length;
  const end4 = offset + (length & ~3);
  let i = offset;
  for (; i < end4; i += 4) {
    const k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    let k1 = Math.imul(k, 0xcc9e2d51);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, 0x1b873593);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  const rest = length & 3;
  if (rest !== 0) {
    let k = bytes[i]!;
    if (rest > 1) k |= bytes[i + 1]! << 8;
    if (rest > 2) k |= bytes[i + 2]! << 16;
    let k1 = Math.imul(k, 0xcc9e2d51);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, 0x1b873593);
    h1 ^= k1;
  }
  const lo = fmix32(h1 ^ length);
  const hi = fmix32((h1 ^ 0x5bd1e995) + lo) & 0xffff;
  return lo + hi * TWO_32;
}

export function hashKey(key: Uint8Array): number {
  return hashBytes(key, 0, key.length);
}
