/// <reference path="./fengari.d.ts" />
import type { LuaJsFunction, LuaState } from 'fengari';
import { lauxlib, lua } from './lua-module.js';

/**
 * lua-cmsgpack 0.4.0 as Redis 7.0 loads it (`cmsgpack.pack`, `unpack`,
 * `unpack_one`, `unpack_limit`): MessagePack with its choices. A number
 * with an integer value in int64's range is an integer (the smallest
 * encoding), other numbers a float32 when that is exact, else a float64
 * (a NaN too, its sign kept); a table whose keys are 1..n is an array, any
 * other a map; strings are raw strings (fixstr, str8/16/32). Decoding knows
 * no bin or ext types (Bad data format), reads a uint 64 as a signed
 * integer, and gives every number as a Lua 5.1 double.
 */
const MAX_NESTING = 16;

class Packer {
  private buf = Buffer.allocUnsafe(256);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  header(type: number, n: number, size: 1 | 2 | 4 | 8): void {
    this.room(1 + size);
    this.buf[this.length++] = type;
    if (size === 1) this.buf.writeUInt8(n, this.length);
    else if (size === 2) this.buf.writeUInt16BE(n, this.length);
    else if (size === 4) this.buf.writeUInt32BE(n, this.length);
    else this.buf.writeBigUInt64BE(BigInt.asUintN(64, BigInt(n)), this.length);
    this.length += size;
  }

  result(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function packNumber(p: Packer, n: number): void {
  // IS_INT64_EQUIVALENT: an integer value in int64_t's range (-2^63 included, 2^63 not).
  if (Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63) {
    if (n >= 0) {
      if (n < 128) p.byte(n);
      else if (n < 256) p.header(0xcc, n, 1);
      else if (n < 65536) p.header(0xcd, n, 2);
      else if (n < 2 ** 32) p.header(0xce, n, 4);
      else p.header(0xcf, n, 8);
    } else if (n >= -32) p.byte(n & 0xff);
    else if (n >= -128) p.header(0xd0, n & 0xff, 1);
    else if (n >= -32768) p.header(0xd1, n & 0xffff, 2);
    else if (n >= -(2 ** 31)) p.header(0xd2, n >>> 0, 4);
    else p.header(0xd3, n, 8);
    return;
  }
  // A float when it converts to one exactly (not a NaN: NaN != NaN), else a double, its bits kept.
  const b = Buffer.allocUnsafe(9);
  if (Math.fround(n) === n) {
    b[0] = 0xca;
    b.writeFloatBE(n, 1);
    p.bytes(b.subarray(0, 5));
  } else {
    b[0] = 0xcb;
    b.writeDoubleBE(n, 1);
    p.bytes(b);
  }
}

function packLength(
  p: Packer,
  n: number,
  fix: number,
  fixMax: number,
  t16: number,
  t32: number,
): void {
  if (n <= fixMax) p.byte(fix | n);
  else if (n < 65536) p.header(t16, n, 2);
  else p.header(t32, n, 4);
}

/** The array length of the table at `t` when its keys are exactly 1..n, else -1 (lua-cmsgpack's table_is_an_array). */
function arrayLength(L: LuaState, t: number): number {
  let count = 0;
  let max = 0;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, t) !== 0) {
    lua.lua_pop(L, 1);
    if (lua.lua_type(L, -1) !== lua.LUA_TNUMBER) {
      lua.lua_pop(L, 1);
      return -1;
    }
    const k = lua.lua_tonumber(L, -1);
    if (!Number.isInteger(k) || k < 1) {
      lua.lua_pop(L, 1);
      return -1;
    }
    if (k > max) max = k;
    count++;
  }
  return max === count ? count : -1;
}

function packValue(L: LuaState, i: number, p: Packer, depth: number): void {
  switch (lua.lua_type(L, i)) {
    case lua.LUA_TSTRING: {
      const s = lua.lua_tolstring(L, i)!;
      if (s.length < 32) p.byte(0xa0 | s.length);
      else if (s.length < 256) p.header(0xd9, s.length, 1);
      else if (s.length < 65536) p.header(0xda, s.length, 2);
      else p.header(0xdb, s.length, 4);
      p.bytes(s);
      return;
    }
    case lua.LUA_TNUMBER:
      packNumber(p, lua.lua_tonumber(L, i));
      return;
    case lua.LUA_TBOOLEAN:
      p.byte(lua.lua_toboolean(L, i) ? 0xc3 : 0xc2);
      return;
    case lua.LUA_TTABLE: {
      if (depth >= MAX_NESTING) {
        p.byte(0xc0);
        return;
      }
      const n = arrayLength(L, i);
      if (n >= 0) {
        packLength(p, n, 0x90, 15, 0xdc, 0xdd);
        for (let k = 1; k <= n; k++) {
          lua.lua_rawgeti(L, i, k);
          packValue(L, lua.lua_gettop(L), p, depth + 1);
          lua.lua_pop(L, 1);
        }
        return;
      }
      let pairs = 0;
      lua.lua_pushnil(L);
      while (lua.lua_next(L, i) !== 0) {
        lua.lua_pop(L, 1);
        pairs++;
      }
      packLength(p, pairs, 0x80, 15, 0xde, 0xdf);
      lua.lua_pushnil(L);
      while (lua.lua_next(L, i) !== 0) {
        const top = lua.lua_gettop(L);
        packValue(L, top - 1, p, depth + 1);
        packValue(L, top, p, depth + 1);
        lua.lua_pop(L, 1);
      }
      return;
    }
    default:
      // nil, functions, userdata: MessagePack's nil, as lua-cmsgpack packs them.
      p.byte(0xc0);
  }
}

const pack: LuaJsFunction = (L) => {
  const n = lua.lua_gettop(L);
  if (n === 0) return lauxlib.luaL_argerror(L, 0, 'MessagePack pack needs input.');
  const p = new Packer();
  for (let i = 1; i <= n; i++) packValue(L, i, p, 0);
  lua.lua_pushstring(L, p.result());
  return 1;
};

/** Lua 5.1's LUAI_MAXCSTACK: the slots a C function may use (luaL_checkstack fails past it). */
const MAX_C_STACK = 8000;
const TOO_MANY = 'too many return values at once; use unpack_one or unpack_limit instead.';

/** Why a decode stopped: the data ended early, or a byte is no type lua-cmsgpack knows. */
const EOF = -1;
const BADFMT = -2;

/** An array or map being filled: the values it still expects (a map counts keys and values). */
interface Open {
  readonly array: boolean;
  left: number;
  index: number;
}

/**
 * Decodes the value at `at` onto the stack as mp_decode_to_lua_type does;
 * the offset after it, or EOF / BADFMT. Iterative (Redis recurses, but its
 * stack limit allows some 4,000 levels of arrays, past what JavaScript's
 * stack holds here). Redis also holds one slot per open array (the index
 * of the element being decoded), counted for its stack limit.
 */
function unpackValue(L: LuaState, b: Buffer, start: number): number {
  const open: Open[] = [];
  let arrays = 0;
  let at = start;
  for (;;) {
    if (at >= b.length) return EOF;
    checkStack(L, arrays, TOO_MANY);
    const next = pushOne(L, b, at);
    if (next < 0) return next;
    let n = -1;
    let array = false;
    const t = b[at]!;
    if ((t & 0xf0) === 0x90 || t === 0xdc || t === 0xdd) {
      array = true;
      n = containerLength(b, at);
      checkStack(L, arrays, 'in function mp_decode_to_lua_array');
    } else if ((t & 0xf0) === 0x80 || t === 0xde || t === 0xdf) {
      n = containerLength(b, at) * 2;
    }
    at = next;
    if (n > 0) {
      open.push({ array, left: n, index: 1 });
      if (array) arrays++;
      continue;
    }
    // A whole value: it goes into the containers it completes.
    for (;;) {
      const top = open[open.length - 1];
      if (top === undefined) return at;
      top.left--;
      if (top.array) lua.lua_rawseti(L, -2, top.index++);
      else if (top.left % 2 === 0) lua.lua_settable(L, -3); // lua_settable, as Redis: a nil or NaN key is Lua's error.
      if (top.left > 0) break;
      open.pop();
      if (top.array) arrays--;
    }
  }
}

/** An array's or map's count from its header at `at` (the header is known complete). */
function containerLength(b: Buffer, at: number): number {
  const t = b[at]!;
  if (t === 0xdc || t === 0xde) return b.readUInt16BE(at + 1);
  if (t === 0xdd || t === 0xdf) return b.readUInt32BE(at + 1);
  return t & 0x0f;
}

/** Pushes the scalar at `at`, or an empty table for an array's or map's header; the offset after it. */
function pushOne(L: LuaState, b: Buffer, at: number): number {
  const t = b[at]!;
  const need = (n: number) => at + 1 + n <= b.length;
  const str = (len: number, from: number) => {
    if (from + len > b.length) return EOF;
    lua.lua_pushstring(L, b.subarray(from, from + len));
    return from + len;
  };
  const table = (next: number) => {
    lua.lua_newtable(L);
    return next;
  };
  if (t < 0x80) return pushed(L, t, at + 1);
  if (t >= 0xe0) return pushed(L, t - 256, at + 1);
  if ((t & 0xe0) === 0xa0) return str(t & 0x1f, at + 1);
  if ((t & 0xe0) === 0x80) return table(at + 1);
  switch (t) {
    case 0xc0:
      lua.lua_pushnil(L);
      return at + 1;
    case 0xc2:
    case 0xc3:
      lua.lua_pushboolean(L, t === 0xc3);
      return at + 1;
    case 0xcc:
      return need(1) ? pushed(L, b.readUInt8(at + 1), at + 2) : EOF;
    case 0xcd:
      return need(2) ? pushed(L, b.readUInt16BE(at + 1), at + 3) : EOF;
    case 0xce:
      return need(4) ? pushed(L, b.readUInt32BE(at + 1), at + 5) : EOF;
    case 0xcf:
    case 0xd3:
      // uint 64 is pushed through lua_pushinteger, a signed 64-bit integer: 2^64-1 reads as -1.
      return need(8) ? pushed(L, Number(b.readBigInt64BE(at + 1)), at + 9) : EOF;
    case 0xd0:
      return need(1) ? pushed(L, b.readInt8(at + 1), at + 2) : EOF;
    case 0xd1:
      return need(2) ? pushed(L, b.readInt16BE(at + 1), at + 3) : EOF;
    case 0xd2:
      return need(4) ? pushed(L, b.readInt32BE(at + 1), at + 5) : EOF;
    case 0xca:
      return need(4) ? pushed(L, b.readFloatBE(at + 1), at + 5) : EOF;
    case 0xcb:
      return need(8) ? pushed(L, b.readDoubleBE(at + 1), at + 9) : EOF;
    case 0xd9:
      return need(1) ? str(b.readUInt8(at + 1), at + 2) : EOF;
    case 0xda:
      return need(2) ? str(b.readUInt16BE(at + 1), at + 3) : EOF;
    case 0xdb:
      return need(4) ? str(b.readUInt32BE(at + 1), at + 5) : EOF;
    case 0xdc:
    case 0xde:
      return need(2) ? table(at + 3) : EOF;
    case 0xdd:
    case 0xdf:
      return need(4) ? table(at + 5) : EOF;
  }
  // bin 8/16/32, ext and 0xc1: lua-cmsgpack 0.4.0 knows none of them.
  return BADFMT;
}

/** A number as Lua 5.1 has them (a double: fengari's 32-bit integers would wrap in arithmetic). */
function pushed(L: LuaState, n: number, next: number): number {
  lua.lua_pushnumber(L, n);
  return next;
}

/**
 * luaL_checkstack(L, 1, why) against 5.1's C stack, counting Redis's
 * `extra` slots. fengari's stack is grown with room to spare, so the
 * error itself can still be pushed once the limit is reached.
 */
function checkStack(L: LuaState, extra: number, why: string): void {
  if (!lua.lua_checkstack(L, 4)) lauxlib.luaL_error(L, `stack overflow (${why})`);
  if (lua.lua_gettop(L) + extra + 1 > MAX_C_STACK) lauxlib.luaL_error(L, `stack overflow (${why})`);
}

/** 5.1's luaL_optinteger: a number (or numeric string) truncated to 64 bits. */
function integerArg(L: LuaState, i: number, optional: boolean): number {
  const t = lua.lua_type(L, i);
  if (optional && (t === lua.LUA_TNIL || t === -1)) return 0;
  const n = lauxlib.luaL_checknumber(L, i);
  return n >= -(2 ** 63) && n < 2 ** 63 ? Math.trunc(n) : -(2 ** 63);
}

/** (int) of a 64-bit value, as Redis's `%d` of `(int) offset` prints it. */
const int32 = (n: number) => Number(BigInt.asIntN(32, BigInt(n)));

/**
 * mp_unpack_full: up to `limit` values from `offset`; with neither (plain
 * unpack, or unpack_limit(s, 0)) every value and no offset, else the next
 * offset first (-1 once the input is consumed), then the values.
 */
function unpackFull(L: LuaState, limit: number, offset: number): number {
  const b = Buffer.from(lauxlib.luaL_checklstring(L, 1));
  const all = limit === 0 && offset === 0;
  if (offset < 0 || limit < 0) {
    return lauxlib.luaL_error(
      L,
      `Invalid request to unpack with offset of ${int32(offset)} and limit of ${int32(b.length)}.`,
    );
  }
  if (offset > b.length) {
    return lauxlib.luaL_error(
      L,
      `Start offset ${int32(offset)} greater than input length ${int32(b.length)}.`,
    );
  }
  const max = all ? Number.POSITIVE_INFINITY : limit;
  let at = offset;
  let n = 0;
  for (; at < b.length && n < max; n++) {
    const next = unpackValue(L, b, at);
    if (next === EOF) return lauxlib.luaL_error(L, 'Missing bytes in input.');
    if (next === BADFMT) return lauxlib.luaL_error(L, 'Bad data format in input.');
    at = next;
  }
  if (all) return n;
  checkStack(L, 0, 'in function mp_unpack_full');
  lua.lua_pushnumber(L, at >= b.length ? -1 : at);
  lua.lua_insert(L, 2);
  return n + 1;
}

const unpack: LuaJsFunction = (L) => unpackFull(L, 0, 0);

const unpackOne: LuaJsFunction = (L) => {
  const offset = integerArg(L, 2, true);
  lua.lua_settop(L, 1);
  return unpackFull(L, 1, offset);
};

const unpackLimit: LuaJsFunction = (L) => {
  const limit = integerArg(L, 2, false);
  const offset = integerArg(L, 3, true);
  lua.lua_settop(L, 1);
  return unpackFull(L, limit, offset);
};

export const openCmsgpack: LuaJsFunction = (L) => {
  lua.lua_newtable(L);
  const fns: [string, LuaJsFunction][] = [
    ['pack', pack],
    ['unpack', unpack],
    ['unpack_one', unpackOne],
    ['unpack_limit', unpackLimit],
  ];
  for (const [name, f] of fns) {
    lua.lua_pushjsfunction(L, f);
    lua.lua_setfield(L, -2, name);
  }
  lua.lua_pushstring(L, 'cmsgpack');
  lua.lua_setfield(L, -2, '_NAME');
  lua.lua_pushstring(L, 'lua-cmsgpack 0.4.0');
  lua.lua_setfield(L, -2, '_VERSION');
  lua.lua_pushstring(L, 'Copyright (C) 2012, Salvatore Sanfilippo');
  lua.lua_setfield(L, -2, '_COPYRIGHT');
  lua.lua_pushstring(L, 'MessagePack C implementation for Lua');
  lua.lua_setfield(L, -2, '_DESCRIPTION');
  return 1;
};
