import {
  MAX_VALUE_LENGTH,
  type ReadResult,
  RecordType,
  type RmwFunctions,
  type StoreCore,
} from '@strata/hlog';
import { parseLongLong } from '@strata/protocol';
import { eqi, parseInteger } from '../../args.js';
import { CommandError, syntaxError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { keyMiss, NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { bitmapGroup } from '../shared/command-groups.js';
import { KEY1, SRC_DST } from '../shared/key-positions.js';

// ---- helpers ------------------------------------------------------------------

const bitOffsetError = () =>
  new CommandError('ERR_OFFSET', 'ERR bit offset is not an integer or out of range');
const bitValueError = () =>
  new CommandError('ERR_NOT_INTEGER', 'ERR bit is not an integer or out of range');

/** A bit offset as Redis 7 takes it: an integer, >= 0, its byte under proto-max-bulk-len. */
function parseBitOffset(arg: Buffer): number {
  const v = parseLongLong(arg, 0, arg.length);
  if (Number.isNaN(v) || v < 0 || Math.floor(v / 8) >= MAX_VALUE_LENGTH) throw bitOffsetError();
  return v;
}

/** WRONGTYPE for a found collection (hash, set...): bit commands work on strings. */
function mustBeString(v: { status: string; type?: number }): void {
  if (v.status === 'found' && v.type !== RecordType.STRING) throw wrongTypeError();
}

const lcsTypeError = () =>
  new CommandError('ERR_WRONGTYPE', 'ERR The specified keys must contain string values');

/** LCS's read: a string's value, null for a missing key, false for a collection. */
type LcsValue = Buffer | null | false;

/** LCS's read: an owned value (a copy when it comes from the log), null when missing, false for a collection. */
function readValue(store: StoreCore, key: Buffer): LcsValue | Promise<LcsValue> {
  const v = store.read(key);
  if (v.status === 'found') {
    if (v.type !== RecordType.STRING) return false;
    return Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length));
  }
  if (v.status === 'notFound') return null;
  return v.pending.then((r: ReadResult) => {
    if (r.status === 'found' && r.type !== RecordType.STRING) return false;
    return r.status === 'found' ? r.value : null;
  });
}

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
  const offset = parseBitOffset(argv[2]!);
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
  const offset = parseBitOffset(argv[2]!);
  const byte = Math.floor(offset / 8);
  const mask = 1 << (7 - (offset % 8));
  const bitOf = (bytes: Uint8Array, off: number, len: number) =>
    byte < len && (bytes[off + byte]! & mask) !== 0 ? 1 : 0;
  const v = c.store.read(argv[1]!);
  mustBeString(v);
  if (v.status === 'found') c.reply.integer(bitOf(v.bytes, v.offset, v.length));
  else if (v.status === 'notFound') {
    keyMiss(c, argv[1]!);
    c.reply.integer(0);
  } else {
    return v.pending.then((r) => {
      mustBeString(r);
      if (r.status !== 'found') keyMiss(c, argv[1]!);
      c.reply.integer(r.status === 'found' ? bitOf(r.value, 0, r.value.length) : 0);
    });
  }
  return undefined;
}

// ---- BITCOUNT -------------------------------------------------------------------

const POPCOUNT = new Uint8Array(256);
for (let i = 1; i < 256; i++) POPCOUNT[i] = (i & 1) + POPCOUNT[i >> 1]!;

function popcount(b: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n += POPCOUNT[b[i]!]!;
  return n;
}

/** BITCOUNT over `b[off, off + len)`, Redis 7.0's range rules (argument errors after the lookup). */
function bitCount(argv: Buffer[], b: Uint8Array, off: number, len: number): number {
  if (argv.length === 2) return popcount(b, off, off + len);
  if (argv.length !== 4 && argv.length !== 5) throw syntaxError();
  let start = parseInteger(argv[2]!);
  let end = parseInteger(argv[3]!);
  let isBit = false;
  if (argv.length === 5) {
    if (eqi(argv[4]!, 'bit')) isBit = true;
    else if (!eqi(argv[4]!, 'byte')) throw syntaxError();
  }
  if (start < 0 && end < 0 && start > end) return 0;
  const total = isBit ? len * 8 : len;
  if (start < 0) start = total + start;
  if (end < 0) end = total + end;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  if (start > end) return 0;
  if (!isBit) return popcount(b, off + start, off + end + 1);
  const firstNeg = ~((1 << (8 - (start & 7))) - 1) & 0xff;
  const lastNeg = (1 << (7 - (end & 7))) - 1;
  const s = Math.floor(start / 8);
  const e = Math.floor(end / 8);
  let n = popcount(b, off + s, off + e + 1);
  n -= POPCOUNT[b[off + s]! & firstNeg]!;
  n -= POPCOUNT[b[off + e]! & lastNeg]!;
  return n;
}

function bitCountCommand(c: Client, argv: Buffer[]): CommandResult {
  const v = c.store.read(argv[1]!);
  mustBeString(v);
  if (v.status === 'found') c.reply.integer(bitCount(argv, v.bytes, v.offset, v.length));
  else if (v.status === 'notFound') {
    keyMiss(c, argv[1]!);
    c.reply.integer(0);
  } else {
    return v.pending.then((r) => {
      mustBeString(r);
      if (r.status !== 'found') keyMiss(c, argv[1]!);
      c.reply.integer(r.status === 'found' ? bitCount(argv, r.value, 0, r.value.length) : 0);
    });
  }
  return undefined;
}

// ---- LCS ------------------------------------------------------------------------

interface LcsOptions {
  idx: boolean;
  len: boolean;
  withMatchLen: boolean;
  minMatchLen: number;
}

function parseLcsOptions(argv: Buffer[]): LcsOptions {
  const o: LcsOptions = { idx: false, len: false, withMatchLen: false, minMatchLen: 0 };
  for (let j = 3; j < argv.length; j++) {
    const a = argv[j]!;
    const more = argv.length - 1 - j;
    if (eqi(a, 'idx')) o.idx = true;
    else if (eqi(a, 'len')) o.len = true;
    else if (eqi(a, 'withmatchlen')) o.withMatchLen = true;
    else if (eqi(a, 'minmatchlen') && more > 0) {
      const m = parseInteger(argv[j + 1]!);
      o.minMatchLen = Math.max(0, m);
      j++;
    } else throw syntaxError();
  }
  if (o.idx && o.len) {
    throw new CommandError(
      'ERR_SYNTAX',
      'ERR If you want both the length and indexes, please just use IDX.',
    );
  }
  return o;
}

/** LCS as Redis 7 computes it (the same DP table and walk, so the same matches). */
function lcs(c: Client, a: Buffer, b: Buffer, o: LcsOptions): void {
  const alen = a.length;
  const blen = b.length;
  const w = blen + 1;
  if ((alen + 1) * w * 4 > MAX_VALUE_LENGTH) {
    throw new CommandError(
      'ERR_TOO_LARGE',
      'ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len',
    );
  }
  const dp = new Uint32Array((alen + 1) * w);
  for (let i = 1; i <= alen; i++) {
    const ai = a[i - 1];
    const row = i * w;
    const prev = row - w;
    for (let j = 1; j <= blen; j++) {
      if (ai === b[j - 1]) dp[row + j] = dp[prev + j - 1]! + 1;
      else {
        const l1 = dp[prev + j]!;
        const l2 = dp[row + j - 1]!;
        dp[row + j] = Math.max(l1, l2);
      }
    }
  }
  const total = dp[alen * w + blen]!;
  if (o.len && !o.idx) {
    c.reply.integer(total);
    return;
  }
  const result = Buffer.alloc(total);
  const matches: number[][] = [];
  let idx = total;
  let i = alen;
  let j = blen;
  let aStart = alen;
  let aEnd = 0;
  let bStart = 0;
  let bEnd = 0;
  while (i > 0 && j > 0) {
    let emit = false;
    if (a[i - 1] === b[j - 1]) {
      result[idx - 1] = a[i - 1]!;
      if (aStart === alen) {
        aStart = i - 1;
        aEnd = i - 1;
        bStart = j - 1;
        bEnd = j - 1;
      } else if (aStart === i && bStart === j) {
        aStart--;
        bStart--;
      } else emit = true;
      if (aStart === 0 || bStart === 0) emit = true;
      idx--;
      i--;
      j--;
    } else {
      const l1 = dp[(i - 1) * w + j]!;
      const l2 = dp[i * w + j - 1]!;
      if (l1 > l2) i--;
      else j--;
      if (aStart !== alen) emit = true;
    }
    if (emit) {
      const matchLen = aEnd - aStart + 1;
      if (o.minMatchLen === 0 || matchLen >= o.minMatchLen) {
        matches.push([aStart, aEnd, bStart, bEnd, matchLen]);
      }
      aStart = alen;
    }
  }
  if (!o.idx) {
    c.reply.bulk(result);
    return;
  }
  c.reply.map(2);
  c.reply.bulk('matches');
  c.reply.array(matches.length);
  for (const m of matches) {
    c.reply.array(o.withMatchLen ? 3 : 2);
    c.reply.array(2).integer(m[0]!).integer(m[1]!);
    c.reply.array(2).integer(m[2]!).integer(m[3]!);
    if (o.withMatchLen) c.reply.integer(m[4]!);
  }
  c.reply.bulk('len');
  c.reply.integer(total);
}

function lcsCommand(c: Client, argv: Buffer[]): CommandResult {
  // Both keys are looked up before their types are checked, as in Redis:
  // each missing one is a `keymiss`, in order, whatever comes next.
  const ra = readValue(c.store, argv[1]!);
  let rb: LcsValue | Promise<LcsValue>;
  try {
    rb = readValue(c.store, argv[2]!);
  } catch (e) {
    // The first read, if on the disk, is not needed: its failure must not
    // become an unhandled rejection (which ends the process).
    if (ra instanceof Promise) ra.catch(() => undefined);
    throw e;
  }
  const run = (a: LcsValue, b: LcsValue) => {
    if (a === null) keyMiss(c, argv[1]!);
    if (b === null) keyMiss(c, argv[2]!);
    if (a === false || b === false) throw lcsTypeError();
    const o = parseLcsOptions(argv);
    lcs(c, a ?? Buffer.alloc(0), b ?? Buffer.alloc(0), o);
  };
  if (ra instanceof Promise || rb instanceof Promise) {
    return Promise.all([ra, rb]).then(([a, b]) => run(a, b));
  }
  run(ra, rb);
  return undefined;
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
  {
    name: 'lcs',
    arity: -3,
    flags: ['readonly'],
    ...SRC_DST,
    acl: ['string'],
    group: 'string',
    since: '7.0.0',
    complexity: 'O(N*M) where N and M are the lengths of s1 and s2, respectively',
    summary: 'Finds the longest common substring.',
    handler: lcsCommand,
  },
];
