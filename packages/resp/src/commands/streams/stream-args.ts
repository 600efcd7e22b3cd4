import {
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  nextStreamId,
  previousStreamId,
  type StreamId,
  type StreamTrim,
  streamId,
  streamIdBig,
} from '@strata/collections';
import { eqi, integerOrNaN, parseInteger } from '../../args.js';
import { CommandError, notIntegerError } from '../../errors.js';

/**
 * Stream arguments as Redis 7.0 reads them (t_stream.c): IDs with
 * string2ull's leniency, range bounds, the trimming options of XADD and
 * XTRIM. Each check throws Redis's own error.
 */

export const invalidIdError = () =>
  new CommandError('ERR_STREAM_ID', 'ERR Invalid stream ID specified as stream command argument');

const U64_MAX = (1n << 64n) - 1n;
const LL_MAX = (1n << 63n) - 1n;

function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * string2ull of the bytes `arg[from, to)`: a strict long long first (no
 * sign but '-', no leading zeros; a negative one refused), else strtoull
 * over the whole text (leading blanks and a sign allowed, a negative value
 * wrapping modulo 2^64), or null. Plain digits (the hot path: XADD, XACK,
 * XRANGE IDs) are read from the bytes with no text made.
 */
function parseU64(arg: Uint8Array, from: number, to: number): bigint | null {
  const fast = plainDigits(arg, from, to);
  if (fast !== -1) return BigInt(fast);
  return parseU64Slow(
    Buffer.from(arg.buffer, arg.byteOffset, arg.length).toString('latin1', from, to),
  );
}

/** 1 to 15 digits, no leading zero, in `arg[from, to)`, as a number; -1 otherwise. */
function plainDigits(arg: Uint8Array, from: number, to: number): number {
  const n = to - from;
  if (n === 0 || n > 15 || (n > 1 && arg[from] === 0x30)) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = arg[i]! - 0x30;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

function parseU64Slow(s: string): bigint | null {
  if (/^(0|-?[1-9][0-9]*)$/.test(s)) {
    const v = BigInt(s);
    if (v >= -LL_MAX - 1n && v <= LL_MAX) return v < 0n ? null : v;
  }
  let i = 0;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  let negative = false;
  if (s[i] === '+' || s[i] === '-') {
    negative = s[i] === '-';
    i++;
  }
  const digits = s.slice(i);
  if (!/^[0-9]+$/.test(digits)) return null;
  const v = BigInt(digits);
  if (v > U64_MAX) return null;
  return negative ? (U64_MAX + 1n - v) & U64_MAX : v;
}

/** How an ID argument may be written where it is read. */
export interface IdRules {
  /** `-` and `+` alone stand for 0-0 and the greatest ID (range bounds only). */
  readonly minusPlus: boolean;
  /** The seq of an ID given as `<ms>` alone: 0, or the greatest (a range's end). */
  readonly missingSeq: 'min' | 'max';
}

export const STRICT: IdRules = { minusPlus: false, missingSeq: 'min' };
export const RANGE_START: IdRules = { minusPlus: true, missingSeq: 'min' };
export const RANGE_END: IdRules = { minusPlus: true, missingSeq: 'max' };

/** Where an argument ends as Redis's C string sees it: at its first NUL. */
function cEnd(arg: Uint8Array): number {
  const nul = arg.indexOf(0);
  return nul === -1 ? arg.length : nul;
}

/**
 * An ID argument (streamGenericParseIDOrReply), or null where it is not
 * one (XADD's `<ms>-*` is parseXaddId's). Read from the bytes: text is made
 * only for what plain digits do not cover.
 */
export function idOrNull(arg: Uint8Array, rules: IdRules): StreamId | null {
  if (arg.length > 127) return null;
  const end = cEnd(arg);
  if (end === 1 && (arg[0] === 0x2d || arg[0] === 0x2b)) {
    // XRANGE's `-` and `+`.
    if (!rules.minusPlus) return null;
    return arg[0] === 0x2d ? MIN_STREAM_ID : MAX_STREAM_ID;
  }
  const found = arg.indexOf(0x2d);
  const dash = found >= end ? -1 : found;
  if (dash !== -1) {
    // `<ms>-<seq>` in plain digits: numbers all the way, no BigInt.
    const ms = plainDigits(arg, 0, dash);
    const seq = ms === -1 ? -1 : plainDigits(arg, dash + 1, end);
    if (seq !== -1) return streamId(ms, seq);
  }
  const ms = parseU64(arg, 0, dash === -1 ? end : dash);
  if (ms === null) return null;
  if (dash === -1) return streamIdBig(ms, rules.missingSeq === 'min' ? 0n : U64_MAX);
  const seq = parseU64(arg, dash + 1, end);
  return seq === null ? null : streamIdBig(ms, seq);
}

/** An ID argument; Redis's "Invalid stream ID" otherwise. */
export function parseId(arg: Uint8Array, rules: IdRules = STRICT): StreamId {
  const id = idOrNull(arg, rules);
  if (id === null) throw invalidIdError();
  return id;
}

/** XADD's ID: `*`, `<ms>-*` (seq chosen on append) or an explicit ID. */
export type XaddId =
  | { readonly kind: 'auto' }
  | { readonly kind: 'ms'; readonly ms: StreamId }
  | { readonly kind: 'explicit'; readonly id: StreamId };

/** XADD's `*`. */
export const AUTO_ID: XaddId = Object.freeze({ kind: 'auto' });

export function parseXaddId(arg: Uint8Array): XaddId {
  if (arg.length === 1 && arg[0] === 0x2a) return AUTO_ID;
  const end = cEnd(arg);
  // `<ms>-*`: the only dash is the one before the `*` that ends it.
  if (arg.length <= 127 && end >= 2 && arg[end - 1] === 0x2a && arg.indexOf(0x2d) === end - 2) {
    const ms = parseU64(arg, 0, end - 2);
    if (ms === null) throw invalidIdError();
    return { kind: 'ms', ms: streamIdBig(ms, 0n) };
  }
  return { kind: 'explicit', id: parseId(arg, STRICT) };
}

/**
 * A range bound (streamParseIntervalIDOrReply): `-`, `+`, an ID, or `(id`
 * for an exclusive one, moved to the next (start) or previous (end) ID;
 * an exclusive bound past the last / before the first ID is Redis's
 * "invalid start/end ID for the interval".
 */
export function parseBound(arg: Uint8Array, end: boolean): StreamId {
  const exclusive = arg.length > 1 && arg[0] === 0x28;
  if (!exclusive) return parseId(arg, end ? RANGE_END : RANGE_START);
  const id = parseId(arg.subarray(1), { minusPlus: false, missingSeq: end ? 'max' : 'min' });
  const moved = end ? previousStreamId(id) : nextStreamId(id);
  if (moved === null) {
    throw new CommandError(
      'ERR_STREAM_ID',
      end ? 'ERR invalid end ID for the interval' : 'ERR invalid start ID for the interval',
    );
  }
  return moved;
}

/** XADD / XTRIM trimming: MAXLEN or MINID, `=` or `~`, LIMIT. */
/** A trim as parsed: none, or one the stream applies (StreamValue.trim). */
export type Trim = { readonly strategy: 'none' } | StreamTrim;

export const NO_TRIM: Trim = { strategy: 'none' };

/** Redis's default LIMIT for `~` trimming: 100 times stream-node-max-entries. */
const APPROX_LIMIT = 100 * 100;

/**
 * Reads one trimming option at `argv[i]` if there is one: returns the
 * index after it, or -1 when `argv[i]` is not MAXLEN / MINID / LIMIT.
 * `state` collects them (streamParseAddOrTrimArgsOrReply).
 */
export interface TrimParse {
  strategy: 'none' | 'maxlen' | 'minid';
  approx: boolean;
  threshold: Uint8Array | null;
  limit: number;
  limitGiven: boolean;
}

const trimScratch: TrimParse = {
  strategy: 'none',
  approx: false,
  threshold: null,
  limit: -1,
  limitGiven: false,
};

/** The trim options' parse state, cleared: one for every command (parsing is synchronous, finishTrim copies it). */
export function trimParse(): TrimParse {
  const t = trimScratch;
  t.strategy = 'none';
  t.approx = false;
  t.threshold = null;
  t.limit = -1;
  t.limitGiven = false;
  return t;
}

export function parseTrimOption(argv: readonly Buffer[], i: number, t: TrimParse): number {
  const a = argv[i]!;
  const moreArgs = argv.length - i - 1;
  const maxlen = eqi(a, 'maxlen');
  const minid = eqi(a, 'minid');
  if ((maxlen || minid) && moreArgs >= 1) {
    if (t.strategy !== 'none') {
      throw new CommandError(
        'ERR_SYNTAX',
        'ERR syntax error, MAXLEN and MINID options at the same time are not compatible',
      );
    }
    let at = i + 1;
    const op = argv[at]!;
    if (moreArgs >= 2 && op.length === 1 && (op[0] === 0x7e || op[0] === 0x3d)) {
      t.approx = op[0] === 0x7e;
      at++;
    }
    t.strategy = maxlen ? 'maxlen' : 'minid';
    t.threshold = argv[at]!;
    if (maxlen) {
      const n = integerOrNaN(t.threshold);
      if (Number.isNaN(n)) throw notIntegerError();
      if (n < 0)
        throw new CommandError('ERR_OUT_OF_RANGE', 'ERR The MAXLEN argument must be >= 0.');
    } else {
      parseId(t.threshold, STRICT);
    }
    return at + 1;
  }
  if (eqi(a, 'limit') && moreArgs >= 1) {
    const n = parseInteger(argv[i + 1]!);
    if (n < 0) throw new CommandError('ERR_OUT_OF_RANGE', 'ERR The LIMIT argument must be >= 0.');
    t.limit = n;
    t.limitGiven = true;
    return i + 2;
  }
  return -1;
}

/** The options read, checked together as Redis does once all are in. */
export function finishTrim(t: TrimParse): Trim {
  if (t.limitGiven && t.strategy === 'none') {
    throw new CommandError(
      'ERR_SYNTAX',
      'ERR syntax error, LIMIT cannot be used without specifying a trimming strategy',
    );
  }
  if (t.limitGiven && !t.approx) {
    throw new CommandError(
      'ERR_SYNTAX',
      'ERR syntax error, LIMIT cannot be used without the special ~ option',
    );
  }
  if (t.strategy === 'none') return NO_TRIM;
  const limit = t.approx ? (t.limitGiven ? t.limit : APPROX_LIMIT) : 0;
  // The scratch lets go of the argument (and the socket chunk under it).
  const threshold = t.threshold!;
  t.threshold = null;
  if (t.strategy === 'maxlen') {
    return { strategy: 'maxlen', maxLen: integerOrNaN(threshold), approx: t.approx, limit };
  }
  return { strategy: 'minid', minId: parseId(threshold, STRICT), approx: t.approx, limit };
}
