const CRLF0 = 13;
const CRLF1 = 10;
const STAR = 42;
const DOLLAR = 36;

/**
 * Encodes commands as RESP multibulk (`*n\r\n$len\r\narg\r\n...`, what
 * Redis writes to its AOF) into one growing buffer. Encoding allocates
 * nothing per command once the buffer is large enough; `take()` hands the
 * bytes over and starts a fresh buffer (the old one is never written again).
 */
export class CommandEncoder {
  private buf: Buffer;
  private used = 0;

  constructor(initialCapacity = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialCapacity);
  }

  /** Bytes encoded and not yet taken. */
  get length(): number {
    return this.used;
  }

  encode(argv: readonly Uint8Array[]): number {
    const size = commandLength(argv);
    this.reserve(size);
    this.used = writeCommand(this.buf, this.used, argv);
    return size;
  }

  /** An annotation line: `#`, `label`, the decimal `n`, CRLF (Redis's loader skips it). */
  annotate(label: Uint8Array, n: number): number {
    const size = 1 + label.length + digits(n) + 2;
    this.reserve(size);
    const b = this.buf;
    let o = this.used;
    b[o++] = 35; // #
    b.set(label, o);
    o += label.length;
    o = writeDigits(b, o, n);
    b[o++] = CRLF0;
    b[o++] = CRLF1;
    this.used = o;
    return size;
  }

  /** The last `n` bytes encoded and not yet taken, as a view valid until the next call. */
  tail(n: number): Buffer {
    return this.buf.subarray(this.used - n, this.used);
  }

  /** The bytes encoded so far, as a view nobody writes again; the encoder starts over. */
  take(): Buffer {
    const out = this.buf.subarray(0, this.used);
    // Keep the capacity that was needed (a steady batch size allocates once per batch).
    this.buf = Buffer.allocUnsafe(Math.max(64 * 1024, this.buf.length));
    this.used = 0;
    return out;
  }

  /** Puts bytes that could not be written back in front of what was encoded since. */
  unshift(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const rest = this.buf.subarray(0, this.used);
    const next = Buffer.allocUnsafe(Math.max(this.buf.length, bytes.length + this.used));
    next.set(bytes, 0);
    next.set(rest, bytes.length);
    this.buf = next;
    this.used = bytes.length + rest.length;
  }

  private reserve(size: number): void {
    if (this.used + size <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.used + size) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }
}

function digits(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

function writeDigits(b: Buffer, o: number, n: number): number {
  const d = digits(n);
  for (let i = o + d - 1; i >= o; i--) {
    b[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return o + d;
}

/** Bytes of `argv` as a RESP multibulk. */
function commandLength(argv: readonly Uint8Array[]): number {
  let size = 1 + digits(argv.length) + 2;
  for (let i = 0; i < argv.length; i++) {
    const n = argv[i]!.length;
    size += 1 + digits(n) + 2 + n + 2;
  }
  return size;
}

/** Writes `argv` as a RESP multibulk at `b[o]` (room checked by the caller); returns the end. */
function writeCommand(b: Buffer, o: number, argv: readonly Uint8Array[]): number {
  b[o++] = STAR;
  o = writeDigits(b, o, argv.length);
  b[o++] = CRLF0;
  b[o++] = CRLF1;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    b[o++] = DOLLAR;
    o = writeDigits(b, o, a.length);
    b[o++] = CRLF0;
    b[o++] = CRLF1;
    b.set(a, o);
    o += a.length;
    b[o++] = CRLF0;
    b[o++] = CRLF1;
  }
  return o;
}

/**
 * One command as a client sends it and the AOF stores it: a RESP multibulk
 * of bulk strings (`*N\r\n$len\r\narg\r\n...`), strings as UTF-8, in a
 * buffer of exactly its size. For tests, tools and load generators; a
 * stream of commands uses one CommandEncoder.
 */
export function encodeCommand(argv: readonly (Uint8Array | string)[]): Buffer {
  const bytes = argv.map((a) => (typeof a === 'string' ? Buffer.from(a) : a));
  const out = Buffer.allocUnsafe(commandLength(bytes));
  writeCommand(out, 0, bytes);
  return out;
}
