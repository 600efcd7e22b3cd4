import type { Address, ByteCount } from './address.js';
import { InvalidArgumentError, type StrataErrorCode } from './errors.js';

/** Device operation kinds a fault or latency applies to. */
export type IoKind = 'read' | 'write' | 'sync' | 'truncate';

/**
 * What a fault does when it fires:
 * - `error`: the operation rejects before reaching the wrapped device
 *   (nothing is read or written), with `code` (default ERR_INJECTED_FAULT).
 * - `short-write`: only a prefix of the data is written and the write
 *   resolves as if it all was (silent data loss).
 * - `torn-write`: only a prefix is written, then the write rejects with a
 *   `TornWriteError` (code ERR_TORN_WRITE, `bytesPersisted`).
 * - `bit-flip`: the read completes, then one random bit of the bytes read is
 *   flipped (silent corruption, for checksum tests).
 */
export type FaultEffect = 'error' | 'short-write' | 'torn-write' | 'bit-flip';

/**
 * One fault rule. An operation *matches* when its kind is in `on` and (for a
 * rule with `range`) it is a read or write overlapping the range. Among
 * matching operations the rule is armed from the `nth` on; once armed it
 * fires with `probability`, at most `times` times. Rules are checked in the
 * order they were added; the first that fires decides the operation's fate,
 * but every matching rule counts the operation.
 */
export interface FaultSpec {
  /** Default: every kind the effect applies to (error: all; short/torn-write: write; bit-flip: read). */
  on?: IoKind | readonly IoKind[];
  /** Only reads and writes overlapping `[from, to)`. */
  range?: { from: Address; to: Address };
  /** 1-based index of the first matching operation that can fire. Default 1. */
  nth?: number;
  /** Chance of firing on each armed matching operation, from the seeded generator. Default 1. */
  probability?: number;
  /** Maximum number of firings. Default 1 when `nth` is given, otherwise unlimited. */
  times?: number;
  /** Default `error`. */
  effect?: FaultEffect;
  /** For `error`: the code. `ERR_IO` produces an `IoError` (osCode `osCode`, default `EIO`). */
  code?: StrataErrorCode;
  /** For `error` with code `ERR_IO`: the OS code to report. */
  osCode?: string;
  /**
   * For short and torn writes: bytes persisted, rounded down to the device
   * alignment and kept below the write's length. Default: a random aligned
   * length in `[0, length)`.
   */
  persist?: ByteCount;
}

/** Added latency: `minMs` fixed, or uniform in `[minMs, maxMs]`. */
export interface LatencySpec {
  minMs: number;
  maxMs?: number;
  /** Default: every kind. */
  on?: IoKind | readonly IoKind[];
}

export const KIND_READ = 1;
export const KIND_WRITE = 2;
export const KIND_SYNC = 4;
export const KIND_TRUNCATE = 8;
const KIND_ALL = KIND_READ | KIND_WRITE | KIND_SYNC | KIND_TRUNCATE;

const KIND_BITS: Record<IoKind, number> = {
  read: KIND_READ,
  write: KIND_WRITE,
  sync: KIND_SYNC,
  truncate: KIND_TRUNCATE,
};

const EFFECT_KINDS: Record<FaultEffect, number> = {
  error: KIND_ALL,
  'short-write': KIND_WRITE,
  'torn-write': KIND_WRITE,
  'bit-flip': KIND_READ,
};

/** Turns `on` into a bit mask, checking each kind is one the effect can apply to. */
export function kindMask(
  on: IoKind | readonly IoKind[] | undefined,
  allowed: number = KIND_ALL,
): number {
  if (on === undefined) return allowed;
  const kinds: readonly IoKind[] = typeof on === 'string' ? [on] : on;
  let mask = 0;
  for (const kind of kinds) {
    const bit = KIND_BITS[kind];
    if (bit === undefined || (bit & allowed) === 0) {
      throw new InvalidArgumentError(
        `fault cannot apply to operation kind ${JSON.stringify(kind)}`,
      );
    }
    mask |= bit;
  }
  return mask;
}

/** A validated fault rule with its counters. */
export interface CompiledFault {
  readonly effect: FaultEffect;
  readonly mask: number;
  readonly from: Address;
  readonly to: Address;
  readonly hasRange: boolean;
  readonly nth: number;
  readonly probability: number;
  readonly times: number;
}

export function compileFault(spec: FaultSpec): CompiledFault {
  const effect = spec.effect ?? 'error';
  const allowed = EFFECT_KINDS[effect];
  if (allowed === undefined) throw new InvalidArgumentError(`unknown fault effect ${effect}`);
  const nth = spec.nth ?? 1;
  if (!Number.isInteger(nth) || nth < 1) {
    throw new InvalidArgumentError(`fault nth must be a positive integer, got ${nth}`);
  }
  const probability = spec.probability ?? 1;
  if (!(probability >= 0 && probability <= 1)) {
    throw new InvalidArgumentError(`fault probability must be in [0, 1], got ${probability}`);
  }
  const times = spec.times ?? (spec.nth === undefined ? Number.POSITIVE_INFINITY : 1);
  if (!(times === Number.POSITIVE_INFINITY || (Number.isInteger(times) && times >= 1))) {
    throw new InvalidArgumentError(`fault times must be a positive integer, got ${times}`);
  }
  const range = spec.range;
  if (range !== undefined && !(range.from >= 0 && range.to > range.from)) {
    throw new InvalidArgumentError(`fault range must be [from, to) with 0 <= from < to`);
  }
  if (spec.persist !== undefined && !(Number.isInteger(spec.persist) && spec.persist >= 0)) {
    throw new InvalidArgumentError(`fault persist must be a non-negative integer`);
  }
  return {
    effect,
    mask: kindMask(spec.on, allowed),
    from: range?.from ?? 0,
    to: range?.to ?? 0,
    hasRange: range !== undefined,
    nth,
    probability,
    times,
  };
}

export function checkLatency(spec: LatencySpec): { min: number; max: number; mask: number } {
  const min = spec.minMs;
  const max = spec.maxMs ?? spec.minMs;
  if (!(min >= 0 && max >= min && Number.isFinite(max))) {
    throw new InvalidArgumentError(`latency must satisfy 0 <= minMs <= maxMs, got ${min}..${max}`);
  }
  return { min, max, mask: kindMask(spec.on) };
}
