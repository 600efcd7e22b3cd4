import { splitInlineArgs } from './inline-args.js';
import {
  DEFAULT_PROTO_MAX_BULK_LEN,
  MAX_MULTIBULK_LENGTH,
  PROTO_INLINE_MAX_SIZE,
  UNAUTHENTICATED_MAX_BULK_LENGTH,
  UNAUTHENTICATED_MAX_MULTIBULK_LENGTH,
} from './limits.js';
import { parseLongLong } from './parse-long-long.js';
import { expectedDollarError, type ProtocolError, protocolError } from './protocol-error.js';

export interface RequestParserOptions {
  /** proto-max-bulk-len: the largest bulk argument accepted. Default 512 MB. */
  readonly maxBulkLength?: number;
  /**
   * Whether the client still has to authenticate (requirepass is set and no
   * AUTH yet). Redis then refuses more than 10 arguments or bulks over 16 KB,
   * so an anonymous client cannot make it buffer much. Settable later.
   */
  readonly authRequired?: boolean;
  /** Most arguments one command may have (MAX_ARGUMENTS, V8's bound); a test's smaller one. */
  readonly maxArguments?: number;
}

export interface ParsedCommand {
  readonly kind: 'command';
  /**
   * The arguments, never empty. A bulk that lies within one fed chunk is a
   * view into it (no copy); one that spans chunks is copied once (a big one
   * as it arrives); every empty one is one shared Buffer. A short
   * command name (argv[0]) seen lately may be a Buffer shared between
   * commands (see NAME_CACHE): arguments are never written to.
   */
  readonly argv: Buffer[];
  /** True for an inline (telnet style) command, false for RESP multibulk. */
  readonly inline: boolean;
}

export interface NeedMore {
  readonly kind: 'need-more';
}

/** What `next()` returns: a command, a request for more bytes, or a protocol error. */
export type ParseResult = ParsedCommand | NeedMore | ProtocolError;

const NEED_MORE: NeedMore = Object.freeze({ kind: 'need-more' });

const CR = 0x0d;
const LF = 0x0a;
const STAR = 0x2a;
const DOLLAR = 0x24;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;

/** Commands with more arguments, or longer length fields, take the general path. */
const FAST_MAX_ARGS = 1024;
const FAST_MAX_DIGITS = 10;

const REQ_UNKNOWN = 0;
const REQ_MULTIBULK = 1;
const REQ_INLINE = 2;

const LINE_READY = 0;
const LINE_MORE = 1;
const LINE_TOO_BIG = 2;

/**
 * Command names (argv[0]) up to this long are kept, copied, in a small
 * cache and the same Buffer is handed out again while the bytes match: a
 * pipeline of GETs makes one Buffer for its name instead of one per command
 * (a Buffer object is ~100 bytes of garbage, a third of a SET's).
 */
const NAME_CACHE_MAX_LENGTH = 24;
const NAME_CACHE_SIZE = 8;

/**
 * Recycled arguments arrays are kept for commands of up to this many
 * arguments, this many of each length (a pipelined batch parsed ahead).
 */
const SPARE_MAX_ARGS = 8;
const SPARES_PER_LENGTH = 64;
const NO_SPARES: Buffer[][] = [];

/** A scratch line buffer past this size is dropped once used. */
const SCRATCH_KEEP = 2 * PROTO_INLINE_MAX_SIZE;

/**
 * A bulk this long that is not all buffered yet is assembled as its bytes
 * arrive (Redis does so from 32 KB, PROTO_MBULK_BIG_ARG; below 1 MB holding
 * the chunks costs no more), into a buffer that grows with them (by half
 * from BULK_FIRST_CAPACITY, the whole bulk once a sixteenth of it came): the chunks it came in are let go at once instead of being held
 * until the last byte, and an announced length that never comes reserves
 * nothing. (Redis reserves the whole announced length at once.)
 */
const BIG_BULK = 1024 * 1024;
const BULK_FIRST_CAPACITY = BIG_BULK;
const BULK_WHOLE_AFTER = 16;

/**
 * What an argument of a command still arriving costs beyond its bytes, for
 * the query buffer limit: its slot in the arguments array (8 bytes, with
 * room for the array's growth), and a Buffer object (a view) unless it is
 * empty (one shared Buffer). Redis's argument costs ~40 bytes; ours, in V8,
 * ~110: without them, `*2147483647` and tiny arguments would grow the heap
 * ~15 times faster than the bytes that come, unseen by the limit.
 */
export const ARGUMENT_SLOT_BYTES = 16;
export const ARGUMENT_OBJECT_BYTES = 96;

/**
 * Most arguments one command may have here: a JS array of ~2^27 elements
 * is past what V8 can grow (a fatal error, not an exception). Redis's bound
 * is 2^31-1 (MAX_MULTIBULK_LENGTH); a count up to that is accepted as Redis
 * does, and the command fails when its arguments reach this many. With the
 * default client-query-buffer-limit (1 GB, 16 bytes an empty argument) the
 * limit closes the client first.
 */
export const MAX_ARGUMENTS = 64 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/**
 * One-byte arguments (`*`, `~`, `$`, `0`, a field `f`) are handed out from
 * a table, one shared Buffer per byte value, instead of a view of the chunk
 * each: a view costs a Buffer object, a third of a short command's garbage.
 * Arguments are read-only to commands (they copy what they keep), so the
 * same Buffer serves every command with that byte.
 */
const ONE_BYTE_ARGS: readonly Buffer[] = Array.from({ length: 256 }, (_, byte) => Buffer.of(byte));

/**
 * A streaming parser for client requests, RESP2/RESP3 multibulk and inline,
 * that works straight on socket chunks. A command may be split anywhere and a
 * chunk may hold many commands (pipelining). It follows Redis's
 * processMultibulkBuffer / processInlineBuffer (src/networking.c) rule for
 * rule, so every input gets Redis's answer:
 * - `*N` with N <= 0, and blank inline lines, are skipped;
 * - a count line (`*N`, `$N`) ends at the first `\r` and the byte after it is
 *   skipped unread, as are the two bytes after a bulk; a line is searched like
 *   a C string, so a 0 byte before the terminator hides it;
 * - no terminator within 64 KB of buffered bytes is an error, so is a count
 *   that is not a plain 64-bit integer, a multibulk over 2^31-1, a bulk over
 *   proto-max-bulk-len, and an argument that does not start with `$`.
 *
 * Usage: `feed()` every chunk, then call `next()` until it returns
 * `need-more` (wait for data) or an error (write `error.reply`, close). The
 * parser keeps views into fed chunks: a chunk must not be modified after it is
 * fed. A huge announced bulk reserves nothing: its bytes are gathered as they
 * arrive into a buffer that grows with them to the bulk's size; a huge
 * announced count reserves nothing either (the arguments array grows as they
 * come), and what the arguments so far cost counts in `bufferedBytes`.
 */
export class RequestParser {
  /** proto-max-bulk-len; may be changed between commands (CONFIG SET). */
  maxBulkLength: number;
  /** Set to false once the client has authenticated. */
  authRequired: boolean;
  private readonly maxArguments: number;

  private readonly chunks: Buffer[] = [];
  private head = 0;
  private pos = 0;
  private buffered = 0;

  private reqType = REQ_UNKNOWN;
  /** Arguments still to read; 0 while the `*N` line is not read yet. */
  private multibulkLength = 0;
  /** Length of the bulk being read, -1 while its `$N` line is not read yet. */
  private bulkLength = -1;
  private argv: Buffer[] = [];
  /** What `argv` costs so far (`argvMemory`): its bytes, and each argument's slot and object. */
  private argvBytes = 0;
  /** The bulk being assembled as it arrives (BIG_BULK), and its bytes so far; null when none is. */
  private bulk: Buffer | null = null;
  private bulkFilled = 0;

  /** A line split across chunks, gathered here. */
  private scratch: Buffer = EMPTY;
  private scratchLength = 0;
  /** Bytes of the current line taken from the chunks so far. */
  private lineScanned = 0;
  /** A 0 byte came before any terminator: the line can never end. */
  private lineHidden = false;
  /** The `\r` of a count line was the last byte buffered; the byte after it is owed. */
  private lineAwaitsLf = false;
  /** The line last read: lineSource[lineStart, lineEnd). */
  private lineSource: Buffer = EMPTY;
  private lineStart = 0;
  private lineEnd = 0;
  private lineInScratch = false;

  private failure: ProtocolError | null = null;
  /** Whether the command `take()` returned last was inline. */
  private lastInline = false;
  /** Recent command names (copies), and where the next one goes (round robin). */
  private readonly names: Buffer[] = [];
  private nextName = 0;
  /** Arguments arrays handed back by `recycle`, by length, for the next commands of that length. */
  private readonly spares: Buffer[][][] = Array.from({ length: SPARE_MAX_ARGS + 1 }, () => []);

  constructor(options: RequestParserOptions = {}) {
    this.maxBulkLength = options.maxBulkLength ?? DEFAULT_PROTO_MAX_BULK_LEN;
    this.authRequired = options.authRequired ?? false;
    this.maxArguments = Math.min(options.maxArguments ?? MAX_ARGUMENTS, MAX_ARGUMENTS);
  }

  /**
   * Bytes held for commands not returned yet: input not parsed (Redis's
   * `qbuf`, with a big bulk's bytes so far) plus what the arguments of the
   * command in progress cost (`argvMemory`). The query buffer limit bounds
   * this: Redis's counts its query buffer only, whose parsed arguments cost
   * little; ours cost more than their bytes, so they count too.
   */
  get bufferedBytes(): number {
    return this.buffered + this.scratchLength + this.bulkFilled + this.argvBytes;
  }

  /**
   * What the arguments parsed so far of the command in progress cost: their
   * bytes, and per argument ARGUMENT_SLOT_BYTES plus, unless it is empty,
   * ARGUMENT_OBJECT_BYTES (CLIENT LIST's `argv-mem`).
   */
  get argvMemory(): number {
    return this.argvBytes;
  }

  /**
   * True between requests: every fed byte is parsed and no request is begun.
   * False while a command is partly received (or after an error).
   */
  get idle(): boolean {
    return this.failure === null && this.reqType === REQ_UNKNOWN && this.buffered === 0;
  }

  /**
   * Up to `n` of the first bytes of Redis's query buffer: a big bulk's
   * bytes so far, then the input not parsed yet (Redis logs them when it
   * closes a client over the limit); a copy.
   */
  peek(n: number): Buffer {
    const out = Buffer.allocUnsafe(Math.min(n, this.bulkFilled + this.buffered));
    let at =
      this.bulk === null ? 0 : this.bulk.copy(out, 0, 0, Math.min(out.length, this.bulkFilled));
    let pos = this.pos;
    for (let i = this.head; i < this.chunks.length && at < out.length; i++) {
      const c = this.chunks[i]!;
      at += c.copy(out, at, pos, Math.min(c.length, pos + out.length - at));
      pos = 0;
    }
    return out;
  }

  /** Hand the parser the next chunk read from the socket. */
  feed(chunk: Uint8Array): void {
    if (chunk.length === 0 || this.failure !== null) return;
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.chunks.push(buf);
    this.buffered += buf.length;
  }

  /**
   * The next complete command, `need-more` when the fed bytes end inside one,
   * or the protocol error the connection must be closed with (returned again
   * on every later call).
   */
  next(): ParseResult {
    const argv = this.take();
    if (argv !== null) return { kind: 'command', argv, inline: this.lastInline };
    return this.failure ?? NEED_MORE;
  }

  /**
   * `next()` for the server's loop, with no result object: the next
   * command's arguments, or null when the fed bytes end inside one or the
   * input is invalid (then `error` is set, for good).
   */
  take(): Buffer[] | null {
    if (this.failure !== null) return null;
    for (;;) {
      if (this.reqType === REQ_UNKNOWN) {
        if (this.buffered === 0) return null;
        if (this.chunks[this.head]![this.pos] === STAR) {
          const whole = this.parseWholeMultibulk();
          if (whole !== null) {
            this.lastInline = false;
            return whole;
          }
          this.reqType = REQ_MULTIBULK;
        } else {
          this.reqType = REQ_INLINE;
        }
      }
      const inline = this.reqType === REQ_INLINE;
      const step = inline ? this.parseInline() : this.parseMultibulk();
      if (step !== null) return null;
      const argv = this.argv;
      this.reqType = REQ_UNKNOWN;
      this.multibulkLength = 0;
      this.bulkLength = -1;
      this.argv = [];
      this.argvBytes = 0;
      // Redis resets the client and reads on when a request has no arguments.
      if (argv.length > 0) {
        this.lastInline = inline;
        return argv;
      }
    }
  }

  /**
   * Hands back the arguments array of a command that is done with it (it
   * ran to its end and nothing kept the array): the next command of the
   * same length is parsed into it instead of a new one.
   */
  recycle(argv: Buffer[]): void {
    const n = argv.length;
    if (n > SPARE_MAX_ARGS) return;
    const list = this.spares[n]!;
    if (list.length < SPARES_PER_LENGTH) list.push(argv);
  }

  /** The protocol error the connection must be closed with, once the input was invalid. */
  get error(): ProtocolError | null {
    return this.failure;
  }

  /**
   * The common case in one pass: a well-formed multibulk lying entirely in
   * the current chunk, with plain counts. Anything else (a split command, an
   * odd or invalid count, a client not authenticated yet) returns null having
   * consumed nothing, and the general path below gives Redis's exact answer.
   * On accepted input both paths agree byte for byte: count lines are digits
   * up to `\r`, the byte after each `\r` and the two after each bulk are
   * skipped unread, as Redis does.
   */
  private parseWholeMultibulk(): Buffer[] | null {
    if (this.authRequired) return null;
    const chunk = this.chunks[this.head]!;
    const start = this.pos;
    const end = chunk.length;
    // `*N\r?`: N from 1 to FAST_MAX_ARGS.
    let p = start + 1;
    let count = 0;
    let b = p < end ? chunk[p]! : 0;
    if (b < DIGIT_1 || b > DIGIT_9) return null;
    for (;;) {
      count = count * 10 + (b - DIGIT_0);
      if (count > FAST_MAX_ARGS || ++p >= end) return null;
      b = chunk[p]!;
      if (b === CR) break;
      if (b < DIGIT_0 || b > DIGIT_9) return null;
    }
    p += 2;
    const spares = count <= SPARE_MAX_ARGS ? this.spares[count]! : NO_SPARES;
    // A spare goes back when the command is not whole in this chunk (the slow path parses it).
    const spare = spares.length > 0;
    const argv = spare ? spares.pop()! : new Array<Buffer>(count);
    const q = this.fillArgs(chunk, p, argv, count);
    if (q < 0) {
      if (spare) spares.push(argv);
      return null;
    }
    this.consume(q - start);
    return argv;
  }

  /** The fast path's `count` bulk strings from `p` into argv; where they end, or -1 when not whole. */
  private fillArgs(chunk: Buffer, p: number, argv: Buffer[], count: number): number {
    const end = chunk.length;
    const maxBulk = this.maxBulkLength;
    for (let k = 0; k < count; k++) {
      // `$N\r?`: N a plain length (`0`, or no leading zero), at most FAST_MAX_DIGITS digits.
      if (p + 3 >= end || chunk[p] !== DOLLAR) return -1;
      let b = chunk[++p]!;
      let length = 0;
      if (b === DIGIT_0) {
        if (chunk[++p] !== CR) return -1;
      } else {
        if (b < DIGIT_1 || b > DIGIT_9) return -1;
        const digitsEnd = p + FAST_MAX_DIGITS;
        for (;;) {
          length = length * 10 + (b - DIGIT_0);
          if (++p >= end || p > digitsEnd) return -1;
          b = chunk[p]!;
          if (b === CR) break;
          if (b < DIGIT_0 || b > DIGIT_9) return -1;
        }
        if (length > maxBulk) return -1;
      }
      p += 2;
      if (p + length + 2 > end) return -1;
      argv[k] =
        k === 0 && length <= NAME_CACHE_MAX_LENGTH
          ? this.commandName(chunk, p, length)
          : length === 1
            ? ONE_BYTE_ARGS[chunk[p]!]!
            : chunk.subarray(p, p + length);
      p += length + 2;
    }
    return p;
  }

  /** chunk[at, at + length) as a cached Buffer with these bytes, cached now if none is. */
  private commandName(chunk: Buffer, at: number, length: number): Buffer {
    const names = this.names;
    outer: for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name.length !== length) continue;
      for (let j = 0; j < length; j++) if (name[j] !== chunk[at + j]) continue outer;
      return name;
    }
    const copy = Buffer.from(chunk.subarray(at, at + length));
    names[this.nextName] = copy;
    this.nextName = (this.nextName + 1) % NAME_CACHE_SIZE;
    return copy;
  }

  /** null when a request is complete in `this.argv`, else what to return. */
  private parseInline(): NeedMore | ProtocolError | null {
    const line = this.readLine(LF);
    if (line === LINE_MORE) return NEED_MORE;
    if (line === LINE_TOO_BIG) return this.fail(protocolError('ERR_PROTO_TOO_BIG_INLINE_REQUEST'));
    const src = this.lineSource;
    let end = this.lineEnd;
    if (end > this.lineStart && src[end - 1] === CR) end--;
    const args = splitInlineArgs(src, this.lineStart, end, this.lineInScratch);
    this.releaseScratch();
    if (args === null) return this.fail(protocolError('ERR_PROTO_UNBALANCED_QUOTES'));
    this.argv = args;
    return null;
  }

  private parseMultibulk(): NeedMore | ProtocolError | null {
    if (this.multibulkLength === 0) {
      const line = this.readLine(CR);
      if (line === LINE_MORE) return NEED_MORE;
      if (line === LINE_TOO_BIG) {
        return this.fail(protocolError('ERR_PROTO_TOO_BIG_MBULK_COUNT_STRING'));
      }
      const count = parseLongLong(this.lineSource, this.lineStart + 1, this.lineEnd);
      this.releaseScratch();
      if (Number.isNaN(count) || count > MAX_MULTIBULK_LENGTH) {
        return this.fail(protocolError('ERR_PROTO_INVALID_MULTIBULK_LENGTH'));
      }
      if (count > UNAUTHENTICATED_MAX_MULTIBULK_LENGTH && this.authRequired) {
        return this.fail(protocolError('ERR_PROTO_UNAUTHENTICATED_MULTIBULK_LENGTH'));
      }
      if (count <= 0) return null;
      // argv grows as arguments arrive: a huge announced count reserves nothing.
      this.multibulkLength = count;
    }

    while (this.multibulkLength > 0) {
      if (this.bulkLength === -1) {
        const line = this.readLine(CR);
        if (line === LINE_MORE) return NEED_MORE;
        if (line === LINE_TOO_BIG) {
          return this.fail(protocolError('ERR_PROTO_TOO_BIG_BULK_COUNT_STRING'));
        }
        // Redis looks at the byte where the line starts, the `\r` itself
        // when the line is empty.
        const first = this.lineEnd > this.lineStart ? this.lineSource[this.lineStart]! : CR;
        if (first !== DOLLAR) {
          this.releaseScratch();
          return this.fail(expectedDollarError(first));
        }
        const length = parseLongLong(this.lineSource, this.lineStart + 1, this.lineEnd);
        this.releaseScratch();
        if (Number.isNaN(length) || length < 0 || length > this.maxBulkLength) {
          return this.fail(protocolError('ERR_PROTO_INVALID_BULK_LENGTH'));
        }
        if (length > UNAUTHENTICATED_MAX_BULK_LENGTH && this.authRequired) {
          return this.fail(protocolError('ERR_PROTO_UNAUTHENTICATED_BULK_LENGTH'));
        }
        this.bulkLength = length;
      }
      const arg = this.readBulk();
      if (arg === null) return NEED_MORE;
      if (this.argv.length === this.maxArguments) {
        return this.fail(protocolError('ERR_PROTO_INVALID_MULTIBULK_LENGTH'));
      }
      this.argv.push(arg);
      this.argvBytes +=
        arg.length === 0
          ? ARGUMENT_SLOT_BYTES
          : arg.length + ARGUMENT_SLOT_BYTES + ARGUMENT_OBJECT_BYTES;
      this.bulkLength = -1;
      this.multibulkLength--;
    }
    return null;
  }

  /**
   * Read a bulk of `bulkLength` bytes and skip the two after it (Redis does
   * not check they are `\r\n`). The argument exists once all of them are
   * there, as in Redis; a big one (BIG_BULK) is gathered as it comes.
   */
  private readBulk(): Buffer | null {
    const length = this.bulkLength;
    if (this.bulk === null) {
      if (this.buffered < length + 2) {
        if (length < BIG_BULK) return null;
        this.bulk = EMPTY;
      } else {
        const chunk = this.chunks[this.head]!;
        let arg: Buffer;
        if (length === 0) {
          // One shared Buffer: a flood of empty arguments costs their slots only.
          arg = EMPTY;
        } else if (chunk.length - this.pos >= length) {
          arg = chunk.subarray(this.pos, this.pos + length);
          this.consume(length);
        } else {
          arg = Buffer.allocUnsafe(length);
          this.copyOut(arg, 0, length);
        }
        this.consume(2);
        return arg;
      }
    }
    return this.gatherBulk(length);
  }

  /**
   * A big bulk: what is buffered of it moves into `bulk`, grown (doubling,
   * at most to `length`) as its bytes come; the argument once whole.
   */
  private gatherBulk(length: number): Buffer | null {
    const take = Math.min(length - this.bulkFilled, this.buffered);
    if (take > 0) {
      const need = this.bulkFilled + take;
      let bulk = this.bulk!;
      if (need > bulk.length) {
        // Growing by half: never more than half again what came is reserved.
        let capacity = Math.max(BULK_FIRST_CAPACITY, Math.floor(bulk.length * 1.5));
        while (capacity < need) capacity = Math.floor(capacity * 1.5);
        // Most of a big bulk's growing costs a copy each time; past a
        // sixteenth of it the sender means it, and the rest is reserved once.
        if (need >= length / BULK_WHOLE_AFTER) capacity = length;
        const grown = Buffer.allocUnsafe(Math.min(capacity, length));
        bulk.copy(grown, 0, 0, this.bulkFilled);
        this.bulk = bulk = grown;
      }
      this.copyOut(bulk, this.bulkFilled, take);
      this.bulkFilled = need;
    }
    if (this.bulkFilled < length || this.buffered < 2) return null;
    this.consume(2);
    const arg = this.bulk!;
    this.bulk = null;
    this.bulkFilled = 0;
    return arg;
  }

  /** Copies the next `n` buffered bytes into `target` at `at`, consuming them. */
  private copyOut(target: Buffer, at: number, n: number): void {
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[this.head]!;
      const take = Math.min(c.length - this.pos, n - filled);
      c.copy(target, at + filled, this.pos, this.pos + take);
      filled += take;
      this.consume(take);
    }
  }

  /**
   * Find the end of the line starting at the read position, as Redis's
   * strchr() over the whole query buffer: up to `terminator`, but a 0 byte
   * first hides it. A count line (`terminator` \r) also needs the byte after
   * the \r buffered, and skips it. A line split across chunks is gathered in
   * `scratch`; one within a chunk is used where it lies.
   */
  private readLine(terminator: number): number {
    if (this.lineAwaitsLf) {
      if (this.buffered === 0) return LINE_MORE;
      this.consume(1);
      this.lineAwaitsLf = false;
      return this.lineFromScratch();
    }
    while (this.head < this.chunks.length) {
      const chunk = this.chunks[this.head]!;
      const from = this.pos;
      const end = chunk.length;
      let i = from;
      if (!this.lineHidden) {
        while (i < end) {
          const b = chunk[i]!;
          if (b === terminator || b === 0) break;
          i++;
        }
      } else {
        i = end;
      }
      if (i < end && chunk[i] === terminator) {
        const inPlace = this.lineScanned === 0;
        if (!inPlace) this.appendScratch(chunk, from, i);
        if (terminator === CR && this.buffered - (i - from) < 2) {
          // The \r is the last byte buffered: keep the line, owe the byte after.
          if (inPlace) this.appendScratch(chunk, from, i);
          this.consume(i - from + 1);
          this.lineAwaitsLf = true;
          return LINE_MORE;
        }
        this.consume(i - from + (terminator === CR ? 2 : 1));
        if (!inPlace) return this.lineFromScratch();
        this.lineSource = chunk;
        this.lineStart = from;
        this.lineEnd = i;
        this.lineInScratch = false;
        this.resetLine();
        return LINE_READY;
      }
      // No terminator in this chunk. Bytes after a hiding 0 can never be
      // part of a line: they are counted (Redis's limit counts them) only.
      const wasHidden = this.lineHidden;
      if (i < end) this.lineHidden = true;
      if (!wasHidden) this.appendScratch(chunk, from, i);
      this.lineScanned += end - from;
      this.consume(end - from);
    }
    if (this.lineScanned > PROTO_INLINE_MAX_SIZE) return LINE_TOO_BIG;
    return LINE_MORE;
  }

  private lineFromScratch(): number {
    this.lineSource = this.scratch;
    this.lineStart = 0;
    this.lineEnd = this.scratchLength;
    this.lineInScratch = true;
    this.resetLine();
    return LINE_READY;
  }

  private resetLine(): void {
    this.lineScanned = 0;
    this.lineHidden = false;
  }

  /** Done with the line in `scratch`: forget it, and drop a scratch grown huge. */
  private releaseScratch(): void {
    if (!this.lineInScratch) return;
    this.scratchLength = 0;
    this.lineInScratch = false;
    if (this.scratch.length > SCRATCH_KEEP) this.scratch = EMPTY;
  }

  private appendScratch(chunk: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n <= 0) return;
    const need = this.scratchLength + n;
    if (need > this.scratch.length) {
      let capacity = Math.max(256, this.scratch.length);
      while (capacity < need) capacity *= 2;
      const grown = Buffer.allocUnsafe(capacity);
      this.scratch.copy(grown, 0, 0, this.scratchLength);
      this.scratch = grown;
    }
    chunk.copy(this.scratch, this.scratchLength, from, to);
    this.scratchLength = need;
  }

  /** Advance the read position by `n` buffered bytes, across chunks. */
  private consume(n: number): void {
    this.buffered -= n;
    while (n > 0) {
      const chunk = this.chunks[this.head]!;
      const left = chunk.length - this.pos;
      if (n < left) {
        this.pos += n;
        return;
      }
      n -= left;
      this.nextChunk();
    }
    if (this.head < this.chunks.length && this.pos === this.chunks[this.head]!.length) {
      this.nextChunk();
    }
  }

  private nextChunk(): void {
    this.head++;
    this.pos = 0;
    if (this.head === this.chunks.length) {
      this.chunks.length = 0;
      this.head = 0;
    } else if (this.head >= 64) {
      this.chunks.splice(0, this.head);
      this.head = 0;
    }
  }

  private fail(error: ProtocolError): ProtocolError {
    this.failure = error;
    this.chunks.length = 0;
    this.head = 0;
    this.pos = 0;
    this.buffered = 0;
    this.scratch = EMPTY;
    this.scratchLength = 0;
    this.argv = [];
    this.argvBytes = 0;
    this.bulk = null;
    this.bulkFilled = 0;
    return error;
  }
}
