import {
  byteAt,
  HLL_DENSE,
  HLL_HDR_SIZE,
  HLL_Q,
  HLL_REGISTERS,
  isXzeroOp,
  isZeroOp,
  valLen,
  valValue,
  xzeroLen,
  zeroLen,
} from './hll-encoding.js';

/**
 * Redis's cardinality estimate (hllCount, Redis 5 and later): the register
 * histogram, then Otmar Ertl's improved raw estimator ("New cardinality
 * estimation algorithms for HyperLogLog sketches", arXiv:1702.01284) with
 * his sigma and tau corrections, computed in the same order of double
 * operations as Redis so the estimate is the same integer.
 */

/** HLL_ALPHA_INF, 0.5 / ln(2): Redis's 0.721347520444481703680 as a double. */
const ALPHA_INF = 0.7213475204444817;

/** Ertl's sigma. */
export function hllSigma(x: number): number {
  if (x === 1) return Number.POSITIVE_INFINITY;
  let zPrime: number;
  let y = 1;
  let z = x;
  let v = x;
  do {
    v *= v;
    zPrime = z;
    z += v * y;
    y += y;
  } while (zPrime !== z);
  return z;
}

/** Ertl's tau. */
export function hllTau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let zPrime: number;
  let y = 1.0;
  let z = 1 - x;
  let v = x;
  do {
    v = Math.sqrt(v);
    zPrime = z;
    y *= 0.5;
    // pow(1 - v, 2) is the correctly rounded square, as this product is.
    const d = 1 - v;
    z -= d * d * y;
  } while (zPrime !== z);
  return z / 3;
}

/** The estimate from a register histogram (`histo[v]`: how many registers hold v). */
export function estimateFromHistogram(histo: Int32Array): number {
  const m = HLL_REGISTERS;
  let z = m * hllTau((m - histo[HLL_Q + 1]!) / m);
  for (let j = HLL_Q; j >= 1; --j) {
    z += histo[j]!;
    z *= 0.5;
  }
  z += m * hllSigma(histo[0]! / m);
  // llroundl: halves away from zero (the value is never negative).
  return Math.round((ALPHA_INF * m * m) / z);
}

/** hllDenseRegHisto: 16 registers from every 12 bytes, as Redis's unrolled loop. */
function denseHistogram(b: Uint8Array, off: number, histo: Int32Array): void {
  let r = off;
  for (let j = 0; j < HLL_REGISTERS / 16; j++) {
    for (let k = 0; k < 4; k++, r += 3) {
      const b0 = b[r]!;
      const b1 = b[r + 1]!;
      const b2 = b[r + 2]!;
      histo[b0 & 63]!++;
      histo[((b0 >> 6) | (b1 << 2)) & 63]!++;
      histo[((b1 >> 4) | (b2 << 4)) & 63]!++;
      histo[(b2 >> 2) & 63]!++;
    }
  }
}

/** hllSparseRegHisto: false when the opcodes do not cover exactly the 16384 registers. */
function sparseHistogram(b: Uint8Array, off: number, end: number, histo: Int32Array): boolean {
  let idx = 0;
  let p = off;
  while (p < end) {
    const op = b[p]!;
    if (isZeroOp(op)) {
      const n = zeroLen(op);
      idx += n;
      histo[0]! += n;
      p++;
    } else if (isXzeroOp(op)) {
      const n = xzeroLen(op, byteAt(b, p + 1, end));
      idx += n;
      histo[0]! += n;
      p += 2;
    } else {
      const n = valLen(op);
      idx += n;
      histo[valValue(op)]! += n;
      p++;
    }
  }
  return idx === HLL_REGISTERS;
}

/**
 * hllCount of the HLL value at `b[off, off + len)` (isHll accepted it):
 * the estimate, or -1 when its sparse code is corrupt.
 */
export function hllCount(b: Uint8Array, off: number, len: number): number {
  // Sized 64 as Redis's: a corrupt value's counts land in spare slots, not out of bounds.
  const histo = new Int32Array(64);
  if (b[off + 4] === HLL_DENSE) denseHistogram(b, off + HLL_HDR_SIZE, histo);
  else if (!sparseHistogram(b, off + HLL_HDR_SIZE, off + len, histo)) return -1;
  return estimateFromHistogram(histo);
}

/** hllCount of raw registers (one byte each: PFCOUNT's union of several keys). */
export function hllCountRaw(registers: Uint8Array): number {
  const histo = new Int32Array(64);
  for (let i = 0; i < HLL_REGISTERS; i++) histo[registers[i]!]!++;
  return estimateFromHistogram(histo);
}
