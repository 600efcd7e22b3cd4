/// <reference path="./fengari.d.ts" />
import { createHash } from 'node:crypto';
import type { LuaJsFunction, LuaState } from 'fengari';
import type { TString } from 'fengari/src/lstring.js';
import { openBit } from './lua-bit.js';
import { openCjson } from './lua-cjson.js';
import { openCmsgpack } from './lua-cmsgpack.js';
import { lauxlib, loadLua, lua, lualib, to_luastring, whenLuaLoads } from './lua-module.js';
import { formatNumber, useLua51Numbers } from './lua-numbers.js';
import { bufferConstants, luaConstant, pushBuffer, pushConstant } from './lua-strings.js';
import { openStruct } from './lua-struct.js';
import { lua51CompileError } from './lua51-compile-errors.js';

/** What redis.call and the other functions of the `redis` table reach: the running script. */
export interface LuaHost {
  /** redis.call (`raise`) and redis.pcall: the command's arguments are the stack. */
  call(L: LuaState, raise: boolean): number;
  /** redis.setresp(2|3). */
  setResp(L: LuaState): number;
  /** redis.acl_check_cmd. */
  aclCheck(L: LuaState): number;
}

/** A script's coroutine and its registry ref (it lives while the registry holds it). */
export interface ScriptThread {
  readonly co: LuaState;
  readonly ref: number;
}

/** Redis's version as scripts see it (redis.REDIS_VERSION). */
const REDIS_VERSION = '7.0.15';
const REDIS_VERSION_NUM = 0x07000f;

/**
 * The Lua world scripts run in, as Redis 7.0 builds it: the libraries it
 * loads (base, table, string, math, cjson, cmsgpack, struct, bit; no os, io, print, require
 * or debug), Lua 5.1's names (`unpack`, `loadstring`, `table.getn`,
 * `math.mod`...), the `redis` table, and globals scripts may read but not
 * change: the globals table and the libraries are seen through read-only
 * views (`Attempt to modify a readonly table`), and reading a global that
 * does not exist is an error, as in Redis.
 */
export class LuaVm {
  readonly L: LuaState;
  /** Registry ref of the read-only view of the globals (scripts' _ENV). */
  private readonly envRef: number;
  /**
   * Registry refs of xpcall and Redis's error handler: a script's coroutine
   * runs `xpcall(f, handler, ...)` as its body (a Lua function around it
   * would cost a frame per script).
   */
  private readonly xpcallRef: number;
  private readonly handlerRef: number;
  /** Functions' globals (a view), its metatable (whose __index FUNCTION LOAD swaps), the load API. */
  private readonly functionEnvRef: number;
  private readonly functionMetaRef: number;
  private readonly loadRedisRef: number;
  private readonly loadApiRef: number;
  /** A finished script's coroutine, kept to run the next (creating one per script is a cost). */
  private idle: ScriptThread | null = null;

  constructor(host: LuaHost) {
    loadLua();
    useLua51Numbers();
    const L = lauxlib.luaL_newstate();
    this.L = L;
    const open = (name: string, f: LuaJsFunction) => {
      lauxlib.luaL_requiref(L, name, f, 1);
      lua.lua_pop(L, 1);
    };
    open('_G', lualib.luaopen_base);
    open('table', lualib.luaopen_table);
    open('string', lualib.luaopen_string);
    open('math', lualib.luaopen_math);
    open('debug', lualib.luaopen_debug);
    open('coroutine', lualib.luaopen_coroutine);
    open('bit', openBit);
    open('cjson', openCjson);
    open('cmsgpack', openCmsgpack);
    open('struct', openStruct);
    // 5.3 names a function an error cannot name from its call site by its
    // place in the loaded modules ('bit.band'); 5.1, so Redis, says '?'.
    lua.lua_newtable(L);
    lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, '_LOADED');
    lua.lua_newtable(L);
    const fns: [string, LuaJsFunction][] = [
      ['call', (S) => host.call(S, true)],
      ['pcall', (S) => host.call(S, false)],
      ['setresp', (S) => host.setResp(S)],
      ['acl_check_cmd', (S) => host.aclCheck(S)],
      ['sha1hex', sha1hex],
      ['error_reply', (S) => statusTable(S, 'err')],
      ['status_reply', (S) => statusTable(S, 'ok')],
      ['log', redisLog],
      ['set_repl', setRepl],
      ['replicate_commands', (S) => pushBoolean(S, true)],
      ['breakpoint', (S) => pushBoolean(S, false)],
      ['debug', () => 0],
    ];
    for (const [name, f] of fns) {
      lua.lua_pushjsfunction(L, f);
      lua.lua_setfield(L, -2, name);
    }
    const numbers: [string, number][] = [
      ['LOG_DEBUG', 0],
      ['LOG_VERBOSE', 1],
      ['LOG_NOTICE', 2],
      ['LOG_WARNING', 3],
      ['REPL_NONE', 0],
      ['REPL_AOF', 1],
      ['REPL_SLAVE', 2],
      ['REPL_REPLICA', 2],
      ['REPL_ALL', 3],
      ['REDIS_VERSION_NUM', REDIS_VERSION_NUM],
    ];
    for (const [name, n] of numbers) {
      lua.lua_pushnumber(L, n);
      lua.lua_setfield(L, -2, name);
    }
    lua.lua_pushstring(L, REDIS_VERSION);
    lua.lua_setfield(L, -2, 'REDIS_VERSION');
    lua.lua_setglobal(L, 'redis');
    // 5.3's tostring prints a float with an integer value as `3.0`; 5.1's as `3`.
    lua.lua_pushjsfunction(L, tostring51);
    lua.lua_setglobal(L, 'tostring');
    lua.lua_pushjsfunction(L, guardReadonly);
    lua.lua_setglobal(L, 'strata_guard');
    run(L, SETUP);
    // SETUP returns the read-only view, xpcall and the error handler, and the functions' view, its metatable, the load API.
    this.loadApiRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    this.loadRedisRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    this.functionMetaRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    this.functionEnvRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    this.handlerRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    this.xpcallRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    this.envRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
  }

  /**
   * Compiles a script body as Redis names it (`@user_script`): the
   * function's registry ref, or the compiler's message.
   */
  compile(
    body: Buffer,
    chunkName: string,
  ): { ok: true; ref: number } | { ok: false; error: string } {
    const L = this.L;
    const status = lauxlib.luaL_loadbufferx(L, body, body.length, chunkName, 't');
    if (status !== lua.LUA_OK) {
      const error = lua51CompileError(body, lua.lua_tojsstring(L, -1));
      lua.lua_pop(L, 1);
      return { ok: false, error };
    }
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.envRef);
    lua.lua_setupvalue(L, -2, 1);
    bufferConstants(L);
    return { ok: true, ref: lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX) };
  }

  /**
   * Runs a library's code (FUNCTION LOAD) with only the load API in reach,
   * `register` as redis.register_function; the message of its error, or
   * null when it ran.
   */
  loadLibrary(code: Buffer, register: LuaJsFunction): string | null {
    const L = this.L;
    const top = lua.lua_gettop(L);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.loadRedisRef);
    lua.lua_pushjsfunction(L, register);
    lua.lua_setfield(L, -2, 'register_function');
    lua.lua_pop(L, 1);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
    lua.lua_pushstring(L, '__redis__err__handler');
    lua.lua_rawget(L, -2);
    lua.lua_remove(L, -2);
    const handler = lua.lua_gettop(L);
    if (lauxlib.luaL_loadbufferx(L, code, code.length, '@user_function', 't') !== lua.LUA_OK) {
      const error = lua51CompileError(code, lua.lua_tojsstring(L, -1));
      lua.lua_settop(L, top);
      return `ERR Error compiling function: ${error}`;
    }
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.functionEnvRef);
    lua.lua_setupvalue(L, -2, 1);
    bufferConstants(L);
    this.setFunctionIndex(this.loadApiRef);
    const status = lua.lua_pcall(L, 0, 0, handler);
    this.setFunctionIndex(null);
    let error: string | null = null;
    if (status !== lua.LUA_OK) {
      error = 'ERR Error registering functions: ';
      if (lua.lua_type(L, -1) === lua.LUA_TTABLE) {
        lua.lua_pushstring(L, 'err');
        lua.lua_rawget(L, -2);
        error += lua.lua_tojsstring(L, -1);
      } else error += lua.lua_tojsstring(L, -1);
    }
    lua.lua_settop(L, top);
    return error;
  }

  /** Points the functions' globals at the load API (`ref`), or back at the globals (null). */
  private setFunctionIndex(ref: number | null): void {
    const L = this.L;
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.functionMetaRef);
    lua.lua_pushstring(L, '__index');
    if (ref === null) lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
    else lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
    lua.lua_rawset(L, -3);
    lua.lua_pop(L, 1);
  }

  /** A registry ref to the value at `i` (a registered function's callback). */
  ref(i: number): number {
    lua.lua_pushvalue(this.L, i);
    return lauxlib.luaL_ref(this.L, lua.LUA_REGISTRYINDEX);
  }

  /**
   * The coroutine of a script that ended: kept for the next one when it
   * finished (its body returned), else let go.
   */
  releaseThread(t: ScriptThread, finished: boolean): void {
    lua.lua_settop(t.co, 0);
    // One whose stack grew is let go too: V8 may have made it a dictionary (see pushCall).
    if (finished && this.idle === null && stackSize(t.co) <= FAST_STACK) this.idle = t;
    else lauxlib.luaL_unref(this.L, lua.LUA_REGISTRYINDEX, t.ref);
  }

  release(ref: number): void {
    lauxlib.luaL_unref(this.L, lua.LUA_REGISTRYINDEX, ref);
  }

  /**
   * A coroutine for the next script (the last one's, when it finished),
   * kept in the registry (its ref) until `releaseThread`.
   */
  takeThread(): ScriptThread {
    const idle = this.idle;
    if (idle !== null) {
      // The last script's coroutine, finished: a thread whose body returned runs another.
      this.idle = null;
      return idle;
    }
    const co = lua.lua_newthread(this.L);
    return { co, ref: lauxlib.luaL_ref(this.L, lua.LUA_REGISTRYINDEX) };
  }

  /**
   * Readies `co` to run the compiled function `ref` under the error
   * handler; the count of values to resume it with. It returns `true,
   * result` or `false, error table`. A script reads its keys and arguments
   * as KEYS and ARGV; a function (`asArguments`) gets them as its two
   * arguments.
   */
  pushCall(
    co: LuaState,
    ref: number,
    keys: readonly Buffer[],
    args: readonly Buffer[],
    asArguments: boolean,
  ): number {
    // On the coroutine, not the VM's main thread: fengari's stack is an
    // array whose popped slots are deleted, and past 64 slots V8 turns
    // such an array into a dictionary, which every push and pop then pays
    // for; the main thread's is past that (the VM's setup grew it).
    if (!asArguments) setArguments(co, keys, args);
    lua.lua_rawgeti(co, lua.LUA_REGISTRYINDEX, this.xpcallRef);
    lua.lua_rawgeti(co, lua.LUA_REGISTRYINDEX, ref);
    lua.lua_rawgeti(co, lua.LUA_REGISTRYINDEX, this.handlerRef);
    if (!asArguments) return 2;
    pushList(co, keys);
    pushList(co, args);
    return 4;
  }
}

/**
 * The longest array V8 never turns into a dictionary for its deleted
 * slots (its sparseness check starts past 64); a new thread's stack is 40.
 */
const FAST_STACK = 64;

/** The length of a thread's stack (fengari's internals). */
function stackSize(L: LuaState): number {
  return (L as unknown as { readonly stack: readonly unknown[] }).stack.length;
}

/** Sets KEYS and ARGV (in the real globals, under the read-only view). */
function setArguments(L: LuaState, keys: readonly Buffer[], args: readonly Buffer[]): void {
  // Raw sets, as lua_setglobal's are (the globals have no __newindex), with names made once.
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
  pushConstant(L, KEYS);
  pushList(L, keys);
  lua.lua_rawset(L, -3);
  pushConstant(L, ARGV);
  pushList(L, args);
  lua.lua_rawset(L, -3);
  lua.lua_pop(L, 1);
}

/**
 * Replaces rawset and setmetatable with versions that refuse the read-only
 * views (`views`, a weak set, is its argument), as Redis's read-only
 * tables refuse them. In JavaScript, not Lua: a Lua wrapper in a script's
 * `return rawset(...)` would be a tail call, and the error would lose the
 * script's line.
 */
function guardReadonly(L: LuaState): number {
  lua.lua_pushvalue(L, 1);
  const views = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
  for (const name of ['rawset', 'setmetatable']) {
    lua.lua_getglobal(L, name);
    const original = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    lua.lua_pushjsfunction(L, (S) => {
      lua.lua_rawgeti(S, lua.LUA_REGISTRYINDEX, views);
      lua.lua_pushvalue(S, 1);
      const isView = lua.lua_rawget(S, -2) !== lua.LUA_TNIL;
      lua.lua_pop(S, 2);
      if (isView) {
        lua.lua_pushstring(S, 'Attempt to modify a readonly table');
        return lua.lua_error(S);
      }
      const n = lua.lua_gettop(S);
      lua.lua_rawgeti(S, lua.LUA_REGISTRYINDEX, original);
      lua.lua_insert(S, 1);
      lua.lua_call(S, n, 1);
      return 1;
    });
    lua.lua_setglobal(L, name);
  }
  lua.lua_pushnil(L);
  lua.lua_setglobal(L, 'strata_guard');
  return 0;
}

/**
 * Raises `message` as the redis library does (luaPushError, luaError): an
 * error table `{err = '<CODE> <message>'}` (ERR when the message has no
 * `-CODE`), which the error handler keeps and pcall turns into its message.
 */
export function raiseRedisError(L: LuaState, message: string): number {
  pushRedisError(L, message);
  return lua.lua_error(L);
}

/** `{err = ...}` as luaPushError builds it (redis.pcall returns it). */
export function pushRedisError(L: LuaState, message: string): void {
  lua.lua_newtable(L);
  lua.lua_pushstring(L, message.startsWith('-') ? message.slice(1) : `ERR ${message}`);
  lua.lua_setfield(L, -2, 'err');
}

function pushList(L: LuaState, list: readonly Buffer[]): void {
  lua.lua_createtable(L, list.length, 0);
  for (let i = 0; i < list.length; i++) {
    pushBuffer(L, list[i]!);
    lua.lua_rawseti(L, -2, i + 1);
  }
}

let KEYS: TString;
let ARGV: TString;
whenLuaLoads(() => {
  KEYS = luaConstant('KEYS');
  ARGV = luaConstant('ARGV');
});

/** Runs a chunk of the VM's own Lua code; throws when it fails (a bug here). */
function run(L: LuaState, code: string): void {
  const bytes = to_luastring(code);
  if (
    lauxlib.luaL_loadbufferx(L, bytes, bytes.length, '=strata', 't') !== lua.LUA_OK ||
    lua.lua_pcall(L, 0, lua.LUA_MULTRET, 0) !== lua.LUA_OK
  ) {
    throw new Error(`Lua setup failed: ${lua.lua_tojsstring(L, -1)}`);
  }
}

/**
 * Runs in the real globals when the VM starts. Lua 5.1's names, Redis's
 * error handler, and the read-only views; returns the view of the globals,
 * xpcall and the handler (a script's coroutine runs under them). Globals are read through `env` (an empty table whose
 * __index is the real globals, themselves erroring on a missing name), so
 * a script's global reads stay table lookups.
 */
const SETUP = `
local G = _G
local rawget, rawset, setmetatable, error, tostring, type, next = rawget, rawset, setmetatable, error, tostring, type, next
local dbg = debug
G.debug = nil
G.dofile = nil
G.loadfile = nil
G.print = nil
G.require = nil
G.module = nil
G.unpack = table.unpack
G.gcinfo = function() return math.floor(collectgarbage('count')) end
table.getn = function(t) return #t end
table.maxn = function(t)
  local m = 0
  for k in next, t do if type(k) == 'number' and k > m then m = k end end
  return m
end
table.setn = function() error("'setn' is obsolete") end
math.mod = math.fmod
math.pow = function(x, y) return x ^ y end
math.ldexp = function(m, e) return m * 2.0 ^ e end
math.frexp = function(x)
  if x == 0 then return 0.0, 0 end
  local e = math.floor(math.log(math.abs(x), 2)) + 1
  local m = x / 2.0 ^ e
  if math.abs(m) >= 1 then m = m / 2; e = e + 1 end
  return m, e
end
math.cosh = function(x) return (math.exp(x) + math.exp(-x)) / 2 end
math.sinh = function(x) return (math.exp(x) - math.exp(-x)) / 2 end
math.tanh = function(x) local a, b = math.exp(x), math.exp(-x) return (a - b) / (a + b) end
math.log10 = function(x) return math.log(x, 10) end
math.atan2 = math.atan
string.gfind = string.gmatch
-- 5.1's %d takes any number (truncated); 5.3's only an integer, and fengari's are 32-bit.
do
  local format0, floor = string.format, math.floor
  string.format = function(fmt, ...)
    local n = select('#', ...)
    local args = {...}
    local i = 0
    local changed = false
    local f = fmt:gsub('%%([-+ #0]*%d*%.?%d*)([%a%%])', function(flags, conv)
      if conv == '%' then return nil end
      i = i + 1
      local a = args[i]
      if (conv == 'd' or conv == 'i') and type(a) == 'number' and a == a and a ~= floor(a) or
          (conv == 'd' or conv == 'i') and type(a) == 'number' and (a >= 2^31 or a < -2^31) then
        local t = a < 0 and -floor(-a) or floor(a)
        changed = true
        if t >= 2^31 or t < -2^31 then
          args[i] = format0('%.0f', t)
          return '%' .. (flags:gsub('0', '')) .. 's'
        end
        args[i] = t
      end
      return nil
    end)
    if not changed then return format0(fmt, ...) end
    return format0(f, table.unpack(args, 1, n))
  end
end

function __redis__err__handler(err)
  -- The script's frame: past JS functions (fengari's 'J', Lua's 'C') and strata's own Lua.
  local level = 2
  local i = dbg.getinfo(level, 'nSl')
  while i and (i.what == 'C' or i.what == 'J' or i.source == '=strata') do
    level = level + 1
    i = dbg.getinfo(level, 'nSl')
  end
  if type(err) ~= 'table' then
    err = {err = 'ERR ' .. tostring(err)}
  end
  if i then
    err['source'] = i.source
    err['line'] = i.currentline
  end
  return err
end

local views = setmetatable({}, {__mode = 'k'})
local function readonly(t)
  local view = {}
  views[view] = true
  return setmetatable(view, {
    __index = t,
    __newindex = function() error('Attempt to modify a readonly table', 2) end,
    __pairs = function() return next, t, nil end,
    __len = function() return #t end,
    __metatable = false,
  })
end
local rawset0 = rawset
strata_guard(views)
-- Redis's pcall: an error table with an err message comes back as the message (xpcall keeps the table).
local pcall0 = pcall
local function pcallResult(ok, ...)
  if not ok then
    local e = ...
    if type(e) == 'table' and type(rawget(e, 'err')) == 'string' then return false, e.err end
  end
  return ok, ...
end
G.pcall = function(f, ...) return pcallResult(pcall0(f, ...)) end
for _, name in ipairs({'string', 'math', 'table', 'bit', 'cjson', 'cmsgpack', 'struct', 'redis', 'coroutine'}) do
  rawset(G, name, readonly(rawget(G, name)))
end
local env = readonly(G)
setmetatable(G, {
  __index = function(_, n)
    error("Script attempted to access nonexistent global variable '" .. tostring(n) .. "'", 2)
  end,
})
local rawload = load
rawset(G, 'load', function(chunk, name, mode, e) return rawload(chunk, name, 't', e or env) end)
rawset(G, 'loadstring', function(s, name) return rawload(s, name, 't', env) end)
rawset0(G, '_VERSION', 'Lua 5.1')
local xpcall, handler = xpcall, __redis__err__handler
rawset0(G, '_G', env)
-- Functions' globals: a view whose __index FUNCTION LOAD points at the load
-- API while a library's code runs (only redis.register_function, redis.log
-- and the constants), and back at the globals after (Redis swaps its
-- globals' __index the same way).
local fmeta = {
  __index = G,
  __newindex = function() error('Attempt to modify a readonly table', 2) end,
  __metatable = false,
}
local fenv = setmetatable({}, fmeta)
views[fenv] = true
local function missing(_, n)
  error("Script attempted to access nonexistent global variable '" .. tostring(n) .. "'", 2)
end
local loadRedis = setmetatable({}, {__index = missing})
for _, k in ipairs({'log', 'LOG_DEBUG', 'LOG_VERBOSE', 'LOG_NOTICE', 'LOG_WARNING', 'REDIS_VERSION', 'REDIS_VERSION_NUM'}) do
  rawset0(loadRedis, k, redis[k])
end
local loadApi = setmetatable({redis = readonly(loadRedis)}, {__index = missing})
return env, xpcall, handler, fenv, fmeta, loadRedis, loadApi
`;

function tostring51(L: LuaState): number {
  if (lua.lua_type(L, 1) === lua.LUA_TNUMBER && !lua.lua_isinteger(L, 1)) {
    lua.lua_pushstring(L, formatNumber(lua.lua_tonumber(L, 1)));
    return 1;
  }
  // Lua's own tostring (luaB_tostring): __tostring, __name, then the value.
  lauxlib.luaL_checkany(L, 1);
  lauxlib.luaL_tolstring(L, 1);
  return 1;
}

function pushBoolean(L: LuaState, b: boolean): number {
  lua.lua_pushboolean(L, b);
  return 1;
}

function sha1hex(L: LuaState): number {
  if (lua.lua_gettop(L) !== 1) return raiseRedisError(L, 'wrong number of arguments');
  const s = lua.lua_tolstring(L, 1) ?? new Uint8Array(0);
  lua.lua_pushstring(L, createHash('sha1').update(s).digest('hex'));
  return 1;
}

/** redis.error_reply / status_reply: `{err = s}` or `{ok = s}`. */
function statusTable(L: LuaState, field: 'err' | 'ok'): number {
  if (lua.lua_gettop(L) !== 1 || lua.lua_type(L, 1) !== lua.LUA_TSTRING) {
    // Returned, not raised: the script's reply is this error.
    pushRedisError(L, 'wrong number or type of arguments');
    return 1;
  }
  lua.lua_newtable(L);
  lua.lua_pushvalue(L, 1);
  lua.lua_setfield(L, -2, field);
  return 1;
}

/** redis.log: accepted and checked as Redis checks it; strata's log is its own (not written here). */
function redisLog(L: LuaState): number {
  if (lua.lua_gettop(L) < 2)
    return raiseRedisError(L, 'redis.log() requires two arguments or more.');
  if (lua.lua_type(L, 1) !== lua.LUA_TNUMBER) {
    return raiseRedisError(L, 'First argument must be a number (log level).');
  }
  const level = lua.lua_tonumber(L, 1);
  if (level < 0 || level > 3) return raiseRedisError(L, 'Invalid debug level.');
  return 0;
}

/** redis.set_repl: effects replication is all strata does; the flags are checked as Redis does. */
function setRepl(L: LuaState): number {
  if (lua.lua_gettop(L) !== 1)
    return raiseRedisError(L, 'redis.set_repl() requires two arguments.');
  const flags = lua.lua_tonumber(L, 1);
  if ((flags & ~3) !== 0) {
    return raiseRedisError(
      L,
      'Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.',
    );
  }
  return 0;
}
