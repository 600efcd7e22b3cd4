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
  const argv: Buffer[] = [];
  const end = walkRecord(buf, pos, WALKED, argv);
  if (end === RECORD_INCOMPLETE) return INCOMPLETE;
  if (end < 0) return invalid(invalidReason);
  return { kind: 'command', argv, end };
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

/** The name (first argument) and argument count of a record `commandRecordEnd` read. */
export interface CommandSpan {
  argc: number;
  nameStart: number;
  nameEnd: number;
}

/** `commandRecordEnd`: the buffer ends before the record does. */
export const RECORD_INCOMPLETE = -1;
/** `commandRecordEnd`: no command record (an annotation, or one parseCommandRecord refuses). */
export const RECORD_OTHER = -2;

/**
 * The end of the command record at `pos`, read as strictly as
 * parseCommandRecord reads it but without making its arguments (an AOF
 * reader passing over commands it will not apply); `span` gets the name's
 * place and the argument count. RECORD_INCOMPLETE when the buffer ends
 * first; RECORD_OTHER for an annotation or anything parseCommandRecord
 * would call invalid (it then says why).
 */
export function commandRecordEnd(buf: Buffer, pos: number, span: CommandSpan): number {
  if (pos >= buf.length) return RECORD_INCOMPLETE;
  if (buf[pos] === 35 /* # */) return RECORD_OTHER;
  const end = walkRecord(buf, pos, span, null);
  return end === RECORD_INVALID ? RECORD_OTHER : end;
}

/** walkRecord: the record is not one (the reason in `invalidReason`). */
const RECORD_INVALID = -3;
/** Why the last walkRecord or lengthAt said invalid (module state: no object per record). */
let invalidReason = '';
/** Where the digits the last lengthAt read end. */
let lengthEnd = 0;
/** parseCommandRecord's span, which it does not return. */
const WALKED: CommandSpan = { argc: 0, nameStart: 0, nameEnd: 0 };

/**
 * The one reading of a command record (`*` at `pos`): its end, or
 * RECORD_INCOMPLETE, or RECORD_INVALID with `invalidReason`; the
 * arguments' views pushed to `argv` when one is given.
 */
function walkRecord(buf: Buffer, pos: number, span: CommandSpan, argv: Buffer[] | null): number {
  if (buf[pos] !== 42 /* * */) return fail(`expected '*', got byte ${buf[pos]}`);
  const count = lengthAt(buf, pos + 1, MAX_ARGS);
  if (count < 0) return count;
  if (count < 1) return fail('empty command');
  let p = lengthEnd;
  for (let i = 0; i < count; i++) {
    if (p >= buf.length) return RECORD_INCOMPLETE;
    if (buf[p] !== 36 /* $ */) return fail(`expected '$', got byte ${buf[p]}`);
    const len = lengthAt(buf, p + 1, MAX_BULK);
    if (len < 0) return len;
    const start = lengthEnd;
    const end = start + len;
    if (end + 2 > buf.length) return RECORD_INCOMPLETE;
    if (buf[end] !== 13 || buf[end + 1] !== 10) return fail('bulk not followed by CRLF');
    if (i === 0) {
      span.nameStart = start;
      span.nameEnd = end;
    }
    argv?.push(buf.subarray(start, end));
    p = end + 2;
  }
  span.argc = count;
  return p;
}

function fail(reason: string): number {
  invalidReason = reason;
  return RECORD_INVALID;
}

/**
 * Digits then CRLF at `pos`: the value (its end in `lengthEnd`),
 * RECORD_INCOMPLETE if the buffer ends first, or RECORD_INVALID.
 */
function lengthAt(buf: Buffer, pos: number, max: number): number {
  let v = 0;
  let p = pos;
  for (;;) {
    if (p >= buf.length) return RECORD_INCOMPLETE;
    const c = buf[p]!;
    if (c === 13) break;
    if (c < 48 || c > 57) return fail(`unexpected byte ${c} in a length`);
    v = v * 10 + (c - 48);
    if (v > max) return fail('length out of range');
    p++;
    if (p - pos > 12) return fail('length too long');
  }
  if (p === pos) return fail('empty length');
  if (p + 1 >= buf.length) return RECORD_INCOMPLETE;
  if (buf[p + 1] !== 10) return fail('length not followed by CRLF');
  lengthEnd = p + 2;
  return v;
}
