/// <reference path="./fengari.d.ts" />
import type { LuaJsFunction, LuaState } from 'fengari';
import { lauxlib, lua } from './lua-module.js';

/**
 * Roberto Ierusalimschy's `struct` library as Redis 7.0 loads it
 * (deps/lua/src/lua_struct.c, with Redis's overflow fixes): struct.pack,
 * struct.unpack and struct.size over the format language `<` `>` `!n`
 * `x` `b B h H l L T i I<n>` `s` `f d` `c<n>` `c0`, with its errors.
 *
 * Redis runs it on x86-64 with a C `long`: native order is little-endian,
 * `l` `L` `T` are 8 bytes, `!` alone aligns to 8, and integers go through a
 * 64-bit integer, so the C conversions are emulated where a script can see
 * them: a double out of range becomes 0x8000000000000000 (cvttsd2si), a
 * shift by `size*8 - 1` counts modulo 64, bytes past the eighth are zero.
 */

const MAXINTSIZE = 32;
/** MAXALIGN: the alignment of a double in a struct, on x86-64. */
const MAXALIGN = 8;
/** Lua 5.1's LUAI_MAXCSTACK: the slots a C function may use. */
const MAX_C_STACK = 8000;
const INT_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const TWO_63 = 2 ** 63;

const SIZES: Readonly<Record<string, number>> = {
  b: 1,
  B: 1,
  h: 2,
  H: 2,
  l: 8,
  L: 8,
  T: 8,
  f: 4,
  d: 8,
  x: 1,
};

interface Header {
  little: boolean;
  align: number;
}

/** A format string being read (up to its first NUL, as C reads it). */
class Format {
  at = 0;
  readonly bytes: Uint8Array;

  constructor(fmt: Uint8Array) {
    const nul = fmt.indexOf(0);
    this.bytes = nul < 0 ? fmt : fmt.subarray(0, nul);
  }

  get done(): boolean {
    return this.at >= this.bytes.length;
  }

  next(): number {
    return this.bytes[this.at++]!;
  }

  private isDigit(): boolean {
    const c = this.bytes[this.at];
    return c !== undefined && c >= 0x30 && c <= 0x39;
  }

  /** getnum: the number written here, or `df`; Redis refuses one past INT_MAX. */
  number(L: LuaState, df: number): number {
    if (!this.isDigit()) return df;
    let a = 0;
    do {
      const digit = this.bytes[this.at]! - 0x30;
      if (a > Math.floor(INT_MAX / 10) || a * 10 > INT_MAX - digit) {
        lauxlib.luaL_error(L, 'integral size overflow');
      }
      a = a * 10 + digit;
      this.at++;
    } while (this.isDigit());
    return a;
  }
}

function optsize(L: LuaState, opt: number, f: Format): number {
  const c = String.fromCharCode(opt);
  const fixed = SIZES[c];
  if (fixed !== undefined) return fixed;
  if (c === 'c') return f.number(L, 1);
  if (c === 'i' || c === 'I') {
    const sz = f.number(L, 4);
    if (sz > MAXINTSIZE) {
      lauxlib.luaL_error(L, `integral size ${sz} is larger than limit of ${MAXINTSIZE}`);
    }
    return sz;
  }
  return 0;
}

/** The low bits `mask` of a position that may be past 2^31 (a size_t in C). */
function lowBits(len: number, mask: number): number {
  if (len >= 0 && len < 2 ** 31) return len & mask;
  // A start before the string (infinite here): the item is refused whatever its padding.
  if (!Number.isFinite(len)) return 0;
  return Number(BigInt.asUintN(64, BigInt(Math.trunc(len))) & BigInt(mask));
}

/** Padding before an item of `size` at `len` (gettoalign; C's formula, also for sizes not a power of 2). */
function gettoalign(len: number, h: Header, opt: number, size: number): number {
  if (size === 0 || opt === 0x63 /* c */) return 0;
  const s = Math.min(size, h.align);
  return (s - lowBits(len, s - 1)) & (s - 1);
}

/** Endianness and alignment options; anything else is an invalid option. */
function controloptions(L: LuaState, opt: number, f: Format, h: Header): void {
  switch (opt) {
    case 0x20: // ' '
      return;
    case 0x3e: // '>'
      h.little = false;
      return;
    case 0x3c: // '<'
      h.little = true;
      return;
    case 0x21: {
      // '!'
      const a = f.number(L, MAXALIGN);
      if (a <= 0 || (a & (a - 1)) !== 0)
        lauxlib.luaL_error(L, `alignment ${a} is not a power of 2`);
      h.align = a;
      return;
    }
    default: {
      // The option byte as it is (lua_pushfstring's %c), not as UTF-8.
      const msg = Buffer.concat([
        Buffer.from("invalid format option '"),
        Buffer.from([opt]),
        Buffer.from("'"),
      ]);
      lauxlib.luaL_argerror(L, 1, msg);
    }
  }
}

/** (int64_t)d as x86-64 converts it: out of range or NaN is INT64_MIN. */
function toInt64(d: number): bigint {
  if (!(d >= -TWO_63 && d < TWO_63)) return INT64_MIN;
  return BigInt(Math.trunc(d));
}

/** (uint64_t)d as gcc converts it on x86-64 (through cvttsd2si, 2^63 subtracted above it). */
function toUint64(d: number): bigint {
  if (!(d >= TWO_63)) return BigInt.asUintN(64, toInt64(d));
  return BigInt.asUintN(64, toInt64(d - TWO_63)) ^ (1n << 63n);
}

/** 5.1's luaL_optinteger: a number (or numeric string) truncated to a 64-bit integer. */
function optInteger(L: LuaState, i: number, df: number): bigint {
  const t = lua.lua_type(L, i);
  if (t === lua.LUA_TNIL || t === -1) return BigInt(df);
  return toInt64(lauxlib.luaL_checknumber(L, i));
}

function putinteger(out: number[], n: number, little: boolean, size: number): void {
  let value = n < 0 ? BigInt.asUintN(64, toInt64(n)) : toUint64(n);
  const bytes = new Array<number>(size);
  for (let i = 0; i < size; i++) {
    bytes[little ? i : size - 1 - i] = Number(value & 0xffn);
    value >>= 8n;
  }
  for (const b of bytes) out.push(b);
}

function getinteger(
  data: Uint8Array,
  at: number,
  little: boolean,
  signed: boolean,
  size: number,
): number {
  let l = 0n;
  for (let i = 0; i < size; i++) {
    const b = data[at + (little ? size - 1 - i : i)]!;
    l = BigInt.asUintN(64, (l << 8n) | BigInt(b));
  }
  if (!signed) return Number(l);
  // x86 counts a 64-bit shift modulo 64 (size 0 shifts by 63, size 9 by 7).
  const mask = BigInt.asUintN(64, ~0n << BigInt((size * 8 - 1) & 63));
  if ((l & mask) !== 0n) l |= mask;
  return Number(BigInt.asIntN(64, l));
}

function floatBytes(out: number[], n: number, size: 4 | 8, little: boolean): void {
  const dv = new DataView(new ArrayBuffer(size));
  if (size === 4) dv.setFloat32(0, n, little);
  else dv.setFloat64(0, n, little);
  for (let i = 0; i < size; i++) out.push(dv.getUint8(i));
}

const pack: LuaJsFunction = (L) => {
  const f = new Format(lauxlib.luaL_checklstring(L, 1));
  // lua_struct.c pushes a nil mark: an argument missing after the last given is `nil`, not `no value`.
  lua.lua_pushnil(L);
  const h: Header = { little: true, align: 1 };
  const out: number[] = [];
  const chunks: Uint8Array[] = [];
  let arg = 2;
  let total = 0;
  while (!f.done) {
    const opt = f.next();
    let size = optsize(L, opt, f);
    let pad = gettoalign(total, h, opt, size);
    total += pad;
    while (pad-- > 0) out.push(0);
    switch (String.fromCharCode(opt)) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        putinteger(out, lauxlib.luaL_checknumber(L, arg++), h.little, size);
        break;
      case 'x':
        out.push(0);
        break;
      case 'f':
        floatBytes(out, lauxlib.luaL_checknumber(L, arg++), 4, h.little);
        break;
      case 'd':
        floatBytes(out, lauxlib.luaL_checknumber(L, arg++), 8, h.little);
        break;
      case 'c':
      case 's': {
        const s = lauxlib.luaL_checklstring(L, arg++);
        if (size === 0) size = s.length;
        // Redis names the argument after the string's (its `arg` was already incremented).
        if (s.length < size) lauxlib.luaL_argerror(L, arg, 'string too short');
        chunks.push(Uint8Array.from(out), s.subarray(0, size));
        out.length = 0;
        if (opt === 0x73 /* s */) {
          out.push(0);
          size++;
        }
        break;
      }
      default:
        controloptions(L, opt, f, h);
    }
    total += size;
  }
  chunks.push(Uint8Array.from(out));
  lua.lua_pushstring(L, Buffer.concat(chunks));
  return 1;
};

const unpack: LuaJsFunction = (L) => {
  const f = new Format(lauxlib.luaL_checklstring(L, 1));
  const data = lauxlib.luaL_checklstring(L, 2);
  const ld = data.length;
  const start = optInteger(L, 3, 1);
  // Redis's check is on a size_t: only 0 is refused; a negative offset is past the end.
  if (start === 0n) lauxlib.luaL_argerror(L, 3, 'offset must be 1 or greater');
  let pos = start < 0n ? Number.POSITIVE_INFINITY : Number(start - 1n);
  const h: Header = { little: true, align: 1 };
  let n = 0;
  while (!f.done) {
    const opt = f.next();
    let size = optsize(L, opt, f);
    pos += gettoalign(pos, h, opt, size);
    if (!(size <= ld && pos <= ld - size)) lauxlib.luaL_argerror(L, 2, 'data string too short');
    // luaL_checkstack(L, 2, "too many results") against 5.1's C stack.
    // Grown with room to spare: the error itself must still be pushed once the limit is reached.
    if (lua.lua_gettop(L) + 2 > MAX_C_STACK || !lua.lua_checkstack(L, 5)) {
      lauxlib.luaL_error(L, 'stack overflow (too many results)');
    }
    switch (String.fromCharCode(opt)) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua.lua_pushnumber(L, getinteger(data, pos, h.little, opt >= 0x61, size));
        n++;
        break;
      case 'x':
        break;
      case 'f':
      case 'd': {
        const dv = new DataView(data.buffer, data.byteOffset + pos, size);
        lua.lua_pushnumber(L, size === 4 ? dv.getFloat32(0, h.little) : dv.getFloat64(0, h.little));
        n++;
        break;
      }
      case 'c':
        if (size === 0) {
          // The length is the value read just before (a number, or a string that is one).
          if (n === 0 || !lua.lua_isnumber(L, -1))
            lauxlib.luaL_error(L, "format 'c0' needs a previous size");
          const len = lua.lua_tonumber(L, -1);
          size = len >= 0 ? Math.trunc(len) : Number.POSITIVE_INFINITY;
          lua.lua_pop(L, 1);
          n--;
          if (!(size <= ld - pos)) lauxlib.luaL_argerror(L, 2, 'data string too short');
        }
        lua.lua_pushstring(L, data.subarray(pos, pos + size));
        n++;
        break;
      case 's': {
        const e = data.indexOf(0, pos);
        if (e < 0) lauxlib.luaL_error(L, 'unfinished string in data');
        size = e - pos + 1;
        lua.lua_pushstring(L, data.subarray(pos, e));
        n++;
        break;
      }
      default:
        controloptions(L, opt, f, h);
    }
    pos += size;
  }
  // The next position; a start past the end comes back as given (size_t arithmetic wraps back).
  lua.lua_pushnumber(L, Number.isFinite(pos) ? pos + 1 : Number(start));
  return n + 1;
};

const size: LuaJsFunction = (L) => {
  const f = new Format(lauxlib.luaL_checklstring(L, 1));
  const h: Header = { little: true, align: 1 };
  let pos = 0;
  while (!f.done) {
    const opt = f.next();
    const sz = optsize(L, opt, f);
    pos += gettoalign(pos, h, opt, sz);
    if (opt === 0x73) lauxlib.luaL_argerror(L, 1, "option 's' has no fixed size");
    else if (opt === 0x63 && sz === 0) lauxlib.luaL_argerror(L, 1, "option 'c0' has no fixed size");
    // Unknown letters and digits add nothing here (C's isalnum); other bytes must be options.
    if (!isAlnum(opt)) controloptions(L, opt, f, h);
    pos += sz;
  }
  lua.lua_pushnumber(L, pos);
  return 1;
};

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

export const openStruct: LuaJsFunction = (L) => {
  lua.lua_createtable(L, 0, 3);
  for (const [name, fn] of [
    ['pack', pack],
    ['unpack', unpack],
    ['size', size],
  ] as const) {
    lua.lua_pushjsfunction(L, fn);
    lua.lua_setfield(L, -2, name);
  }
  return 1;
};
