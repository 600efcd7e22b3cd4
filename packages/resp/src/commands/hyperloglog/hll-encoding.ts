import { hllPatLen, patCount, patIndex } from './hll-hash.js';

/**
 * Redis's HyperLogLog string, byte for byte as src/hyperloglog.c writes it,
 * so that GET of a key shows what Redis would hold and a value SET from
 * Redis reads back here:
 *
 *   "HYLL" | encoding (0 dense, 1 sparse) | 3 unused bytes | cached cardinality
 *
 * The cardinality is 8 bytes little endian; bit 7 of its last byte set means
 * it is stale. Dense: 16384 registers of 6 bits, packed from each byte's
 * least significant bit up. Sparse: a run-length code of ZERO (00xxxxxx,
 * 1-64 zero registers), XZERO (01xxxxxx yyyyyyyy, 1-16384 zero registers)
 * and VAL (1vvvvvxx, 1-4 registers of value 1-32) opcodes.
 */

export const HLL_P = 14;
export const HLL_Q = 64 - HLL_P;
export const HLL_REGISTERS = 1 << HLL_P;
export const HLL_BITS = 6;
export const HLL_REGISTER_MAX = (1 << HLL_BITS) - 1;
export const HLL_HDR_SIZE = 16;
export const HLL_DENSE_SIZE = HLL_HDR_SIZE + ((HLL_REGISTERS * HLL_BITS + 7) >> 3);
export const HLL_DENSE = 0;
export const HLL_SPARSE = 1;
const HLL_MAX_ENCODING = 1;

const CARD_OFFSET = 8;
/** The byte holding the stale bit of the cached cardinality (card[7]). */
const CARD_FLAGS = CARD_OFFSET + 7;

const SPARSE_VAL_MAX_VALUE = 32;
const SPARSE_VAL_MAX_LEN = 4;
const SPARSE_ZERO_MAX_LEN = 64;
const SPARSE_XZERO_MAX_LEN = 16384;

// ---- sparse opcodes (the HLL_SPARSE_* macros) -----------------------------------

export const isZeroOp = (op: number): boolean => (op & 0xc0) === 0;
export const isXzeroOp = (op: number): boolean => (op & 0xc0) === 0x40;
export const isValOp = (op: number): boolean => (op & 0x80) !== 0;
export const zeroLen = (op: number): number => (op & 0x3f) + 1;
/** An XZERO's length from its two bytes (the second one 0 past the value's end, as Redis's terminator). */
export const xzeroLen = (op: number, next: number): number => (((op & 0x3f) << 8) | next) + 1;
export const valValue = (op: number): number => ((op >> 2) & 0x1f) + 1;
export const valLen = (op: number): number => (op & 0x3) + 1;
const valOp = (value: number, len: number): number =>
  (((value - 1) << 2) | (len - 1) | 0x80) & 0xff;
const zeroOp = (len: number): number => len - 1;

/** `b[i]`, or 0 at or past `end`: Redis's strings end with a 0 byte its macros may read. */
export const byteAt = (b: Uint8Array, i: number, end: number): number => (i < end ? b[i]! : 0);

// ---- dense registers (HLL_DENSE_GET_REGISTER / HLL_DENSE_SET_REGISTER) -----------

/** Register `i` of the dense registers at `b[off, end)`. */
export function denseGet(b: Uint8Array, off: number, end: number, i: number): number {
  const byte = off + ((i * HLL_BITS) >> 3);
  const fb = (i * HLL_BITS) & 7;
  return ((b[byte]! >> fb) | (byteAt(b, byte + 1, end) << (8 - fb))) & HLL_REGISTER_MAX;
}

/** Sets register `i` of the dense registers at `b[off, ...)` (`b` must have a byte past them). */
export function denseSetRegister(b: Uint8Array, off: number, i: number, value: number): void {
  const byte = off + ((i * HLL_BITS) >> 3);
  const fb = (i * HLL_BITS) & 7;
  const fb8 = 8 - fb;
  b[byte] = (b[byte]! & ~(HLL_REGISTER_MAX << fb)) | (value << fb);
  b[byte + 1] = (b[byte + 1]! & ~(HLL_REGISTER_MAX >> fb8)) | (value >> fb8);
}

// ---- validation -----------------------------------------------------------------

/**
 * Redis's isHLLObjectOrReply for a string value: the header's magic, a known
 * encoding, and a dense value's exact length. A sparse value's opcodes are
 * checked only by what reads them (INVALIDOBJ then).
 */
export function isHll(b: Uint8Array, off: number, len: number): boolean {
  if (len < HLL_HDR_SIZE) return false;
  if (b[off] !== 0x48 || b[off + 1] !== 0x59 || b[off + 2] !== 0x4c || b[off + 3] !== 0x4c) {
    return false;
  }
  const encoding = b[off + 4]!;
  if (encoding > HLL_MAX_ENCODING) return false;
  return encoding !== HLL_DENSE || len === HLL_DENSE_SIZE;
}

/** The cached cardinality of a value, or -1 when it is stale. */
export function cachedCardinality(b: Uint8Array, off: number): number | bigint {
  if ((b[off + CARD_FLAGS]! & 0x80) !== 0) return -1;
  const lo = (b[off + 8]! | (b[off + 9]! << 8) | (b[off + 10]! << 16) | (b[off + 11]! << 24)) >>> 0;
  const hi =
    (b[off + 12]! | (b[off + 13]! << 8) | (b[off + 14]! << 16) | (b[off + 15]! << 24)) >>> 0;
  // Below 2^53 as a number; Redis can be handed any 63-bit value by SET.
  if (hi < 0x200000) return hi * 0x100000000 + lo;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** PFDEBUG DECODE's text: each opcode as `z:N`, `Z:N` or `v:VALUE,N`, space separated. */
export function decodeSparse(b: Uint8Array, off: number, len: number): string {
  const end = off + len;
  const parts: string[] = [];
  let p = off + HLL_HDR_SIZE;
  while (p < end) {
    const op = b[p]!;
    if (isZeroOp(op)) {
      parts.push(`z:${zeroLen(op)}`);
      p++;
    } else if (isXzeroOp(op)) {
      parts.push(`Z:${xzeroLen(op, byteAt(b, p + 1, end))}`);
      p += 2;
    } else {
      parts.push(`v:${valValue(op)},${valLen(op)}`);
      p++;
    }
  }
  return parts.join(' ');
}

// ---- merging into raw registers (hllMerge) -------------------------------------

/**
 * Raises `max[i]` (one byte per register) to each register of the HLL value
 * at `b[off, off + len)`, which isHll accepted. False when its sparse code
 * does not cover exactly the 16384 registers.
 */
export function mergeInto(max: Uint8Array, b: Uint8Array, off: number, len: number): boolean {
  const end = off + len;
  const regs = off + HLL_HDR_SIZE;
  if (b[off + 4] === HLL_DENSE) {
    for (let i = 0; i < HLL_REGISTERS; i++) {
      const v = denseGet(b, regs, end, i);
      if (v > max[i]!) max[i] = v;
    }
    return true;
  }
  let i = 0;
  let p = regs;
  while (p < end) {
    const op = b[p]!;
    if (isZeroOp(op)) {
      i += zeroLen(op);
      p++;
    } else if (isXzeroOp(op)) {
      i += xzeroLen(op, byteAt(b, p + 1, end));
      p += 2;
    } else {
      let runlen = valLen(op);
      const v = valValue(op);
      if (runlen + i > HLL_REGISTERS) break;
      while (runlen-- > 0) {
        if (v > max[i]!) max[i] = v;
        i++;
      }
      p++;
    }
  }
  return i === HLL_REGISTERS;
}

// ---- a value being changed --------------------------------------------------------

/**
 * An HLL value being changed, as Redis's sds string: `bytes` has room past
 * `length` and the byte at `length` is always 0 (sds's terminator, which
 * Redis's macros read past the last register and the last opcode).
 */
export class HllValue {
  private constructor(
    public bytes: Buffer,
    public length: number,
  ) {}

  /** Redis's createHLLObject: sparse, one XZERO:16384, cardinality 0 and valid. */
  static empty(): HllValue {
    const v = new HllValue(Buffer.alloc(HLL_HDR_SIZE + 2 + 4), HLL_HDR_SIZE + 2);
    v.bytes.write('HYLL', 0, 'latin1');
    v.bytes[4] = HLL_SPARSE;
    v.bytes[HLL_HDR_SIZE] = 0x40 | ((SPARSE_XZERO_MAX_LEN - 1) >> 8);
    v.bytes[HLL_HDR_SIZE + 1] = (SPARSE_XZERO_MAX_LEN - 1) & 0xff;
    return v;
  }

  /** A copy of `b[off, off + len)` to change. */
  static copyOf(b: Uint8Array, off: number, len: number): HllValue {
    const bytes = Buffer.alloc(len + 4);
    bytes.set(b.subarray(off, off + len));
    return new HllValue(bytes, len);
  }

  get encoding(): number {
    return this.bytes[4]!;
  }

  /** The value's bytes (a view). */
  view(): Buffer {
    return this.bytes.subarray(0, this.length);
  }

  invalidateCache(): void {
    this.bytes[CARD_FLAGS] = this.bytes[CARD_FLAGS]! | 0x80;
  }

  /** Caches `card` (below 2^63), valid. */
  setCardinality(card: number): void {
    const lo = card % 0x100000000;
    const hi = Math.floor(card / 0x100000000);
    this.bytes.writeUInt32LE(lo, CARD_OFFSET);
    this.bytes.writeUInt32LE(hi, CARD_OFFSET + 4);
  }

  /** Register `i` of a dense value. */
  denseGet(i: number): number {
    return denseGet(this.bytes, HLL_HDR_SIZE, this.length, i);
  }

  /** hllAdd: 1 when a register grew, 0 when none did, -1 for a corrupt sparse code. */
  add(element: Uint8Array, sparseMaxBytes: number): number {
    const packed = hllPatLen(element);
    return this.set(patIndex(packed), patCount(packed), sparseMaxBytes);
  }

  /** Raises register `index` to `count`, in the value's encoding (see add). */
  set(index: number, count: number, sparseMaxBytes: number): number {
    if (this.encoding === HLL_DENSE) return this.denseSet(index, count);
    return this.sparseSet(index, count, sparseMaxBytes);
  }

  /** hllDenseSet: no cache invalidation (the caller does it, as in Redis). */
  private denseSet(index: number, count: number): number {
    if (count <= this.denseGet(index)) return 0;
    denseSetRegister(this.bytes, HLL_HDR_SIZE, index, count);
    return 1;
  }

  private resize(length: number): void {
    if (length + 1 > this.bytes.length) {
      const grown = Buffer.alloc(Math.max(length + 4, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.length = length;
    this.bytes[length] = 0;
  }

  /**
   * hllSparseToDense: false (and unchanged) when the sparse code does not
   * cover exactly the 16384 registers. The header, cached cardinality
   * included, is kept.
   */
  toDense(): boolean {
    if (this.encoding === HLL_DENSE) return true;
    const src = this.bytes;
    const end = this.length;
    const dense = Buffer.alloc(HLL_DENSE_SIZE + 1);
    src.copy(dense, 0, 0, HLL_HDR_SIZE);
    dense[4] = HLL_DENSE;
    let idx = 0;
    let p = HLL_HDR_SIZE;
    while (p < end) {
      const op = src[p]!;
      if (isZeroOp(op)) {
        idx += zeroLen(op);
        p++;
      } else if (isXzeroOp(op)) {
        idx += xzeroLen(op, src[p + 1]!);
        p += 2;
      } else {
        let runlen = valLen(op);
        const v = valValue(op);
        if (runlen + idx > HLL_REGISTERS) break;
        while (runlen-- > 0) denseSetRegister(dense, HLL_HDR_SIZE, idx++, v);
        p++;
      }
    }
    if (idx !== HLL_REGISTERS) return false;
    this.bytes = dense;
    this.length = HLL_DENSE_SIZE;
    return true;
  }

  /**
   * hllSparseSet, step for step (the opcode split, the merge of equal
   * neighbouring VALs, the promotion to dense past `sparseMaxBytes` or for a
   * count above 32), so the bytes are Redis's.
   */
  private sparseSet(index: number, count: number, sparseMaxBytes: number): number {
    if (count > SPARSE_VAL_MAX_VALUE) return this.promote(index, count);
    const b = this.bytes;
    const sparse = HLL_HDR_SIZE;
    let end = this.length;

    // Step 1: the opcode that covers register `index`.
    let p = sparse;
    let first = 0;
    let prev = -1;
    let span = 0;
    while (p < end) {
      const op = b[p]!;
      let oplen = 1;
      if (isZeroOp(op)) span = zeroLen(op);
      else if (isValOp(op)) span = valLen(op);
      else {
        span = xzeroLen(op, b[p + 1]!);
        oplen = 2;
      }
      if (index <= first + span - 1) break;
      prev = p;
      p += oplen;
      first += span;
    }
    if (span === 0 || p >= end) return -1;

    const op = b[p]!;
    const afterOp = isXzeroOp(op) ? p + 2 : p + 1;
    const next = afterOp >= end ? -1 : afterOp;
    const zero = isZeroOp(op);
    const xzero = isXzeroOp(op);
    const runlen = zero ? zeroLen(op) : xzero ? xzeroLen(op, b[p + 1]!) : valLen(op);

    // Step 2: the trivial updates in place.
    let updated = false;
    if (!zero && !xzero) {
      if (valValue(op) >= count) return 0;
      if (runlen === 1) {
        b[p] = valOp(count, 1);
        updated = true;
      }
    }
    if (!updated && zero && runlen === 1) {
      b[p] = valOp(count, 1);
      updated = true;
    }

    if (!updated) {
      // The general case: the opcode split in up to three (at most 5 bytes).
      const seq: number[] = [];
      const last = first + span - 1;
      if (zero || xzero) {
        if (index !== first) pushZeros(seq, index - first);
        seq.push(valOp(count, 1));
        if (index !== last) pushZeros(seq, last - index);
      } else {
        const curval = valValue(op);
        if (index !== first) seq.push(valOp(curval, index - first));
        seq.push(valOp(count, 1));
        if (index !== last) seq.push(valOp(curval, last - index));
      }

      // Step 3: the new sequence in place of the old opcode.
      const delta = seq.length - (xzero ? 2 : 1);
      if (delta > 0 && this.length + delta > sparseMaxBytes) return this.promote(index, count);
      if (delta > 0) this.resize(this.length + delta);
      const bytes = this.bytes;
      if (delta !== 0 && next !== -1) bytes.copyWithin(next + delta, next, end);
      if (delta < 0) this.resize(this.length + delta);
      for (let i = 0; i < seq.length; i++) bytes[p + i] = seq[i]!;
      end += delta;
    }

    // Step 4: merge equal adjacent VALs, up to 5 opcodes from the previous one.
    const bytes = this.bytes;
    p = prev >= 0 ? prev : sparse;
    let scanlen = 5;
    while (p < end && scanlen-- > 0) {
      const o = bytes[p]!;
      if (isXzeroOp(o)) {
        p += 2;
        continue;
      }
      if (isZeroOp(o)) {
        p++;
        continue;
      }
      if (p + 1 < end && isValOp(bytes[p + 1]!)) {
        const v1 = valValue(o);
        const v2 = valValue(bytes[p + 1]!);
        if (v1 === v2) {
          const len = valLen(o) + valLen(bytes[p + 1]!);
          if (len <= SPARSE_VAL_MAX_LEN) {
            bytes[p + 1] = valOp(v1, len);
            bytes.copyWithin(p, p + 1, end);
            end--;
            this.resize(this.length - 1);
            // Again from here: the merged VAL may merge with the next one.
            continue;
          }
        }
      }
      p++;
    }
    this.invalidateCache();
    return 1;
  }

  /** The promotion of hllSparseSet: to dense, then the register set there. */
  private promote(index: number, count: number): number {
    if (!this.toDense()) return -1;
    return this.denseSet(index, count);
  }
}

/** ZERO or XZERO opcodes for `len` zero registers, as hllSparseSet writes them. */
function pushZeros(seq: number[], len: number): void {
  if (len > SPARSE_ZERO_MAX_LEN) {
    const l = len - 1;
    seq.push((l >> 8) | 0x40, l & 0xff);
  } else seq.push(zeroOp(len));
}
