import { parseLongLong } from '@strata/protocol';
import { eqi, parseInt64 } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import { bitOffsetError } from './bit-strings.js';

/** What a write does when its result leaves the field's range (OVERFLOW). */
export type Overflow = 'wrap' | 'sat' | 'fail';

/** A field: signed or not, its width in bits (i1..i64, u1..u63), its first bit. */
export interface BitField {
  readonly signed: boolean;
  readonly bits: number;
  readonly offset: number;
}

export type BitfieldOp =
  | ({ readonly kind: 'get' } & BitField)
  | ({
      readonly kind: 'set' | 'incrby';
      /** SET's value or INCRBY's increment, a signed 64-bit integer. */
      readonly value: bigint;
      readonly overflow: Overflow;
    } & BitField);

/** A parsed BITFIELD call. */
export interface BitfieldPlan {
  readonly ops: readonly BitfieldOp[];
  /** Only GETs: a read (BITFIELD_RO accepts it). */
  readonly readOnly: boolean;
  /** The last bit a write reaches (-1 without writes): the value grows to hold it. */
  readonly highestBit: number;
}

const typeError = () =>
  new CommandError(
    'ERR_SYNTAX',
    'ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.',
  );

const overflowTypeError = () =>
  new CommandError('ERR_SYNTAX', 'ERR Invalid OVERFLOW type specified');

const I = 0x69;
const U = 0x75;
const HASH = 0x23;

/** `i<bits>` or `u<bits>` (lower case only, as Redis's getBitfieldTypeFromArgument). */
function parseType(arg: Uint8Array): { signed: boolean; bits: number } {
  const signed = arg[0] === I;
  if (!signed && arg[0] !== U) throw typeError();
  const bits = parseLongLong(arg, 1, arg.length);
  if (Number.isNaN(bits) || bits < 1 || bits > (signed ? 64 : 63)) throw typeError();
  return { signed, bits };
}

/**
 * A field's offset: a bit, or `#N` for the N-th field of this width
 * (N * bits, wrapping at 64 bits as Redis's long long product); refused when
 * negative or its byte is not under `byteLimit` (proto-max-bulk-len).
 */
function parseOffset(arg: Uint8Array, bits: number, byteLimit: number): number {
  const hash = arg[0] === HASH ? 1 : 0;
  const v = parseLongLong(arg, hash, arg.length);
  if (Number.isNaN(v)) throw bitOffsetError();
  let offset = v;
  if (hash === 1) {
    const exact = BigInt(
      Buffer.from(arg.buffer, arg.byteOffset + 1, arg.length - 1).toString('latin1'),
    );
    const product = BigInt.asIntN(64, exact * BigInt(bits));
    if (product < 0n || product / 8n >= BigInt(byteLimit)) throw bitOffsetError();
    offset = Number(product);
  }
  if (offset < 0 || Math.floor(offset / 8) >= byteLimit) throw bitOffsetError();
  return offset;
}

/**
 * BITFIELD's arguments from index 2, all parsed before the key is looked up
 * (Redis's bitfieldGeneric): GET type offset, SET/INCRBY type offset value,
 * OVERFLOW WRAP|SAT|FAIL for the writes after it. A word without its
 * arguments is a syntax error; type, offset, value are checked in that order.
 */
export function parseBitfield(argv: readonly Uint8Array[], byteLimit: number): BitfieldPlan {
  const ops: BitfieldOp[] = [];
  let overflow: Overflow = 'wrap';
  let readOnly = true;
  let highestBit = -1;
  for (let j = 2; j < argv.length; j++) {
    const more = argv.length - j - 1;
    const word = argv[j]!;
    let kind: BitfieldOp['kind'];
    if (eqi(word, 'get') && more >= 2) kind = 'get';
    else if (eqi(word, 'set') && more >= 3) kind = 'set';
    else if (eqi(word, 'incrby') && more >= 3) kind = 'incrby';
    else if (eqi(word, 'overflow') && more >= 1) {
      const t = argv[++j]!;
      if (eqi(t, 'wrap')) overflow = 'wrap';
      else if (eqi(t, 'sat')) overflow = 'sat';
      else if (eqi(t, 'fail')) overflow = 'fail';
      else throw overflowTypeError();
      continue;
    } else throw syntaxError();
    const { signed, bits } = parseType(argv[j + 1]!);
    const offset = parseOffset(argv[j + 2]!, bits, byteLimit);
    if (kind === 'get') {
      ops.push({ kind, signed, bits, offset });
      j += 2;
      continue;
    }
    readOnly = false;
    highestBit = Math.max(highestBit, offset + bits - 1);
    const value = BigInt(parseInt64(argv[j + 3]!));
    ops.push({ kind, signed, bits, offset, value, overflow });
    j += 3;
  }
  return { ops, readOnly, highestBit };
}
