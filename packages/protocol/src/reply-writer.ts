import { INT64_MAX, INT64_MIN, StrataError } from '@strata/io';
import { formatDouble } from './format-double.js';
import type { RespVersion } from './limits.js';
import type { ProtocolThrowCode } from './reply-reader.js';

export interface ReplyWriterOptions {
  /** The protocol the connection speaks; HELLO changes it later. Default 2. */
  readonly protocol?: RespVersion;
  /** Size of the first output buffer; it doubles when a batch needs more. Default 16 KiB. */
  readonly initialCapacity?: number;
}

/** A reply the writer cannot encode (not an integer, a bad length...). */
export class ReplyEncodingError extends StrataError<ProtocolThrowCode> {
  constructor(message: string) {
    super('ERR_REPLY_ENCODING', message);
    this.name = 'ReplyEncodingError';
  }
}

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;

/** Longest `<type><64-bit integer>\r\n` header. */
const MAX_HEADER = 1 + 20 + 2;

const DEFAULT_CAPACITY = 16 * 1024;

/**
 * Values up to this long are copied byte by byte; longer ones with `set`
 * of a plain Uint8Array view (half the cost of a Buffer `subarray`, which
 * runs Buffer's constructor; Node 20's `copy` makes such a view too).
 */
const COPY_LOOP_MAX = 32;

/** Lines up to this long are written char by char when they are ASCII. */
const SHORT_LINE = 64;

const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** Decimal digits of a non-negative safe integer. */
function decimalDigits(v: number): number {
  let digits = 1;
  while (digits < 16 && v >= POW10[digits]!) digits++;
  return digits;
}

/**
 * Writes the digits of a non-negative safe integer so that they end just
 * before `end`. In two int32 halves of 8 digits: `%` and `/` on a double
 * past 2^31 (a stream ID's milliseconds) are far slower than on an int32.
 */
function writeDecimal(buf: Uint8Array, end: number, value: number): void {
  let at = end;
  let v = value;
  if (v >= 1e8) {
    const high = Math.floor(v / 1e8);
    let low = (v - high * 1e8) | 0;
    for (let i = 0; i < 8; i++) {
      const q = (low / 10) | 0;
      buf[--at] = 0x30 + low - q * 10;
      low = q;
    }
    v = high;
  }
  let x = v | 0;
  do {
    const q = (x / 10) | 0;
    buf[--at] = 0x30 + x - q * 10;
    x = q;
  } while (x > 0);
}

/**
 * Appends RESP2 or RESP3 replies for one connection into one output buffer,
 * and hands out everything written since the last flush as a single chunk,
 * so a batch of replies costs one socket write.
 *
 * Replies are written straight into a preallocated Buffer (numbers and
 * headers digit by digit, strings with `buf.write`): a small reply allocates
 * nothing. The buffer doubles when a batch outgrows it. A flushed chunk is a
 * view of the buffer that is never written again, so it stays valid while the
 * socket still holds it; writing goes on after it, in a fresh buffer once
 * this one is full.
 *
 * The RESP3 types fall back in RESP2 the way Redis's addReply* do: map ->
 * flat array of 2n, set and push -> array, null -> `$-1`, null array ->
 * `*-1`, double, big number and verbatim -> bulk string, boolean -> 1 or 0.
 */
export class ReplyWriter {
  /** The protocol replies are encoded for (set by HELLO). */
  protocol: RespVersion;

  private readonly initialCapacity: number;
  private buf: Buffer;
  /** Start of the bytes not yet flushed. */
  private start = 0;
  /** End of the bytes written. */
  private pos = 0;
  /** Bytes handed out by flush() so far: positions count from the first reply. */
  private flushedBytes = 0;
  /** bulkJoined's last first number and its decimal digits. */
  private joinedA = -1;
  private joinedLength = 0;
  private readonly joinedDigits = new Uint8Array(16);

  constructor(options: ReplyWriterOptions = {}) {
    this.protocol = options.protocol ?? 2;
    this.initialCapacity = Math.max(64, options.initialCapacity ?? DEFAULT_CAPACITY);
    this.buf = Buffer.allocUnsafeSlow(this.initialCapacity);
  }

  /** Bytes written and not flushed yet (the client's output buffer size). */
  get pendingBytes(): number {
    return this.pos - this.start;
  }

  /** Every byte written so far, flushed or not: a position to pass to `since`. */
  get position(): number {
    return this.flushedBytes + this.pos - this.start;
  }

  /**
   * The bytes written from `position` on that are not flushed yet (a
   * reply just written, for the server to look at); valid until the next write.
   */
  since(position: number): Buffer {
    const from = Math.max(0, position - this.flushedBytes);
    return this.buf.subarray(this.start + Math.min(from, this.pos - this.start), this.pos);
  }

  /**
   * What `since` views, without the view (a script reads each of its
   * commands' replies, and a subarray per reply is most of that cost): the
   * bytes from `position` on lie in `bytes` from `offsetOf(position)` to
   * `end`. Valid until the next write.
   */
  get bytes(): Buffer {
    return this.buf;
  }

  offsetOf(position: number): number {
    const from = Math.max(0, position - this.flushedBytes);
    return this.start + Math.min(from, this.pos - this.start);
  }

  get end(): number {
    return this.pos;
  }

  /**
   * Everything written since the last flush, as one chunk for one socket
   * write, or null when nothing is pending.
   */
  flush(): Buffer | null {
    if (this.pos === this.start) return null;
    const chunk = this.buf.subarray(this.start, this.pos);
    this.flushedBytes += this.pos - this.start;
    this.start = this.pos;
    return chunk;
  }

  /**
   * Takes back what was written since `position` (a reply begun that will be
   * written later, or replaced by an error). It must not be flushed yet.
   */
  rewind(position: number): void {
    const from = position - this.flushedBytes;
    if (from < 0 || from > this.pos - this.start) {
      throw new RangeError(`cannot rewind to ${position}: flushed or not written yet`);
    }
    this.pos = this.start + from;
  }

  /**
   * Every chunk flush() handed out has left (a socket with nothing queued
   * holds none of them): with nothing pending, the next replies are
   * written from the buffer's start again, so a connection whose replies
   * fill the buffer does not get a new one each time it is full. A buffer
   * grown for a large reply is not kept: the next one is the first size.
   */
  reuse(): void {
    if (this.pos !== this.start || this.buf.length !== this.initialCapacity) return;
    this.start = 0;
    this.pos = 0;
  }

  /** Drop what was written since the last flush (the client is going away). */
  discard(): void {
    this.pos = this.start;
  }

  /** `+OK`: a status line. \r and \n become spaces so the reply stays one line. */
  simple(text: string | Uint8Array): this {
    this.byte(0x2b);
    this.line(text);
    return this;
  }

  /**
   * `-ERR message`: `message` starts with the error code (`ERR`,
   * `WRONGTYPE`...), without the `-`. \r and \n become spaces.
   */
  error(message: string | Uint8Array): this {
    this.byte(0x2d);
    this.line(message);
    return this;
  }

  /** `:n`: a signed 64-bit integer (a safe integer number, or a bigint). */
  integer(value: number | bigint): this {
    this.header(0x3a, value);
    return this;
  }

  /** `$len\r\n...\r\n`: binary-safe bytes, or a string as UTF-8. */
  bulk(value: Uint8Array | string): this {
    if (typeof value === 'string') {
      const length = Buffer.byteLength(value);
      this.header(0x24, length);
      this.reserve(length + 2);
      this.pos += this.buf.write(value, this.pos);
    } else {
      this.header(0x24, value.length);
      this.reserve(value.length + 2);
      this.buf.set(value, this.pos);
      this.pos += value.length;
    }
    this.crlf();
    return this;
  }

  /**
   * `$len\r\n...\r\n` of a latin1 string (one char per byte: how
   * collections keep members), written byte for byte with no Buffer made.
   */
  bulkLatin1(value: string): this {
    this.header(0x24, value.length);
    // A short member or value (most) char by char: no native call for the encoding.
    if (value.length <= SHORT_LINE) this.ascii(value);
    else {
      this.reserve(value.length);
      this.pos += this.buf.write(value, this.pos, 'latin1');
    }
    this.crlf();
    return this;
  }

  /**
   * `$len\r\n...\r\n` of `bytes[offset, offset + length)`: a value where it
   * lies in the store's log, with no subarray made for it.
   */
  bulkRange(bytes: Uint8Array, offset: number, length: number): this {
    this.header(0x24, length);
    this.reserve(length + 2);
    if (length <= COPY_LOOP_MAX) {
      const buf = this.buf;
      const at = this.pos;
      for (let i = 0; i < length; i++) buf[at + i] = bytes[offset + i]!;
    } else {
      this.buf.set(new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length), this.pos);
    }
    this.pos += length;
    this.crlf();
    return this;
  }

  /**
   * `$len\r\n<a><sep><b>\r\n`: two non-negative safe integers joined by one
   * ASCII byte (a stream ID, `<ms>-<seq>`), written digit by digit with no
   * string made. The caller falls back to `bulk` for numbers past 2^53.
   */
  bulkJoined(a: number, sep: number, b: number): this {
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || a < 0 || b < 0) {
      throw new ReplyEncodingError(`not two safe non-negative integers: ${a}, ${b}`);
    }
    // `a` again (a stream's IDs in one millisecond): its digits as they were last written.
    const digits = this.joinedDigits;
    if (a !== this.joinedA) {
      this.joinedLength = decimalDigits(a);
      writeDecimal(digits, this.joinedLength, a);
      this.joinedA = a;
    }
    const da = this.joinedLength;
    const db = decimalDigits(b);
    this.header(0x24, da + 1 + db);
    this.reserve(da + 1 + db + 2);
    const buf = this.buf;
    const at = this.pos;
    for (let i = 0; i < da; i++) buf[at + i] = digits[i]!;
    buf[this.pos + da] = sep;
    this.pos += da + 1 + db;
    writeDecimal(buf, this.pos, b);
    buf[this.pos++] = CR;
    buf[this.pos++] = LF;
    return this;
  }

  /** The null reply: `$-1` in RESP2, `_` in RESP3. */
  null(): this {
    if (this.protocol === 3) this.ascii('_\r\n');
    else this.ascii('$-1\r\n');
    return this;
  }

  /** The null array (a timed-out blocking pop, an aborted EXEC): `*-1` in RESP2, `_` in RESP3. */
  nullArray(): this {
    if (this.protocol === 3) this.ascii('_\r\n');
    else this.ascii('*-1\r\n');
    return this;
  }

  /** `*n`: an array header; the caller writes the n elements. */
  array(length: number): this {
    this.header(0x2a, this.length(length));
    return this;
  }

  /** `%n`: a map of n pairs; in RESP2 a flat array of 2n. The caller writes key, value, ... */
  map(pairs: number): this {
    if (this.protocol === 3) this.header(0x25, this.length(pairs));
    else this.header(0x2a, this.length(pairs) * 2);
    return this;
  }

  /** `~n`: a set of n elements; in RESP2 an array. */
  set(length: number): this {
    this.header(this.protocol === 3 ? 0x7e : 0x2a, this.length(length));
    return this;
  }

  /** `>n`: an out-of-band push (pub/sub, invalidation); in RESP2 an array. */
  push(length: number): this {
    this.header(this.protocol === 3 ? 0x3e : 0x2a, this.length(length));
    return this;
  }

  /** `,d`: a double, formatted as Redis does; in RESP2 a bulk string. */
  double(value: number): this {
    const text = formatDouble(value);
    if (this.protocol === 3) {
      this.byte(0x2c);
      this.ascii(text);
      this.crlf();
    } else {
      this.header(0x24, text.length);
      this.ascii(text);
      this.crlf();
    }
    return this;
  }

  /** `#t` / `#f`; in RESP2 the integer 1 or 0. */
  boolean(value: boolean): this {
    if (this.protocol === 3) this.ascii(value ? '#t\r\n' : '#f\r\n');
    else this.ascii(value ? ':1\r\n' : ':0\r\n');
    return this;
  }

  /** `(n`: an integer of any size; in RESP2 a bulk string of its digits. */
  bigNumber(value: bigint | string): this {
    const text = typeof value === 'bigint' ? value.toString() : value;
    if (!/^-?[0-9]+$/.test(text)) throw new ReplyEncodingError(`not a big number: ${text}`);
    if (this.protocol === 3) {
      this.byte(0x28);
      this.ascii(text);
      this.crlf();
    } else {
      this.bulk(text);
    }
    return this;
  }

  /**
   * `=len\r\nfmt:text\r\n`: text with a three-byte format (`txt`, `mkd`),
   * padded with spaces as Redis does; in RESP2 a bulk string of the text.
   */
  verbatim(text: Uint8Array | string, format = 'txt'): this {
    if (this.protocol === 2) return this.bulk(text);
    const body = typeof text === 'string' ? Buffer.from(text) : text;
    this.header(0x3d, body.length + 4);
    this.reserve(4);
    for (let i = 0; i < 3; i++) {
      this.buf[this.pos++] = i < format.length ? format.charCodeAt(i) & 0xff : SPACE;
    }
    this.buf[this.pos++] = 0x3a;
    this.reserve(body.length + 2);
    this.buf.set(body, this.pos);
    this.pos += body.length;
    this.crlf();
    return this;
  }

  /** Bytes already in RESP (a protocol error's reply, a cached reply). */
  raw(bytes: Uint8Array): this {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  private length(n: number): number {
    if (!Number.isSafeInteger(n) || n < 0) throw new ReplyEncodingError(`bad length: ${n}`);
    return n;
  }

  /** `<type><integer>\r\n` */
  private header(type: number, value: number | bigint): void {
    if (typeof value === 'bigint') {
      if (value < INT64_MIN || value > INT64_MAX) {
        throw new ReplyEncodingError(`not a 64-bit integer: ${value}`);
      }
      this.byte(type);
      this.ascii(value.toString());
      this.crlf();
      return;
    }
    if (!Number.isSafeInteger(value)) throw new ReplyEncodingError(`not an integer: ${value}`);
    this.reserve(MAX_HEADER);
    const buf = this.buf;
    buf[this.pos++] = type;
    if (value >= 0 && value < 100) {
      // Lengths and counts are mostly this small: no division loop.
      if (value >= 10) buf[this.pos++] = 0x30 + ((value / 10) | 0);
      buf[this.pos++] = 0x30 + (value % 10);
      buf[this.pos++] = CR;
      buf[this.pos++] = LF;
      return;
    }
    let v = value;
    if (v < 0) {
      buf[this.pos++] = 0x2d;
      v = -v;
    }
    // Digits written backwards into their final place: no string made.
    this.pos += decimalDigits(v);
    writeDecimal(buf, this.pos, v);
    buf[this.pos++] = CR;
    buf[this.pos++] = LF;
  }

  /** A string or bytes up to \r\n, with \r and \n in it turned to spaces. */
  private line(text: string | Uint8Array): void {
    if (typeof text === 'string' && text.length <= SHORT_LINE && this.shortAscii(text)) return;
    const from = this.pos;
    if (typeof text === 'string') {
      this.reserve(Buffer.byteLength(text) + 2);
      this.pos += this.buf.write(text, this.pos);
    } else {
      this.reserve(text.length + 2);
      this.buf.set(text, this.pos);
      this.pos += text.length;
    }
    for (let i = from; i < this.pos; i++) {
      const b = this.buf[i];
      if (b === CR || b === LF) this.buf[i] = SPACE;
    }
    this.crlf();
  }

  /**
   * `+OK`, `-ERR syntax error`...: a short ASCII line written char by char
   * (no native call for the encoding); false, and nothing written, when
   * `text` has a character outside ASCII.
   */
  private shortAscii(text: string): boolean {
    const n = text.length;
    this.reserve(n + 2);
    const buf = this.buf;
    const at = this.pos;
    for (let i = 0; i < n; i++) {
      const ch = text.charCodeAt(i);
      if (ch >= 0x80) return false;
      buf[at + i] = ch === CR || ch === LF ? SPACE : ch;
    }
    buf[at + n] = CR;
    buf[at + n + 1] = LF;
    this.pos = at + n + 2;
    return true;
  }

  /** A short latin1 string (a null reply, a member) char by char: one byte each. */
  private ascii(text: string): void {
    const n = text.length;
    this.reserve(n);
    const buf = this.buf;
    const at = this.pos;
    for (let i = 0; i < n; i++) buf[at + i] = text.charCodeAt(i);
    this.pos = at + n;
  }

  private byte(b: number): void {
    this.reserve(1);
    this.buf[this.pos++] = b;
  }

  private crlf(): void {
    this.reserve(2);
    this.buf[this.pos++] = CR;
    this.buf[this.pos++] = LF;
  }

  /**
   * Make room for `n` more bytes. Flushed bytes are never written again, so
   * when they fill the buffer the pending ones move to a new one, doubled
   * from the first size until the batch fits.
   */
  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const pending = this.pos - this.start;
    let capacity = this.initialCapacity;
    while (capacity < pending + n) capacity *= 2;
    const next = Buffer.allocUnsafeSlow(capacity);
    this.buf.copy(next, 0, this.start, this.pos);
    this.buf = next;
    this.start = 0;
    this.pos = pending;
  }
}
