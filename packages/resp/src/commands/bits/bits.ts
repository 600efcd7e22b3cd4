import type { RangePicker, RmwFunctions } from '@strata/hlog';
import { parseLongLong } from '@strata/protocol';
import { parseInteger } from '../../args.js';
import { CommandError, syntaxError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { bitmapGroup } from '../shared/command-groups.js';
import { KEY1 } from '../shared/key-positions.js';
import { type StringWalk, walkString, withStringRange } from '../shared/string-range.js';
import { type BitSpan, isBitUnit, resolveBitSpan } from './bit-range.js';
import { offsetByteLimit, parseBitOffset } from './bit-strings.js';

// ---- helpers ------------------------------------------------------------------

const bitValueError = () =>
  new CommandError('ERR_NOT_INTEGER', 'ERR bit is not an integer or out of range');

// ---- SETBIT / GETBIT ------------------------------------------------------------

interface SetBitContext {
  byte: number;
  mask: number;
  on: boolean;
  /** The bit before the write (set by every run: a pending operation runs again). */
  old: number;
  /** The value grew (or was created): with `old !== on` Redis's condition for the `setbit` event. */
  grew: boolean;
}

/**
 * SETBIT as a read-modify-write: in place when the record allows it, else
 * one copy into the new record (grown to the byte when the offset is past
 * the end, zero-filled as Redis does).
 */
export const setBitFunctions: RmwFunctions<SetBitContext> = {
  initialLength(ctx) {
    ctx.old = 0;
    ctx.grew = true;
    return ctx.byte + 1;
  },
  initialValue(ctx, dst, off, len) {
    dst.fill(0, off, off + len);
    if (ctx.on) dst[off + ctx.byte] = ctx.mask;
  },
  updatedLength(ctx, old, off, len) {
    ctx.old = ctx.byte < len && (old[off + ctx.byte]! & ctx.mask) !== 0 ? 1 : 0;
    ctx.grew = ctx.byte >= len;
    return Math.max(len, ctx.byte + 1);
  },
  update(ctx, old, oo, ol, dst, off, len) {
    if (dst !== old || off !== oo) dst.set(old.subarray(oo, oo + ol), off);
    if (len > ol) dst.fill(0, off + ol, off + len);
    const i = off + ctx.byte;
    dst[i] = ctx.on ? dst[i]! | ctx.mask : dst[i]! & ~ctx.mask;
  },
};

function setBit(c: Client, argv: Buffer[]): CommandResult {
  const offset = parseBitOffset(argv[2]!, offsetByteLimit(c));
  const a = argv[3]!;
  const bit = parseLongLong(a, 0, a.length);
  if (bit !== 0 && bit !== 1) throw bitValueError();
  const ctx: SetBitContext = {
    byte: Math.floor(offset / 8),
    mask: 1 << (7 - (offset % 8)),
    on: bit === 1,
    old: 0,
    grew: false,
  };
  const key = argv[1]!;
  const v = c.store.readModifyWrite(key, setBitFunctions, ctx);
  if (v.status !== 'pending') {
    if (v.status === 'wrongType') throw wrongTypeError();
    notifySetBit(c, key, v.status === 'ok' && v.created, ctx);
    c.reply.integer(ctx.old);
    return undefined;
  }
  return v.pending.then((r) => {
    if (r.status === 'wrongType') throw wrongTypeError();
    notifySetBit(c, key, r.status === 'ok' && r.created, ctx);
    c.reply.integer(ctx.old);
  });
}

/**
 * SETBIT's events as Redis 7 sends them: `new` when it made the key, then
 * `setbit` only when the value changed (made, grown, or the bit flipped).
 */
function notifySetBit(c: Client, key: Buffer, created: boolean, ctx: SetBitContext): void {
  if (created) notify(c, NotifyClass.new, 'new', key);
  if (ctx.grew || ctx.old !== (ctx.on ? 1 : 0)) notify(c, NotifyClass.string, 'setbit', key);
}

function getBit(c: Client, argv: Buffer[]): CommandResult {
  const offset = parseBitOffset(argv[2]!, offsetByteLimit(c));
  const byte = Math.floor(offset / 8);
  const mask = 1 << (7 - (offset % 8));
  // One byte of the value: a large one on the device loads one chunk.
  return withStringRange(c, argv[1]!, byte, 1, (b, base, total) => {
    c.reply.integer(b !== null && byte < total && (b[base + byte]! & mask) !== 0 ? 1 : 0);
  });
}

// ---- BITCOUNT -------------------------------------------------------------------

const POPCOUNT = new Uint8Array(256);
for (let i = 1; i < 256; i++) POPCOUNT[i] = (i & 1) + POPCOUNT[i >> 1]!;

function popcount(b: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n += POPCOUNT[b[i]!]!;
  return n;
}

/** BITCOUNT's range arguments; null for the whole value. */
interface CountRange {
  readonly start: number;
  readonly end: number;
  readonly isBit: boolean;
}

function parseCountRange(argv: Buffer[]): CountRange | null {
  if (argv.length === 2) return null;
  if (argv.length !== 4 && argv.length !== 5) throw syntaxError();
  const start = parseInteger(argv[2]!);
  const end = parseInteger(argv[3]!);
  const isBit = argv.length === 5 && isBitUnit(argv[4]!);
  return { start, end, isBit };
}

/**
 * BITCOUNT key [start end [BYTE|BIT]] as Redis 7.0: the key is looked up
 * before the range is parsed (a missing key answers 0 whatever follows), so
 * an argument error is kept and thrown once the key is found. It reads only
 * the bytes of the range, window by window (a value on the device is never
 * held whole), and counts the bits `[firstBit, lastBit]`.
 */
class BitCount implements RangePicker, StringWalk {
  from = 0;
  to = 0;
  private firstBit = 0;
  private lastBit = -1;
  private count = 0;
  private readonly range: CountRange | null = null;
  private readonly error: unknown = null;

  constructor(
    private readonly c: Client,
    argv: Buffer[],
  ) {
    try {
      this.range = parseCountRange(argv);
    } catch (e) {
      this.error = e;
    }
  }

  pick(total: number): void {
    const r = this.range;
    let span: BitSpan | null;
    if (this.error !== null) span = null;
    else if (r === null) span = total === 0 ? null : { firstBit: 0, lastBit: total * 8 - 1 };
    else if (r.start < 0 && r.end < 0 && r.start > r.end) span = null;
    else span = resolveBitSpan(r.start, r.end, r.isBit, total);
    this.firstBit = span === null ? 0 : span.firstBit;
    this.lastBit = span === null ? -1 : span.lastBit;
    this.from = span === null ? 0 : Math.floor(span.firstBit / 8);
    this.to = span === null ? 0 : Math.floor(span.lastBit / 8) + 1;
  }

  start(): void {
    this.count = 0;
  }

  visit(b: Uint8Array, base: number, from: number, to: number): boolean {
    let n = popcount(b, base + from, base + to);
    // The bits of the edge bytes outside the range (none for a BYTE range).
    const s = Math.floor(this.firstBit / 8);
    const e = Math.floor(this.lastBit / 8);
    if (s >= from && s < to) {
      n -= POPCOUNT[b[base + s]! & (~((1 << (8 - (this.firstBit & 7))) - 1) & 0xff)]!;
    }
    if (e >= from && e < to) n -= POPCOUNT[b[base + e]! & ((1 << (7 - (this.lastBit & 7))) - 1)]!;
    this.count += n;
    return false;
  }

  end(total: number): void {
    if (total >= 0 && this.error !== null) throw this.error;
    this.c.reply.integer(total < 0 ? 0 : this.count);
  }
}

function bitCountCommand(c: Client, argv: Buffer[]): CommandResult {
  const count = new BitCount(c, argv);
  return walkString(c, argv[1]!, count, count);
}

// ---- the table -------------------------------------------------------------------

export const bitCommands: CommandDefinition[] = [
  {
    name: 'setbit',
    arity: 4,
    flags: ['write', 'denyoom'],
    ...KEY1,
    ...bitmapGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '2.2.0',
    complexity: 'O(1)',
    summary:
      "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.",
    handler: setBit,
  },
  {
    name: 'getbit',
    arity: 3,
    flags: ['readonly', 'fast'],
    ...KEY1,
    ...bitmapGroup,
    since: '2.2.0',
    complexity: 'O(1)',
    summary: 'Returns a bit value by offset.',
    handler: getBit,
  },
  {
    name: 'bitcount',
    arity: -2,
    flags: ['readonly'],
    ...KEY1,
    ...bitmapGroup,
    since: '2.6.0',
    complexity: 'O(N)',
    summary: 'Counts the number of set bits (population counting) in a string.',
    handler: bitCountCommand,
  },
];
