/// <reference path="./fengari.d.ts" />
import type { LuaJsFunction, LuaState } from 'fengari';
import { lauxlib, lua } from './lua-module.js';

/**
 * Lua BitOp (the `bit` library Redis loads) on 32-bit signed integers:
 * every argument is a number reduced to 32 bits, every result a signed
 * 32-bit number, as LuaBitOp's results are in Redis.
 */
function arg(L: LuaState, i: number): number {
  return Math.round(lauxlib.luaL_checknumber(L, i)) | 0;
}

function result(L: LuaState, n: number): number {
  lua.lua_pushnumber(L, n | 0);
  return 1;
}

function fold(op: (a: number, b: number) => number): LuaJsFunction {
  return (L) => {
    let acc = arg(L, 1);
    for (let i = 2, n = lua.lua_gettop(L); i <= n; i++) acc = op(acc, arg(L, i));
    return result(L, acc);
  };
}

const shift =
  (op: (x: number, n: number) => number): LuaJsFunction =>
  (L) =>
    result(L, op(arg(L, 1), arg(L, 2) & 31));

const FUNCTIONS: Readonly<Record<string, LuaJsFunction>> = {
  tobit: (L) => result(L, arg(L, 1)),
  bnot: (L) => result(L, ~arg(L, 1)),
  band: fold((a, b) => a & b),
  bor: fold((a, b) => a | b),
  bxor: fold((a, b) => a ^ b),
  lshift: shift((x, n) => x << n),
  rshift: shift((x, n) => x >>> n),
  arshift: shift((x, n) => x >> n),
  rol: shift((x, n) => (x << n) | (x >>> (32 - n))),
  ror: shift((x, n) => (x >>> n) | (x << (32 - n))),
  bswap: (L) => {
    const x = arg(L, 1);
    return result(L, ((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24));
  },
  tohex: (L) => {
    const x = arg(L, 1);
    let n = lua.lua_type(L, 2) === lua.LUA_TNUMBER ? arg(L, 2) : 8;
    const upper = n < 0;
    if (upper) n = -n;
    if (n > 8) n = 8;
    const hex = (x >>> 0)
      .toString(16)
      .padStart(8, '0')
      .slice(8 - n);
    lua.lua_pushstring(L, upper ? hex.toUpperCase() : hex);
    return 1;
  },
};

export const openBit: LuaJsFunction = (L) => {
  lua.lua_createtable(L, 0, Object.keys(FUNCTIONS).length);
  for (const [name, f] of Object.entries(FUNCTIONS)) {
    lua.lua_pushjsfunction(L, f);
    lua.lua_setfield(L, -2, name);
  }
  return 1;
};
