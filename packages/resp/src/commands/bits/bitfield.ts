import { MAX_VALUE_LENGTH, type RmwFunctions } from '@strata/hlog';
import { CommandError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { bitmapGroup } from '../shared/command-groups.js';
import { KEY1 } from '../shared/key-positions.js';
import { NONE } from '../shared/replay-rules.js';
import { withStringRange } from '../shared/string-range.js';
import { offsetByteLimit } from './bit-strings.js';
import {
  type BitField,
  type BitfieldOp,
  type BitfieldPlan,
  parseBitfield,
} from './bitfield-args.js';
import { type FieldWrite, signedResult, unsignedResult } from './bitfield-overflow.js';

/** Up to 32 bits from `bitOffset` on, most significant first; bytes past `len` read as 0. */
function readBits(b: Uint8Array, off: number, len: number, bitOffset: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const p = bitOffset + i;
    const byte = Math.floor(p / 8);
    const bit = byte < len ? (b[off + byte]! >> (7 - (p & 7))) & 1 : 0;
    v = v * 2 + bit;
  }
  return v;
}

/** A field's value in `b[off, off + len)`, zero-padded past the end (Redis's get*Bitfield). */
export function getField(b: Uint8Array, off: number, len: number, f: BitField): bigint {
  const hiBits = f.bits > 32 ? f.bits - 32 : 0;
  const loBits = f.bits - hiBits;
  const hi = hiBits > 0 ? readBits(b, off, len, f.offset, hiBits) : 0;
  const lo = readBits(b, off, len, f.offset + hiBits, loBits);
  const u = (BigInt(hi) << BigInt(loBits)) | BigInt(lo);
  return f.signed ? BigInt.asIntN(f.bits, u) : u;
}

/** Stores the low `f.bits` bits of `value` into the field (inside the value). */
export function setField(b: Uint8Array, off: number, f: BitField, value: bigint): void {
  const u = BigInt.asUintN(64, value);
  const hi = Number(u >> 32n);
  const lo = Number(u & 0xffffffffn);
  for (let i = 0; i < f.bits; i++) {
    const pos = f.bits - 1 - i;
    const bit = pos >= 32 ? (hi >>> (pos - 32)) & 1 : (lo >>> pos) & 1;
    const p = f.offset + i;
    const at = off + Math.floor(p / 8);
    const mask = 1 << (7 - (p & 7));
    b[at] = bit === 1 ? b[at]! | mask : b[at]! & ~mask;
  }
}

/** One op's reply: an integer, or null for a write refused by OVERFLOW FAIL. */
type OpReply = bigint | null;

interface BitfieldContext {
  readonly plan: BitfieldPlan;
  /** The length the value grows to: the byte of the last bit written. */
  readonly needed: number;
  /** Set by every run (a pending operation runs again). */
  replies: OpReply[];
  /** Some write changed a value, or the key was made or grew: Redis's `changes`. */
  changed: boolean;
}

/** Runs every op on the value `b[off, off + len)`, already grown to hold the writes. */
function runOps(
  ctx: BitfieldContext,
  b: Uint8Array,
  off: number,
  len: number,
  grew: boolean,
): void {
  const replies: OpReply[] = [];
  let changed = false;
  for (const op of ctx.plan.ops) {
    const old = getField(b, off, len, op);
    if (op.kind === 'get') {
      replies.push(old);
      continue;
    }
    const next = writeResult(op, old);
    if (next === null) {
      replies.push(null);
      continue;
    }
    setField(b, off, op, next);
    replies.push(op.kind === 'set' ? old : next);
    if (grew || next !== old) changed = true;
  }
  ctx.replies = replies;
  ctx.changed = changed;
}

function writeResult(op: Exclude<BitfieldOp, { kind: 'get' }>, old: bigint): FieldWrite {
  if (op.signed) {
    return op.kind === 'incrby'
      ? signedResult(old, op.value, op.bits, op.overflow)
      : signedResult(op.value, 0n, op.bits, op.overflow);
  }
  return op.kind === 'incrby'
    ? unsignedResult(old, op.value, op.bits, op.overflow)
    : unsignedResult(BigInt.asUintN(64, op.value), 0n, op.bits, op.overflow);
}

/**
 * A writing BITFIELD as one read-modify-write: the value made or grown
 * (zero-filled) to the last bit any write reaches, as Redis's
 * lookupStringForBitCommand, then the ops in order.
 */
const bitfieldFunctions: RmwFunctions<BitfieldContext> = {
  initialLength(ctx) {
    return ctx.needed;
  },
  initialValue(ctx, dst, off, len) {
    dst.fill(0, off, off + len);
    runOps(ctx, dst, off, len, true);
  },
  updatedLength(ctx, _old, _off, len) {
    return Math.max(len, ctx.needed);
  },
  update(ctx, old, oo, ol, dst, off, len) {
    if (dst !== old || off !== oo) dst.set(old.subarray(oo, oo + ol), off);
    if (len > ol) dst.fill(0, off + ol, off + len);
    runOps(ctx, dst, off, len, len > ol);
  },
};

function replyOps(c: Client, replies: readonly OpReply[]): void {
  c.reply.array(replies.length);
  for (const r of replies) {
    if (r === null) c.reply.null();
    else c.reply.integer(r);
  }
}

/**
 * Only GETs: a read (a missing key reads as zeros, after its `keymiss`) of
 * the bytes the fields span, so a large value on the device loads only
 * the chunks under them.
 */
function readFields(c: Client, key: Buffer, plan: BitfieldPlan): CommandResult {
  let first = Number.POSITIVE_INFINITY;
  let last = -1;
  for (const op of plan.ops) {
    first = Math.min(first, Math.floor(op.offset / 8));
    last = Math.max(last, Math.floor((op.offset + op.bits - 1) / 8));
  }
  const from = last < 0 ? 0 : first;
  return withStringRange(c, key, from, last + 1 - from, (b, base, total) => {
    c.reply.array(plan.ops.length);
    for (const op of plan.ops) c.reply.integer(b === null ? 0n : getField(b, base, total, op));
  });
}

function writeFields(c: Client, key: Buffer, plan: BitfieldPlan): CommandResult {
  const ctx: BitfieldContext = {
    plan,
    needed: Math.floor(plan.highestBit / 8) + 1,
    replies: [],
    changed: false,
  };
  const done = (status: string, created: boolean) => {
    if (status === 'wrongType') throw wrongTypeError();
    // Redis's dbAdd sends `new` even when every write failed.
    if (created) notify(c, NotifyClass.new, 'new', key);
    if (ctx.changed) notify(c, NotifyClass.string, 'setbit', key);
    replyOps(c, ctx.replies);
  };
  const v = c.store.readModifyWrite(key, bitfieldFunctions, ctx);
  if (v.status === 'pending') {
    return v.pending.then((r) => done(r.status, r.status === 'ok' && r.created));
  }
  done(v.status, v.status === 'ok' && v.created);
  return undefined;
}

/**
 * BITFIELD key [GET type offset | SET type offset value | INCRBY type
 * offset increment | OVERFLOW WRAP|SAT|FAIL] ...: every argument parsed
 * first; with writes, the key is made or grown (`setbit` when a write changed
 * something or the value grew), else only read.
 */
function bitfield(c: Client, argv: Buffer[]): CommandResult {
  const plan = parseBitfield(argv, offsetByteLimit(c));
  if (plan.readOnly) return readFields(c, argv[1]!, plan);
  return writeFields(c, argv[1]!, plan);
}

/** WATCH: a BITFIELD of GETs only changes nothing (Redis signals no key then). */
function bitfieldChangedKeys(argv: readonly Uint8Array[]): number[] {
  return onlyGets(argv) ? [] : [1];
}

/** The call parses as GETs only (a call that does not parse is refused before it writes anyway). */
function onlyGets(argv: readonly Uint8Array[]): boolean {
  try {
    return parseBitfield(argv, MAX_VALUE_LENGTH).readOnly;
  } catch {
    return false;
  }
}

/** BITFIELD_RO: GETs only, refused after the whole call parsed. */
function bitfieldRo(c: Client, argv: Buffer[]): CommandResult {
  const plan = parseBitfield(argv, offsetByteLimit(c));
  if (!plan.readOnly) {
    throw new CommandError('ERR_SYNTAX', 'ERR BITFIELD_RO only supports the GET subcommand');
  }
  return readFields(c, argv[1]!, plan);
}

export const bitfieldCommand: CommandDefinition = {
  name: 'bitfield',
  arity: -2,
  flags: ['write', 'denyoom'],
  ...KEY1,
  ...bitmapGroup,
  keyFlags: ['RW', 'access', 'update', 'variable_flags'],
  keyNotes: 'This command allows both access and modification of the key',
  changedKeysOf: bitfieldChangedKeys,
  // GETs only write nothing: not logged (Redis propagates nothing then).
  replay: (argv) => (onlyGets(argv) ? NONE : [argv as Buffer[]]),
  since: '3.2.0',
  complexity: 'O(1) for each subcommand specified',
  summary: 'Perform arbitrary bitfield integer operations on strings',
  handler: bitfield,
};

export const bitfieldRoCommand: CommandDefinition = {
  name: 'bitfield_ro',
  arity: -2,
  flags: ['readonly', 'fast'],
  ...KEY1,
  ...bitmapGroup,
  since: '6.0.0',
  complexity: 'O(1) for each subcommand specified',
  summary:
    'Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD',
  handler: bitfieldRo,
};
