// Redis's CRC-64 (src/crc64.c): the Jones polynomial 0xad93d23594c935a9,
// reflected in and out, initial value 0, no final xor. It guards DUMP
// payloads and RDB files. The 64-bit state is kept as two 32-bit halves so
// the hot loop stays in small integers (no BigInt per byte).

const TABLE_LO = new Uint32Array(256);
const TABLE_HI = new Uint32Array(256);
{
  const poly = 0x95ac9329ac4bc9b5n; // the Jones polynomial, bit-reflected
  for (let i = 0; i < 256; i++) {
    let crc = BigInt(i);
    for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
    TABLE_LO[i] = Number(crc & 0xffffffffn);
    TABLE_HI[i] = Number(crc >> 32n);
  }
}

/** An incremental CRC-64, fed in pieces (the RDB file reader feeds it as it consumes bytes). */
export class Crc64 {
  private lo = 0;
  private hi = 0;

  update(data: Uint8Array, start = 0, end = data.length): this {
    let lo = this.lo;
    let hi = this.hi;
    for (let i = start; i < end; i++) {
      const idx = (lo ^ (data[i] as number)) & 0xff;
      lo = (((lo >>> 8) | (hi << 24)) ^ (TABLE_LO[idx] as number)) >>> 0;
      hi = ((hi >>> 8) ^ (TABLE_HI[idx] as number)) >>> 0;
    }
    this.lo = lo;
    this.hi = hi;
    return this;
  }

  /** The checksum so far, as an unsigned 64-bit integer. */
  digest(): bigint {
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** The checksum as the 8 little-endian bytes Redis writes after a payload or file. */
  digestBytes(): Buffer {
    const out = Buffer.allocUnsafe(8);
    out.writeUInt32LE(this.lo, 0);
    out.writeUInt32LE(this.hi, 4);
    return out;
  }
}

/** CRC-64 of `data` (Redis's crc64(0, data, len)). */
export function crc64(data: Uint8Array): bigint {
  return new Crc64().update(data).digest();
}
