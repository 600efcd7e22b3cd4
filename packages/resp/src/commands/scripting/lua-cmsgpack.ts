/// <reference path="./fengari.d.ts" />
import { type LuaJsFunction, type LuaState, lauxlib, lua } from 'fengari';
import { pushNumber } from './lua-reply.js';

/**
 * lua-cmsgpack as Redis loads it (`cmsgpack.pack`, `unpack`, `unpack_one`,
 * `unpack_limit`): MessagePack with its choices. A number with an integer
 * value is an integer (the smallest encoding), other numbers a float32 when
 * that is exact, else a float64; a table whose keys are 1..n is an array,
 * any other a map; strings are raw strings (fixstr, str8/16/32).
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
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) {
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
  const b = Buffer.allocUnsafe(9);
  if (Math.fround(n) === n || Number.isNaN(n)) {
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
  if (n === 0) return lauxlib.luaL_error(L, 'MessagePack pack needs input.');
  const p = new Packer();
  for (let i = 1; i <= n; i++) packValue(L, i, p, 0);
  lua.lua_pushstring(L, p.result());
  return 1;
};

/** Decodes one value at `at` and pushes it; the offset after it, or -1 when the data ends first. */
function unpackValue(L: LuaState, b: Buffer, at: number): number {
  if (at >= b.length) return -1;
  const t = b[at]!;
  const need = (n: number) => at + 1 + n <= b.length;
  const str = (len: number, from: number) => {
    if (from + len > b.length) return -1;
    lua.lua_pushstring(L, b.subarray(from, from + len));
    return from + len;
  };
  const seq = (n: number, from: number, map: boolean) => {
    lua.lua_createtable(L, map ? 0 : n, map ? n : 0);
    let q = from;
    for (let k = 1; k <= n; k++) {
      if (map) {
        q = unpackValue(L, b, q);
        if (q < 0) return -1;
      }
      q = unpackValue(L, b, q);
      if (q < 0) return -1;
      if (map) lua.lua_rawset(L, -3);
      else lua.lua_rawseti(L, -2, k);
    }
    return q;
  };
  if (t < 0x80) {
    pushNumber(L, t);
    return at + 1;
  }
  if (t >= 0xe0) {
    pushNumber(L, t - 256);
    return at + 1;
  }
  if ((t & 0xe0) === 0xa0) return str(t & 0x1f, at + 1);
  if ((t & 0xf0) === 0x90) return seq(t & 0x0f, at + 1, false);
  if ((t & 0xf0) === 0x80) return seq(t & 0x0f, at + 1, true);
  switch (t) {
    case 0xc0:
      lua.lua_pushnil(L);
      return at + 1;
    case 0xc2:
    case 0xc3:
      lua.lua_pushboolean(L, t === 0xc3);
      return at + 1;
    case 0xcc:
      if (!need(1)) return -1;
      pushNumber(L, b.readUInt8(at + 1));
      return at + 2;
    case 0xcd:
      if (!need(2)) return -1;
      pushNumber(L, b.readUInt16BE(at + 1));
      return at + 3;
    case 0xce:
      if (!need(4)) return -1;
      pushNumber(L, b.readUInt32BE(at + 1));
      return at + 5;
    case 0xcf:
      if (!need(8)) return -1;
      pushNumber(L, Number(b.readBigUInt64BE(at + 1)));
      return at + 9;
    case 0xd0:
      if (!need(1)) return -1;
      pushNumber(L, b.readInt8(at + 1));
      return at + 2;
    case 0xd1:
      if (!need(2)) return -1;
      pushNumber(L, b.readInt16BE(at + 1));
      return at + 3;
    case 0xd2:
      if (!need(4)) return -1;
      pushNumber(L, b.readInt32BE(at + 1));
      return at + 5;
    case 0xd3:
      if (!need(8)) return -1;
      pushNumber(L, Number(b.readBigInt64BE(at + 1)));
      return at + 9;
    case 0xca:
      if (!need(4)) return -1;
      lua.lua_pushnumber(L, b.readFloatBE(at + 1));
      return at + 5;
    case 0xcb:
      if (!need(8)) return -1;
      lua.lua_pushnumber(L, b.readDoubleBE(at + 1));
      return at + 9;
    case 0xd9:
    case 0xc4:
      return need(1) ? str(b.readUInt8(at + 1), at + 2) : -1;
    case 0xda:
    case 0xc5:
      return need(2) ? str(b.readUInt16BE(at + 1), at + 3) : -1;
    case 0xdb:
    case 0xc6:
      return need(4) ? str(b.readUInt32BE(at + 1), at + 5) : -1;
    case 0xdc:
      return need(2) ? seq(b.readUInt16BE(at + 1), at + 3, false) : -1;
    case 0xdd:
      return need(4) ? seq(b.readUInt32BE(at + 1), at + 5, false) : -1;
    case 0xde:
      return need(2) ? seq(b.readUInt16BE(at + 1), at + 3, true) : -1;
    case 0xdf:
      return need(4) ? seq(b.readUInt32BE(at + 1), at + 5, true) : -1;
  }
  return -2;
}

/**
 * unpack (every value), unpack_one and unpack_limit (`(s, limit, offset)`,
 * unpack_one's limit is 1): those two return the next offset first (-1 at
 * the end), then the values.
 */
function unpacker(mode: 'all' | 'one' | 'limit'): LuaJsFunction {
  return (L) => {
    const b = Buffer.from(lauxlib.luaL_checklstring(L, 1));
    const optional = (i: number) =>
      lua.lua_type(L, i) === lua.LUA_TNUMBER ? lua.lua_tonumber(L, i) : 0;
    const max = mode === 'all' ? 0 : mode === 'one' ? 1 : optional(2);
    let at = mode === 'all' ? 0 : optional(mode === 'one' ? 2 : 3);
    const base = lua.lua_gettop(L);
    let n = 0;
    while (at < b.length && (max <= 0 || n < max)) {
      const next = unpackValue(L, b, at);
      if (next === -2) return lauxlib.luaL_error(L, 'Bad data format in input.');
      if (next < 0) return lauxlib.luaL_error(L, 'Missing bytes in input.');
      at = next;
      n++;
    }
    if (mode === 'all') return n;
    lua.lua_pushnumber(L, at >= b.length ? -1 : at);
    lua.lua_insert(L, base + 1);
    return n + 1;
  };
}

export const openCmsgpack: LuaJsFunction = (L) => {
  lua.lua_newtable(L);
  const fns: [string, LuaJsFunction][] = [
    ['pack', pack],
    ['unpack', unpacker('all')],
    ['unpack_one', unpacker('one')],
    ['unpack_limit', unpacker('limit')],
  ];
  for (const [name, f] of fns) {
    lua.lua_pushjsfunction(L, f);
    lua.lua_setfield(L, -2, name);
  }
  lua.lua_pushstring(L, 'cmsgpack');
  lua.lua_setfield(L, -2, '_NAME');
  lua.lua_pushstring(L, 'lua-cmsgpack 0.4.0');
  lua.lua_setfield(L, -2, '_VERSION');
  return 1;
};
