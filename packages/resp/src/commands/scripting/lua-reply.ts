/// <reference path="./fengari.d.ts" />
import { type ReplyVisitor, type ReplyWriter, visitReply } from '@strata/protocol';
import { type LuaState, lua } from 'fengari';

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

interface Frame {
  readonly kind: 'array' | 'map' | 'set';
  /** Values still to come (a map counts keys and values). */
  left: number;
  next: number;
  /** The table to set into `field` of once complete ({map = ...}). */
  readonly field: string | null;
}

/**
 * The reply `reply` (one whole reply, as the command wrote it) as a Lua
 * value on top of `L`'s stack. RESP2: integer to number, bulk to string,
 * null to false, array to table, status to `{ok=}`, error to `{err=}`.
 * RESP3 adds null to nil, booleans, `{double=}`, `{big_number=}`,
 * `{map=}`, `{set=}` (members true) and `{verbatim_string={format=, string=}}`.
 */
export function pushReply(L: LuaState, reply: Buffer): void {
  if (pushScalar(L, reply)) return;
  const frames: Frame[] = [];
  const placed = () => {
    const f = frames[frames.length - 1];
    if (f === undefined) return;
    if (f.kind === 'array') lua.lua_rawseti(L, -2, f.next++);
    else if (f.kind === 'set') {
      lua.lua_pushboolean(L, true);
      lua.lua_rawset(L, -3);
    } else if (f.left % 2 === 0) {
      // A map's key is placed (an even count of values is left): its value comes next.
      f.left--;
      return;
    } else lua.lua_rawset(L, -3);
    f.left--;
    close();
  };
  const close = () => {
    for (;;) {
      const f = frames[frames.length - 1];
      if (f === undefined || f.left > 0) return;
      frames.pop();
      if (f.field !== null) lua.lua_setfield(L, -2, f.field);
      placed();
      return;
    }
  };
  const aggregate = (kind: Frame['kind'], n: number) => {
    const field = kind === 'array' ? null : kind;
    if (field !== null) lua.lua_newtable(L);
    lua.lua_createtable(L, kind === 'array' ? n : 0, kind === 'array' ? 0 : n);
    frames.push({ kind, left: kind === 'map' ? 2 * n : n, next: 1, field });
    close();
  };
  const wrapped = (field: string, push: () => void) => {
    lua.lua_newtable(L);
    push();
    lua.lua_setfield(L, -2, field);
    placed();
  };
  const v: ReplyVisitor = {
    simple: (t) => wrapped('ok', () => lua.lua_pushstring(L, t)),
    error: (t) => wrapped('err', () => lua.lua_pushstring(L, t)),
    integer: (n) => {
      pushNumber(L, n);
      placed();
    },
    bulk: (b) => {
      lua.lua_pushstring(L, b);
      placed();
    },
    null: (resp3) => {
      // RESP2's null bulk and null array are false; RESP3's null is nil.
      if (resp3) lua.lua_pushnil(L);
      else lua.lua_pushboolean(L, false);
      placed();
    },
    array: (n) => aggregate('array', n),
    map: (n) => aggregate('map', n),
    set: (n) => aggregate('set', n),
    double: (d) => wrapped('double', () => lua.lua_pushnumber(L, d)),
    boolean: (b) => {
      lua.lua_pushboolean(L, b);
      placed();
    },
    bigNumber: (digits) => wrapped('big_number', () => lua.lua_pushstring(L, digits)),
    verbatim: (format, text) =>
      wrapped('verbatim_string', () => {
        lua.lua_newtable(L);
        lua.lua_pushstring(L, format);
        lua.lua_setfield(L, -2, 'format');
        lua.lua_pushstring(L, text);
        lua.lua_setfield(L, -2, 'string');
      }),
  };
  visitReply(reply, 0, v);
}

/**
 * The replies most commands give (an integer, a bulk string or its null, a
 * status, an error) pushed without the visitor; false for any other.
 */
function pushScalar(L: LuaState, reply: Buffer): boolean {
  const type = reply[0];
  const lf = reply.indexOf(0x0a);
  if (lf !== reply.length - 1 && type !== 0x24) return false;
  if (type === 0x3a) {
    pushNumber(L, Number(reply.toString('latin1', 1, lf - 1)));
    return true;
  }
  if (type === 0x24) {
    if (reply[1] === 0x2d) {
      lua.lua_pushboolean(L, false);
      return true;
    }
    const n = Number(reply.toString('latin1', 1, lf - 1));
    if (lf + 1 + n + 2 !== reply.length) return false;
    lua.lua_pushstring(L, reply.subarray(lf + 1, lf + 1 + n));
    return true;
  }
  if (type === 0x2b || type === 0x2d) {
    lua.lua_createtable(L, 0, 1);
    lua.lua_pushstring(L, reply.subarray(1, lf - 1));
    lua.lua_setfield(L, -2, type === 0x2b ? 'ok' : 'err');
    return true;
  }
  return false;
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
