/** What the parser found at an offset of the buffer. */
export type ParsedCommandRecord =
  | { kind: 'command'; argv: Buffer[]; end: number }
  /** A `#...\r\n` line (Redis 7's AOF annotations, which its loader skips): the text after `#`. */
  | { kind: 'annotation'; text: Buffer; end: number }
  | { kind: 'incomplete' }
  | { kind: 'invalid'; reason: string };

const INCOMPLETE: ParsedCommandRecord = { kind: 'incomplete' };
/** Redis's own limits on a multibulk count and a bulk length. */
const MAX_ARGS = 1024 * 1024 * 1024;
const MAX_BULK = 512 * 1024 * 1024;
/** Longest annotation line accepted. */
const MAX_ANNOTATION = 1024;

/**
 * Parses one command record as the AOF stores it (`*n\r\n` then n
 * `$len\r\n<bytes>\r\n`, or a `#` annotation line) at `pos`: strictly,
 * where RequestParser follows Redis's lenient rules for client input, and
 * with the record's end, so a reader can tell a torn tail from corruption.
 * Arguments are views of `buf`. `incomplete` when the buffer ends first.
 */
export function parseCommandRecord(buf: Buffer, pos: number): ParsedCommandRecord {
  if (pos >= buf.length) return INCOMPLETE;
  if (buf[pos] === 35 /* # */) return parseAnnotation(buf, pos);
  if (buf[pos] !== 42 /* * */) return invalid(`expected '*', got byte ${buf[pos]}`);
  const count = readNumber(buf, pos + 1, MAX_ARGS);
  if (count === null) return INCOMPLETE;
  if (typeof count === 'string') return invalid(count);
  if (count.value < 1) return invalid('empty command');
  let p = count.next;
  const argv: Buffer[] = new Array(count.value);
  for (let i = 0; i < count.value; i++) {
    if (p >= buf.length) return INCOMPLETE;
    if (buf[p] !== 36 /* $ */) return invalid(`expected '$', got byte ${buf[p]}`);
    const len = readNumber(buf, p + 1, MAX_BULK);
    if (len === null) return INCOMPLETE;
    if (typeof len === 'string') return invalid(len);
    const start = len.next;
    const end = start + len.value;
    if (end + 2 > buf.length) return INCOMPLETE;
    if (buf[end] !== 13 || buf[end + 1] !== 10) return invalid('bulk not followed by CRLF');
    argv[i] = buf.subarray(start, end);
    p = end + 2;
  }
  return { kind: 'command', argv, end: p };
}

function parseAnnotation(buf: Buffer, pos: number): ParsedCommandRecord {
  const limit = Math.min(buf.length, pos + MAX_ANNOTATION);
  const lf = buf.indexOf(10, pos);
  if (lf < 0 || lf >= limit)
    return lf < 0 && limit === buf.length ? INCOMPLETE : invalid('annotation too long');
  if (buf[lf - 1] !== 13) return invalid('annotation not ended by CRLF');
  return { kind: 'annotation', text: buf.subarray(pos + 1, lf - 1), end: lf + 1 };
}

function invalid(reason: string): ParsedCommandRecord {
  return { kind: 'invalid', reason };
}

/** Digits then CRLF from `pos`: the value and where the next field starts; null if the buffer ends. */
function readNumber(
  buf: Buffer,
  pos: number,
  max: number,
): { value: number; next: number } | string | null {
  let v = 0;
  let p = pos;
  for (;;) {
    if (p >= buf.length) return null;
    const c = buf[p]!;
    if (c === 13) break;
    if (c < 48 || c > 57) return `unexpected byte ${c} in a length`;
    v = v * 10 + (c - 48);
    if (v > max) return 'length out of range';
    p++;
    if (p - pos > 12) return 'length too long';
  }
  if (p === pos) return 'empty length';
  if (p + 1 >= buf.length) return null;
  if (buf[p + 1] !== 10) return 'length not followed by CRLF';
  return { value: v, next: p + 2 };
}
