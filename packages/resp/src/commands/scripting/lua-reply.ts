/// <reference path="./fengari.d.ts" />
import { MalformedReplyError, type ReplyWriter } from '@strata/protocol';
import type { LuaState } from 'fengari';
import type { TString } from 'fengari/src/lstring.js';
import { lua, whenLuaLoads } from './lua-module.js';
import { luaConstant, pushBytes, pushConstant } from './lua-strings.js';

/**
 * Redis's conversions between replies and Lua values (script_lua.c):
 * a command's reply becomes what redis.call returns (`pushReply`), and a
 * script's result becomes its reply (`writeLuaValue`).
 */

/**
 * Lua 5.1 has doubles only: every number is pushed as a float. fengari's
 * integers are 32-bit and their arithmetic wraps (`v + v` of 2^30 would be
 * -2^31 where Redis gives 2^31).
 */
export function pushNumber(L: LuaState, n: number): void {
  lua.lua_pushnumber(L, n);
}

// Lua strings, made once fengari is loaded (lua-module.ts).
let OK: TString;
let ERR: TString;
let OK_TEXT: TString;
let DOUBLE: TString;
let BIG_NUMBER: TString;
let MAP: TString;
let SET: TString;
whenLuaLoads(() => {
  OK = luaConstant('ok');
  ERR = luaConstant('err');
  OK_TEXT = luaConstant('OK');
  DOUBLE = luaConstant('double');
  BIG_NUMBER = luaConstant('big_number');
  MAP = luaConstant('map');
  SET = luaConstant('set');
});

/**
 * Pushes the reply at `p` in `b` (one whole reply, as the command wrote
 * it) as a Lua value on top of `L`'s stack; the offset after it. RESP2:
 * integer to number, bulk to string, null to false, array to table, status
 * to `{ok=}`, error to `{err=}`. RESP3 adds null to nil, booleans,
 * `{double=}`, `{big_number=}`, `{map=}`, `{set=}` (members true) and
 * `{verbatim_string={format=, string=}}`; an attribute is skipped, a push
 * is an array. Read in place, digit by digit: a reply makes no Buffer, no
 * JS string, only its Lua values.
 */
export function pushReply(L: LuaState, b: Buffer, p: number): number {
  const type = b[p]!;
  let cr = p + 1;
  const last = b.length;
  while (cr < last && b[cr] !== 0x0d) cr++;
  if (cr >= last) throw new MalformedReplyError(`no whole reply at ${p}`);
  const after = cr + 2;
  switch (type) {
    case 0x2b: // +status
      lua.lua_createtable(L, 0, 1);
      pushConstant(L, OK);
      if (cr - p === 3 && b[p + 1] === 0x4f && b[p + 2] === 0x4b) pushConstant(L, OK_TEXT);
      else pushBytes(L, b, p + 1, cr);
      lua.lua_rawset(L, -3);
      return after;
    case 0x2d: // -error
      lua.lua_createtable(L, 0, 1);
      pushConstant(L, ERR);
      pushBytes(L, b, p + 1, cr);
      lua.lua_rawset(L, -3);
      return after;
    case 0x3a: // :integer
      pushNumber(L, readInteger(b, p + 1, cr));
      return after;
    case 0x24: // $bulk
    case 0x21: // !bulk error
    case 0x3d: {
      // =verbatim
      const n = readInteger(b, p + 1, cr);
      if (n < 0) {
        lua.lua_pushboolean(L, false);
        return after;
      }
      const end = after + n;
      if (type === 0x24) pushBytes(L, b, after, end);
      else if (type === 0x21) {
        lua.lua_createtable(L, 0, 1);
        pushConstant(L, ERR);
        pushBytes(L, b, after, end);
        lua.lua_rawset(L, -3);
      } else pushVerbatim(L, b, after, end);
      return end + 2;
    }
    case 0x5f: // _null
      lua.lua_pushnil(L);
      return after;
    case 0x23: // #boolean
      lua.lua_pushboolean(L, b[p + 1] === 0x74);
      return after;
    case 0x2c: {
      // ,double
      const t = b.toString('latin1', p + 1, cr);
      lua.lua_createtable(L, 0, 1);
      pushConstant(L, DOUBLE);
      lua.lua_pushnumber(L, t === 'inf' ? Infinity : t === '-inf' ? -Infinity : Number(t));
      lua.lua_rawset(L, -3);
      return after;
    }
    case 0x28: // (big number
      lua.lua_createtable(L, 0, 1);
      pushConstant(L, BIG_NUMBER);
      pushBytes(L, b, p + 1, cr);
      lua.lua_rawset(L, -3);
      return after;
    case 0x2a: // *array
    case 0x3e: {
      // >push
      const n = readInteger(b, p + 1, cr);
      if (n < 0) {
        lua.lua_pushboolean(L, false);
        return after;
      }
      lua.lua_createtable(L, n, 0);
      let q = after;
      for (let i = 1; i <= n; i++) {
        q = pushReply(L, b, q);
        lua.lua_rawseti(L, -2, i);
      }
      return q;
    }
    case 0x25: // %map
    case 0x7e: {
      // ~set
      const n = readInteger(b, p + 1, cr);
      if (n < 0) {
        lua.lua_pushboolean(L, false);
        return after;
      }
      lua.lua_createtable(L, 0, 1);
      pushConstant(L, type === 0x25 ? MAP : SET);
      lua.lua_createtable(L, 0, n);
      let q = after;
      for (let i = 0; i < n; i++) {
        q = pushReply(L, b, q);
        if (type === 0x25) q = pushReply(L, b, q);
        else lua.lua_pushboolean(L, true);
        lua.lua_rawset(L, -3);
      }
      lua.lua_rawset(L, -3);
      return q;
    }
    case 0x7c: {
      // |attribute: its pairs are skipped, the value it annotates is pushed.
      const n = readInteger(b, p + 1, cr);
      let q = after;
      for (let i = 2 * n; i > 0; i--) {
        q = pushReply(L, b, q);
        lua.lua_pop(L, 1);
      }
      return pushReply(L, b, q);
    }
    default:
      throw new MalformedReplyError(`unknown reply type at ${p}`);
  }
}

/** `{verbatim_string = {format = 'txt', string = text}}` of a verbatim string's body. */
function pushVerbatim(L: LuaState, b: Buffer, from: number, to: number): void {
  lua.lua_newtable(L);
  lua.lua_newtable(L);
  lua.lua_pushstring(L, b.toString('latin1', from, from + 3));
  lua.lua_setfield(L, -2, 'format');
  pushBytes(L, b, from + 4, to);
  lua.lua_setfield(L, -2, 'string');
  lua.lua_setfield(L, -2, 'verbatim_string');
}

/** The integer written in `b[from, to)` (a reply's header): as Number() reads its text. */
function readInteger(b: Buffer, from: number, to: number): number {
  let i = from;
  const negative = b[i] === 0x2d;
  if (negative) i++;
  // Up to 15 digits the sum is exact, as Number()'s reading; longer ones are read as text.
  if (to - i > 15) return Number(b.toString('latin1', from, to));
  let n = 0;
  for (; i < to; i++) n = n * 10 + (b[i]! - 0x30);
  return negative ? -n : n;
}

/** Redis answers a Lua value nested deeper than this with an error (LUA_CMD_OBJCACHE_MAX_LEN aside). */
const MAX_DEPTH = 1000;

/**
 * Writes the Lua value at `i` as a reply, as Redis 7.0's
 * luaReplyToRedisReply does. `scriptResp` is the protocol the script chose
 * (redis.setresp): booleans are 1 and null under 2, booleans under 3.
 */
export function writeLuaValue(
  L: LuaState,
  i: number,
  out: ReplyWriter,
  scriptResp: 2 | 3,
  depth = 0,
): void {
  const at = lua.lua_absindex(L, i);
  switch (lua.lua_type(L, at)) {
    case lua.LUA_TSTRING:
      out.bulk(lua.lua_tolstring(L, at)!);
      return;
    case lua.LUA_TBOOLEAN: {
      const b = lua.lua_toboolean(L, at);
      if (scriptResp === 3) out.boolean(b);
      else if (b) out.integer(1);
      else out.null();
      return;
    }
    case lua.LUA_TNUMBER:
      out.integer(toLongLong(lua.lua_tonumber(L, at)));
      return;
    case lua.LUA_TTABLE:
      if (depth >= MAX_DEPTH) {
        out.error('ERR reached lua stack limit');
        return;
      }
      writeTable(L, at, out, scriptResp, depth + 1);
      return;
    default:
      // nil, cjson.null and whatever else Lua has: a null, as in Redis.
      out.null();
  }
}

/** C's (long long) cast of a double, as x86 does it (out of range: LLONG_MIN). */
export function toLongLong(n: number): number | bigint {
  const t = Math.trunc(n);
  if (Number.isSafeInteger(t)) return t;
  if (!Number.isFinite(t) || t >= 2 ** 63 || t < -(2 ** 63)) return -(2n ** 63n);
  return BigInt(t);
}

/** Pushes `t[name]` without metamethods (Redis reads a result's fields raw); its type. */
function rawField(L: LuaState, t: number, name: string): number {
  lua.lua_pushstring(L, name);
  return lua.lua_rawget(L, t);
}

/** The string at field `name` of the table at `t`, or null when it is not a string. */
function stringField(L: LuaState, t: number, name: string): Uint8Array | null {
  const type = rawField(L, t, name);
  const s = type === lua.LUA_TSTRING ? lua.lua_tolstring(L, -1) : null;
  lua.lua_pop(L, 1);
  return s;
}

function writeTable(L: LuaState, t: number, out: ReplyWriter, resp: 2 | 3, depth: number): void {
  const err = stringField(L, t, 'err');
  if (err !== null) {
    // The writer turns newlines into spaces, as Redis does.
    out.error(err);
    return;
  }
  const ok = stringField(L, t, 'ok');
  if (ok !== null) {
    out.simple(ok);
    return;
  }
  if (rawField(L, t, 'double') === lua.LUA_TNUMBER) {
    out.double(lua.lua_tonumber(L, -1));
    lua.lua_pop(L, 1);
    return;
  }
  lua.lua_pop(L, 1);
  const big = stringField(L, t, 'big_number');
  if (big !== null) {
    out.bigNumber(Buffer.from(big).toString('latin1'));
    return;
  }
  if (rawField(L, t, 'map') === lua.LUA_TTABLE) {
    const m = lua.lua_gettop(L);
    out.map(countPairs(L, m));
    lua.lua_pushnil(L);
    while (lua.lua_next(L, m) !== 0) {
      writeLuaValue(L, -2, out, resp, depth);
      writeLuaValue(L, -1, out, resp, depth);
      lua.lua_pop(L, 1);
    }
    lua.lua_pop(L, 1);
    return;
  }
  lua.lua_pop(L, 1);
  if (rawField(L, t, 'set') === lua.LUA_TTABLE) {
    const s = lua.lua_gettop(L);
    out.set(countPairs(L, s));
    lua.lua_pushnil(L);
    while (lua.lua_next(L, s) !== 0) {
      writeLuaValue(L, -2, out, resp, depth);
      lua.lua_pop(L, 1);
    }
    lua.lua_pop(L, 1);
    return;
  }
  lua.lua_pop(L, 1);
  if (rawField(L, t, 'verbatim_string') === lua.LUA_TTABLE) {
    const v = lua.lua_gettop(L);
    const format = stringField(L, v, 'format');
    const text = stringField(L, v, 'string');
    lua.lua_pop(L, 1);
    if (format !== null && text !== null) {
      out.verbatim(text, Buffer.from(format).toString('latin1'));
      return;
    }
  } else lua.lua_pop(L, 1);
  // An array: elements 1, 2, ... up to the first nil.
  let n = 0;
  while (lua.lua_rawgeti(L, t, n + 1) !== lua.LUA_TNIL) {
    lua.lua_pop(L, 1);
    n++;
  }
  lua.lua_pop(L, 1);
  out.array(n);
  for (let k = 1; k <= n; k++) {
    lua.lua_rawgeti(L, t, k);
    writeLuaValue(L, -1, out, resp, depth);
    lua.lua_pop(L, 1);
  }
}

function countPairs(L: LuaState, t: number): number {
  let n = 0;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, t) !== 0) {
    lua.lua_pop(L, 1);
    n++;
  }
  return n;
}
