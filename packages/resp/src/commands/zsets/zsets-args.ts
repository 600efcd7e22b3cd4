import { Before, latin1, type SortedSet } from '@strata/collections';
import { parseInteger } from '../../args.js';
import { CommandError, notFloatError, notIntegerError } from '../../errors.js';

/**
 * Arguments of the sorted set commands, parsed as Redis 7 parses them:
 * scores as strtod reads them (`inf`, `-inf`, `+inf`, hex, exponents; no
 * spaces, no NaN), score ranges with `(` for an open end, lex ranges with
 * `[`, `(`, `-` and `+`.
 */

const INF = /^[+-]?inf(inity)?$/i;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const HEX = /^[+-]?0x[\da-f]+$/i;

/** A double as Redis's strtod-based parsers read it, or NaN when it is not one. */
export function parseDouble(arg: Uint8Array): number {
  if (arg.length === 0 || arg.length > 5120) return Number.NaN;
  // Plain decimals (most scores) are read from the bytes, with no string made.
  const fast = parsePlainDecimal(arg);
  if (!Number.isNaN(fast)) return fast;
  const s = Buffer.from(arg.buffer, arg.byteOffset, arg.length).toString('latin1');
  if (NUMBER.test(s)) return Number(s);
  if (INF.test(s)) return s[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (HEX.test(s)) {
    const v = Number.parseInt(s.replace(/^[+-]/, ''), 16);
    return s[0] === '-' ? -v : v;
  }
  return Number.NaN;
}

/** 10^0 .. 10^22: every one a double exactly. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * `[+-]digits[.digits]` (or `.digits`) whose digits make an integer below
 * 2^53, with at most 22 after the point: the integer and the power of ten
 * are both exact doubles, so one division rounds as strtod does (Clinger's
 * fast path). NaN for anything else (exponents, hex, inf, longer numbers),
 * which the caller reads the slow way.
 */
function parsePlainDecimal(arg: Uint8Array): number {
  const end = arg.length;
  let p = 0;
  const sign = arg[0];
  if (sign === 0x2d || sign === 0x2b) p++;
  let mantissa = 0;
  let digits = 0;
  let point = -1;
  for (; p < end; p++) {
    const b = arg[p]!;
    if (b === 0x2e) {
      if (point >= 0) return Number.NaN;
      point = p;
      continue;
    }
    const d = b - 0x30;
    if (d < 0 || d > 9) return Number.NaN;
    mantissa = mantissa * 10 + d;
    digits++;
  }
  if (digits === 0 || mantissa > Number.MAX_SAFE_INTEGER) return Number.NaN;
  const fraction = point < 0 ? 0 : end - point - 1;
  if (fraction > 22) return Number.NaN;
  const v = fraction === 0 ? mantissa : mantissa / POW10[fraction]!;
  return sign === 0x2d ? -v : v;
}

/** A score / increment / weight argument, else `ERR value is not a valid float`. */
export function parseScore(arg: Uint8Array): number {
  const v = parseDouble(arg);
  if (Number.isNaN(v)) throw notFloatError();
  return v;
}

/** `ERR <text>` with a stable code for range and value errors. */
export function outOfRange(text: string): CommandError {
  return new CommandError('ERR_OUT_OF_RANGE', `ERR ${text}`);
}

export function syntax(text: string): CommandError {
  return new CommandError('ERR_SYNTAX', `ERR ${text}`);
}

/** getPositiveLongFromObjectOrReply: an integer >= 0, else Redis's error (or `message`). */
export function parsePositive(arg: Uint8Array, message?: string): number {
  let v: number;
  try {
    v = parseInteger(arg);
  } catch (e) {
    if (message !== undefined) throw outOfRange(message);
    throw e;
  }
  if (v < 0) throw outOfRange(message ?? 'value is out of range, must be positive');
  return v;
}

/** getRangeLongFromObjectOrReply with a message: the message for anything not in [min, max]. */
export function parseRanged(arg: Uint8Array, min: number, max: number, message: string): number {
  let v: number;
  try {
    v = parseInteger(arg);
  } catch {
    throw outOfRange(message);
  }
  if (v < min || v > max) throw outOfRange(message);
  return v;
}

/** A score range: min..max with open ends, as ranks [start, end) of a set. */
export interface ScoreRange {
  readonly min: number;
  readonly max: number;
  readonly minOpen: boolean;
  readonly maxOpen: boolean;
}

function scoreBound(arg: Uint8Array): { v: number; open: boolean } {
  const open = arg[0] === 0x28; // (
  const v = parseDouble(open ? arg.subarray(1) : arg);
  if (Number.isNaN(v)) throw new CommandError('ERR_NOT_FLOAT', 'ERR min or max is not a float');
  return { v, open };
}

export function parseScoreRange(min: Uint8Array, max: Uint8Array): ScoreRange {
  const a = scoreBound(min);
  const b = scoreBound(max);
  return { min: a.v, max: b.v, minOpen: a.open, maxOpen: b.open };
}

/** A lex range bound: a member, or the ends `-` / `+`. */
export interface LexBound {
  readonly kind: 'min' | 'max' | 'value';
  readonly value: string;
  readonly open: boolean;
}

export interface LexRange {
  readonly min: LexBound;
  readonly max: LexBound;
}

function lexBound(arg: Uint8Array): LexBound {
  const b = Buffer.from(arg.buffer, arg.byteOffset, arg.length);
  if (b.length === 1 && b[0] === 0x2d) return { kind: 'min', value: '', open: false };
  if (b.length === 1 && b[0] === 0x2b) return { kind: 'max', value: '', open: false };
  if (b[0] === 0x28 || b[0] === 0x5b) {
    return { kind: 'value', value: b.toString('latin1', 1), open: b[0] === 0x28 };
  }
  throw new CommandError('ERR_SYNTAX', 'ERR min or max not valid string range item');
}

export function parseLexRange(min: Uint8Array, max: Uint8Array): LexRange {
  return { min: lexBound(min), max: lexBound(max) };
}

/** The ranks [start, end) a score range covers in `z` (start >= end: empty). */
export function scoreRanks(z: SortedSet, r: ScoreRange): [number, number] {
  const start = z.countBefore(r.minOpen ? Before.SCORE_LE : Before.SCORE_LT, r.min);
  const end = z.countBefore(r.maxOpen ? Before.SCORE_LT : Before.SCORE_LE, r.max);
  return [start, end];
}

/** The ranks [start, end) a lex range covers in `z` (every score equal, as Redis assumes). */
export function lexRanks(z: SortedSet, r: LexRange): [number, number] {
  const n = z.size;
  const start = lowerLex(z, r.min, n);
  const end = upperLex(z, r.max, n);
  return [start, end];
}

function lowerLex(z: SortedSet, b: LexBound, n: number): number {
  if (b.kind === 'min') return 0;
  if (b.kind === 'max') return n;
  return z.countBefore(b.open ? Before.LEX_LE : Before.LEX_LT, 0, b.value);
}

function upperLex(z: SortedSet, b: LexBound, n: number): number {
  if (b.kind === 'min') return 0;
  if (b.kind === 'max') return n;
  return z.countBefore(b.open ? Before.LEX_LT : Before.LEX_LE, 0, b.value);
}

/** Members are latin1 strings inside the structures: one char per byte, any bytes. */
export function member(arg: Uint8Array): string {
  return latin1(arg);
}

/** LIMIT's numbers: any long (a negative count is no limit, a negative offset nothing). */
export function parseLong(arg: Uint8Array): number {
  const v = parseInteger(arg);
  if (!Number.isFinite(v)) throw notIntegerError();
  return v;
}
