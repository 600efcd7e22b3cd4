import { RdbError } from './errors.js';
import { lzfDecompress } from './lzf.js';

/**
 * Thrown (never escapes the package) when a reader over a partial buffer of a
 * stream needs bytes up to `end` (an absolute offset) that are not there yet.
 */
export class NeedMore {
  constructor(readonly end: number) {}
}

/**
 * What running out of bytes means for a reader: `truncated` (the whole input
 * is here: a DUMP payload or the end of a file), `corrupt` (a blob nested in a
 * value, whose length the outer encoding already gave), `need-more` (a window
 * on a stream that can grow).
 */
export type ShortInput = 'truncated' | 'corrupt' | 'need-more';

const RDB_ENCVAL = 3;
const RDB_ENC_INT8 = 0;
const RDB_ENC_INT16 = 1;
const RDB_ENC_INT32 = 2;
const RDB_ENC_LZF = 3;

/** A length, or a special string encoding (rdbLoadLenByRef's isencoded). */
type LenOrEncoding = { encoded: false; len: number } | { encoded: true; encoding: number };

/**
 * A cursor over bytes of RDB encodings (rdbLoadLen, rdbGenericLoadStringObject,
 * rdbLoadBinaryDoubleValue, ...). `base` is the absolute offset of buf[0] so
 * errors name offsets in the whole input.
 */
export class ByteReader {
  pos = 0;

  constructor(
    readonly buf: Buffer,
    private readonly short: ShortInput = 'truncated',
    readonly base = 0,
    /** With `need-more`: the most bytes one record may take (a hostile count fails here, not in memory). */
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get offset(): number {
    return this.base + this.pos;
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  corrupt(why: string, at = this.offset): RdbError {
    return new RdbError('ERR_RDB_CORRUPT', why, at);
  }

  /** Ensures n more bytes are there, or throws as `short` says. */
  need(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.short === 'need-more') throw new NeedMore(this.base + this.pos + n);
    if (this.short === 'corrupt')
      throw this.corrupt(`encoding runs ${this.pos + n - this.buf.length} bytes past its blob`);
    throw new RdbError(
      'ERR_RDB_TRUNCATED',
      `input ends inside a value (needed ${n} more bytes)`,
      this.offset,
    );
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }

  bytes(n: number): Buffer {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  u32le(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  /** rdbLoadMillisecondTime and RDB_OPCODE_EXPIRETIME_MS: 8 bytes little-endian. */
  i64le(): number {
    this.need(8);
    const v = this.buf.readBigInt64LE(this.pos);
    this.pos += 8;
    return Number(v);
  }

  /** rdbLoadBinaryDoubleValue: an IEEE 754 double, little-endian. */
  binaryDouble(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** rdbLoadDoubleValue (RDB_TYPE_ZSET): a length byte, 253 NaN, 254 +inf, 255 -inf, else that many ASCII bytes. */
  stringDouble(): number {
    const at = this.offset;
    const len = this.u8();
    if (len === 253) return Number.NaN;
    if (len === 254) return Number.POSITIVE_INFINITY;
    if (len === 255) return Number.NEGATIVE_INFINITY;
    const text = this.bytes(len).toString('latin1');
    const v = Number(text);
    if (text.trim() === '' || Number.isNaN(v)) throw this.corrupt(`bad double "${text}"`, at);
    return v;
  }

  private lenOrEncoding(): LenOrEncoding {
    const at = this.offset;
    const first = this.u8();
    const kind = first >> 6;
    if (kind === 0) return { encoded: false, len: first & 0x3f };
    if (kind === 1) return { encoded: false, len: ((first & 0x3f) << 8) | this.u8() };
    if (kind === RDB_ENCVAL) return { encoded: true, encoding: first & 0x3f };
    if (first === 0x80) {
      this.need(4);
      const len = this.buf.readUInt32BE(this.pos);
      this.pos += 4;
      return { encoded: false, len };
    }
    if (first === 0x81) {
      this.need(8);
      const len = this.buf.readBigUInt64BE(this.pos);
      this.pos += 8;
      if (len > BigInt(Number.MAX_SAFE_INTEGER)) throw this.corrupt(`length ${len} too large`, at);
      return { encoded: false, len: Number(len) };
    }
    throw this.corrupt(`unknown length encoding 0x${first.toString(16)}`, at);
  }

  /** rdbLoadLen: a plain length (an encoded-string marker here is corruption). */
  len(): number {
    const at = this.offset;
    const l = this.lenOrEncoding();
    if (l.encoded) throw this.corrupt('string encoding where a length was expected', at);
    return l.len;
  }

  /** rdbLoadLen for numbers that may pass 2^53 (stream IDs): the full unsigned 64 bits. */
  lenBig(): bigint {
    if (this.remaining >= 1 && this.buf[this.pos] === 0x81) {
      this.pos++;
      this.need(8);
      const v = this.buf.readBigUInt64BE(this.pos);
      this.pos += 8;
      return v;
    }
    return BigInt(this.len());
  }

  /** A length that counts items still to be read: each needs at least `minBytes`, so a hostile count fails early. */
  count(minBytes = 1): number {
    const at = this.offset;
    const n = this.len();
    if (this.short === 'need-more' && n * minBytes > this.maxBytes) {
      throw new RdbError(
        'ERR_RDB_TOO_LARGE',
        `count ${n} needs more than ${this.maxBytes} bytes`,
        at,
      );
    }
    if (this.short !== 'need-more' && n * minBytes > this.remaining) {
      throw this.short === 'corrupt'
        ? this.corrupt(`count ${n} larger than the bytes left`, at)
        : new RdbError('ERR_RDB_TRUNCATED', `count ${n} larger than the bytes left`, at);
    }
    return n;
  }

  /** rdbGenericLoadStringObject: a raw, integer-encoded or LZF string, as bytes. */
  string(): Buffer {
    const at = this.offset;
    const l = this.lenOrEncoding();
    if (!l.encoded) return this.bytes(l.len);
    switch (l.encoding) {
      case RDB_ENC_INT8:
        return Buffer.from(String((this.u8() << 24) >> 24));
      case RDB_ENC_INT16: {
        this.need(2);
        const v = this.buf.readInt16LE(this.pos);
        this.pos += 2;
        return Buffer.from(String(v));
      }
      case RDB_ENC_INT32: {
        this.need(4);
        const v = this.buf.readInt32LE(this.pos);
        this.pos += 4;
        return Buffer.from(String(v));
      }
      case RDB_ENC_LZF: {
        const clen = this.len();
        const len = this.len();
        const dataAt = this.offset;
        const data = this.bytes(clen);
        return lzfDecompress(data, len, dataAt);
      }
      default:
        throw this.corrupt(`unknown string encoding ${l.encoding}`, at);
    }
  }

  /** A string read as a nested blob (listpack, ziplist, intset): a reader over it whose end is corruption. */
  blob(): ByteReader {
    const at = this.offset;
    const b = this.string();
    return new ByteReader(b, 'corrupt', at);
  }
}
