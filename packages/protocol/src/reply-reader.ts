import { StrataError } from '@strata/io';

/**
 * Counts complete top-level replies in a RESP2/RESP3 reply stream, as it
 * arrives in chunks, and keeps the last one: what a test harness or a load
 * generator needs to check that every command got exactly one reply, in
 * order, and that a protocol error is the last thing a closed connection
 * received.
 */
export class ReplyReader {
  /** Complete top-level replies so far (RESP3 attributes are not replies). */
  count = 0;
  /** Bytes of the last complete reply (the first 4 KiB of it). */
  last: Buffer = Buffer.alloc(0);
  private pending: Buffer = Buffer.alloc(0);

  /** `onReply`, when given, gets a copy of each whole reply. */
  constructor(private readonly onReply?: (reply: Buffer) => void) {}

  /** Takes a chunk of the stream; returns how many replies it completed. */
  feed(chunk: Buffer): number {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let from = 0;
    let lastFrom = -1;
    let lastEnd = 0;
    let n = 0;
    for (;;) {
      const end = replyEnd(this.pending, from);
      if (end < 0) break;
      if (this.onReply !== undefined) this.onReply(Buffer.from(this.pending.subarray(from, end)));
      lastFrom = from;
      lastEnd = end;
      n++;
      from = end;
    }
    // Copied once per chunk, not per reply: a pipeline's replies cost one copy.
    if (lastFrom >= 0) {
      this.last = Buffer.from(this.pending.subarray(lastFrom, Math.min(lastEnd, lastFrom + 4096)));
    }
    this.count += n;
    this.pending = from === this.pending.length ? Buffer.alloc(0) : this.pending.subarray(from);
    return n;
  }

  /** Bytes of a reply that has begun but not ended. */
  get partialBytes(): number {
    return this.pending.length;
  }
}

/**
 * The codes @strata/protocol throws (a request's protocol errors are replies, not throws):
 * - ERR_MALFORMED_REPLY: a reply stream that is not RESP2/RESP3 (MalformedReplyError)
 * - ERR_REPLY_ENCODING: a reply the writer cannot encode (ReplyEncodingError)
 */
export type ProtocolThrowCode = 'ERR_MALFORMED_REPLY' | 'ERR_REPLY_ENCODING';

/** A reply stream that is not RESP2/RESP3. */
export class MalformedReplyError extends StrataError<ProtocolThrowCode> {
  constructor(message: string) {
    super('ERR_MALFORMED_REPLY', message);
  }
}

/**
 * The offset after the whole reply (RESP2 or RESP3) that starts at `p`, or
 * -1 when `b` ends first. Throws MalformedReplyError on bytes that are not
 * a reply.
 */
export function replyEnd(b: Buffer, p: number): number {
  return skipValue(b, p, 0);
}

function skipValue(b: Buffer, p: number, depth: number): number {
  if (p >= b.length) return -1;
  if (depth > 64) throw new MalformedReplyError('replies nested deeper than 64');
  const lf = b.indexOf(0x0a, p);
  if (lf < 0) return -1;
  if (b[lf - 1] !== 0x0d) throw new MalformedReplyError(`a line without \\r at ${lf}`);
  const after = lf + 1;
  const type = b[p]!;
  switch (type) {
    case 0x2b: // + simple
    case 0x2d: // - error
    case 0x3a: // : integer
    case 0x5f: // _ null
    case 0x2c: // , double
    case 0x23: // # boolean
    case 0x28: // ( big number
      return after;
    case 0x24: // $ bulk
    case 0x21: // ! bulk error
    case 0x3d: {
      // = verbatim
      const n = count(b, p, lf);
      if (n < 0) return after;
      const end = after + n + 2;
      if (end > b.length) return -1;
      if (b[end - 2] !== 0x0d || b[end - 1] !== 0x0a) {
        throw new MalformedReplyError(`bulk of ${n} bytes not followed by \\r\\n`);
      }
      return end;
    }
    case 0x2a: // * array
    case 0x7e: // ~ set
    case 0x3e: // > push
    case 0x25: // % map
    case 0x7c: {
      // | attribute: its pairs, then the value it annotates
      const n = count(b, p, lf);
      if (n < 0) return after;
      const elements = type === 0x25 || type === 0x7c ? 2 * n : n;
      let q = after;
      for (let i = 0; i < elements; i++) {
        q = skipValue(b, q, depth + 1);
        if (q < 0) return -1;
      }
      return type === 0x7c ? skipValue(b, q, depth) : q;
    }
    default:
      throw new MalformedReplyError(
        `unknown reply type ${JSON.stringify(String.fromCharCode(type))} in ${JSON.stringify(b.subarray(p, Math.min(lf + 1, p + 80)).toString('latin1'))}`,
      );
  }
}

function count(b: Buffer, p: number, lf: number): number {
  const text = b.toString('latin1', p + 1, lf - 1);
  if (!/^-?\d+$/.test(text)) throw new MalformedReplyError(`bad length ${JSON.stringify(text)}`);
  return Number(text);
}
