import { lzfCompress } from './lzf.js';

const RDB_ENCVAL = 3;

/** Builds RDB encodings (rdbSaveLen, rdbSaveRawString, ...) into one buffer. */
export class ByteWriter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(
    /** Compress strings over 20 bytes with LZF, as Redis does with `rdbcompression yes` (its default). */
    private readonly compress = true,
  ) {}

  raw(b: Buffer): this {
    this.parts.push(b);
    this.size += b.length;
    return this;
  }

  u8(v: number): this {
    return this.raw(Buffer.from([v]));
  }

  /** rdbSaveLen: 6, 14, 32 or 64 bits. */
  len(n: number): this {
    if (n < 1 << 6) return this.u8(n);
    if (n < 1 << 14) return this.raw(Buffer.from([0x40 | (n >> 8), n & 0xff]));
    if (n <= 0xffffffff) {
      const b = Buffer.alloc(5);
      b[0] = 0x80;
      b.writeUInt32BE(n, 1);
      return this.raw(b);
    }
    const b = Buffer.alloc(9);
    b[0] = 0x81;
    b.writeBigUInt64BE(BigInt(n), 1);
    return this.raw(b);
  }

  lenBig(n: bigint): this {
    if (n <= 0xffffffffn) return this.len(Number(n));
    const b = Buffer.alloc(9);
    b[0] = 0x81;
    b.writeBigUInt64BE(n, 1);
    return this.raw(b);
  }

  binaryDouble(v: number): this {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v, 0);
    return this.raw(b);
  }

  i64le(v: number): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(v), 0);
    return this.raw(b);
  }

  /**
   * rdbSaveRawString: a string of at most 11 bytes that is a canonical 32-bit
   * integer as ENCVAL INT8/16/32; over 20 bytes LZF when that saves at least
   * 4 bytes; else length and bytes.
   */
  string(s: Buffer): this {
    if (s.length <= 11 && s.length > 0) {
      const t = s.toString('latin1');
      if (/^(0|-?[1-9][0-9]*)$/.test(t)) {
        const v = Number(t);
        if (v >= -128 && v <= 127) return this.raw(Buffer.from([(RDB_ENCVAL << 6) | 0, v & 0xff]));
        if (v >= -32768 && v <= 32767) {
          const b = Buffer.alloc(3);
          b[0] = (RDB_ENCVAL << 6) | 1;
          b.writeInt16LE(v, 1);
          return this.raw(b);
        }
        if (v >= -2147483648 && v <= 2147483647) {
          const b = Buffer.alloc(5);
          b[0] = (RDB_ENCVAL << 6) | 2;
          b.writeInt32LE(v, 1);
          return this.raw(b);
        }
      }
    }
    if (this.compress && s.length > 20) {
      const c = lzfCompress(s, s.length - 4);
      if (c !== undefined) {
        this.u8((RDB_ENCVAL << 6) | 3);
        this.len(c.length).len(s.length);
        return this.raw(c);
      }
    }
    return this.len(s.length).raw(s);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts, this.size);
  }
}
