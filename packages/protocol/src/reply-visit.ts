import { MalformedReplyError } from './reply-reader.js';

/**
 * What `visitReply` reports of a reply, value by value, depth first: an
 * aggregate's header (`array`, `map` with its pair count, `set`), then its
 * elements. Strings are views into the reply's bytes, valid during the call.
 */
export interface ReplyVisitor {
  simple(text: Buffer): void;
  /** `-ERR ...` or a RESP3 bulk error, without the `-`. */
  error(text: Buffer): void;
  integer(value: number): void;
  bulk(bytes: Buffer): void;
  /** A RESP3 null (`resp3`), or a RESP2 null bulk or null array. */
  null(resp3: boolean): void;
  array(length: number): void;
  map(pairs: number): void;
  set(length: number): void;
  double(value: number): void;
  boolean(value: boolean): void;
  bigNumber(digits: string): void;
  verbatim(format: string, text: Buffer): void;
}

/**
 * Walks the one whole reply that starts at `p` in `b` (as ReplyWriter wrote
 * it) and returns the offset after it: the decoder for a reply that is to
 * become something else (a Lua value, for scripts). RESP3 attributes are
 * skipped and pushes are reported as arrays. Throws MalformedReplyError on
 * bytes that are not a whole reply.
 */
export function visitReply(b: Buffer, p: number, v: ReplyVisitor): number {
  const lf = b.indexOf(0x0a, p);
  if (lf < 0 || b[lf - 1] !== 0x0d) throw new MalformedReplyError(`no whole reply at ${p}`);
  const after = lf + 1;
  const line = () => b.subarray(p + 1, lf - 1);
  switch (b[p]) {
    case 0x2b:
      v.simple(line());
      return after;
    case 0x2d:
      v.error(line());
      return after;
    case 0x3a:
      v.integer(Number(line().toString('latin1')));
      return after;
    case 0x5f:
      v.null(true);
      return after;
    case 0x2c: {
      const t = line().toString('latin1');
      v.double(t === 'inf' ? Infinity : t === '-inf' ? -Infinity : Number(t));
      return after;
    }
    case 0x23:
      v.boolean(b[p + 1] === 0x74);
      return after;
    case 0x28:
      v.bigNumber(line().toString('latin1'));
      return after;
    case 0x24:
    case 0x21:
    case 0x3d: {
      const n = Number(line().toString('latin1'));
      if (n < 0) {
        v.null(false);
        return after;
      }
      const end = after + n;
      if (end + 2 > b.length) throw new MalformedReplyError(`bulk of ${n} bytes cut short`);
      const bytes = b.subarray(after, end);
      if (b[p] === 0x21) v.error(bytes);
      else if (b[p] === 0x3d) v.verbatim(bytes.toString('latin1', 0, 3), bytes.subarray(4));
      else v.bulk(bytes);
      return end + 2;
    }
    case 0x2a:
    case 0x3e:
    case 0x7e:
    case 0x25: {
      const n = Number(line().toString('latin1'));
      if (n < 0) {
        v.null(false);
        return after;
      }
      const type = b[p];
      if (type === 0x25) v.map(n);
      else if (type === 0x7e) v.set(n);
      else v.array(n);
      let q = after;
      for (let i = type === 0x25 ? 2 * n : n; i > 0; i--) q = visitReply(b, q, v);
      return q;
    }
    case 0x7c: {
      // An attribute: its pairs are skipped, the value it annotates is visited.
      const n = Number(line().toString('latin1'));
      let q = after;
      for (let i = 2 * n; i > 0; i--) q = visitReply(b, q, IGNORE);
      return visitReply(b, q, v);
    }
    default:
      throw new MalformedReplyError(`unknown reply type at ${p}`);
  }
}

const nothing = () => {};
const IGNORE: ReplyVisitor = {
  simple: nothing,
  error: nothing,
  integer: nothing,
  bulk: nothing,
  null: nothing,
  array: nothing,
  map: nothing,
  set: nothing,
  double: nothing,
  boolean: nothing,
  bigNumber: nothing,
  verbatim: nothing,
};
