/**
 * The part of fengari (Lua 5.3 in JavaScript; it ships no types) that the
 * scripting family uses. Lua strings are byte arrays (Uint8Array); a JS
 * string passed where Lua wants one is encoded as UTF-8.
 */
declare module 'fengari' {
  /** A Lua thread (a lua_State): opaque here. */
  export interface LuaState {
    readonly __luaState: unique symbol;
  }
  export type LuaString = Uint8Array;
  export type LuaJsFunction = (L: LuaState) => number;
  export type LuaKFunction = (L: LuaState, status: number, ctx: number) => number;
  export type LuaHook = (L: LuaState, ar: unknown) => void;

  export const lua: {
    readonly LUA_OK: number;
    readonly LUA_YIELD: number;
    readonly LUA_ERRRUN: number;
    readonly LUA_ERRSYNTAX: number;
    readonly LUA_ERRMEM: number;
    readonly LUA_ERRERR: number;
    readonly LUA_TNIL: number;
    readonly LUA_TBOOLEAN: number;
    readonly LUA_TNUMBER: number;
    readonly LUA_TSTRING: number;
    readonly LUA_TTABLE: number;
    readonly LUA_TFUNCTION: number;
    readonly LUA_TLIGHTUSERDATA: number;
    readonly LUA_TUSERDATA: number;
    readonly LUA_TTHREAD: number;
    lua_typename(L: LuaState, t: number): LuaString;
    readonly LUA_MASKCOUNT: number;
    readonly LUA_MULTRET: number;
    readonly LUA_REGISTRYINDEX: number;
    readonly LUA_RIDX_GLOBALS: number;
    lua_absindex(L: LuaState, i: number): number;
    lua_call(L: LuaState, nargs: number, nresults: number): void;
    lua_createtable(L: LuaState, narr: number, nrec: number): void;
    lua_error(L: LuaState): number;
    lua_getfield(L: LuaState, i: number, k: string | LuaString): number;
    lua_getglobal(L: LuaState, name: string | LuaString): number;
    lua_gettop(L: LuaState): number;
    lua_isinteger(L: LuaState, i: number): boolean;
    lua_isnumber(L: LuaState, i: number): boolean;
    lua_checkstack(L: LuaState, n: number): boolean;
    lua_insert(L: LuaState, i: number): void;
    lua_remove(L: LuaState, i: number): void;
    lua_isyieldable(L: LuaState): boolean;
    lua_newtable(L: LuaState): void;
    lua_newthread(L: LuaState): LuaState;
    lua_next(L: LuaState, i: number): number;
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
    lua_pop(L: LuaState, n: number): void;
    lua_pushboolean(L: LuaState, b: boolean | number): void;
    lua_pushinteger(L: LuaState, n: number): void;
    lua_pushjsfunction(L: LuaState, f: LuaJsFunction): void;
    lua_pushnil(L: LuaState): void;
    lua_pushlightuserdata(L: LuaState, p: object): void;
    lua_touserdata(L: LuaState, i: number): unknown;
    lua_pushnumber(L: LuaState, n: number): void;
    lua_pushstring(L: LuaState, s: string | LuaString): LuaString;
    lua_pushvalue(L: LuaState, i: number): void;
    lua_rawget(L: LuaState, i: number): number;
    lua_rawgeti(L: LuaState, i: number, n: number): number;
    lua_rawlen(L: LuaState, i: number): number;
    lua_rawset(L: LuaState, i: number): void;
    lua_rawseti(L: LuaState, i: number, n: number): void;
    lua_resume(L: LuaState, from: LuaState | null, nargs: number): number;
    lua_setfield(L: LuaState, i: number, k: string | LuaString): void;
    lua_setglobal(L: LuaState, name: string | LuaString): void;
    lua_sethook(L: LuaState, f: LuaHook | null, mask: number, count: number): void;
    lua_setmetatable(L: LuaState, i: number): void;
    lua_settop(L: LuaState, i: number): void;
    lua_settable(L: LuaState, i: number): void;
    lua_setupvalue(L: LuaState, funcindex: number, n: number): LuaString | null;
    lua_toboolean(L: LuaState, i: number): boolean;
    lua_tojsstring(L: LuaState, i: number): string;
    lua_tolstring(L: LuaState, i: number): LuaString | null;
    lua_tonumber(L: LuaState, i: number): number;
    lua_type(L: LuaState, i: number): number;
    lua_xmove(from: LuaState, to: LuaState, n: number): void;
    lua_yield(L: LuaState, nresults: number): number;
    lua_yieldk(L: LuaState, nresults: number, ctx: number, k: LuaKFunction): number;
  };

  export const lauxlib: {
    luaL_newstate(): LuaState;
    luaL_loadbufferx(
      L: LuaState,
      buff: LuaString,
      size: number,
      name: string | LuaString,
      mode: string | LuaString | null,
    ): number;
    luaL_ref(L: LuaState, t: number): number;
    luaL_unref(L: LuaState, t: number, ref: number): void;
    luaL_requiref(
      L: LuaState,
      modname: string | LuaString,
      openf: LuaJsFunction,
      glb: number,
    ): void;
    luaL_error(L: LuaState, fmt: string | LuaString): number;
    luaL_argerror(L: LuaState, arg: number, extramsg: string | LuaString): number;
    luaL_checknumber(L: LuaState, arg: number): number;
    luaL_checkany(L: LuaState, arg: number): void;
    luaL_tolstring(L: LuaState, arg: number): LuaString;
    luaL_checklstring(L: LuaState, arg: number): LuaString;
    luaL_dostring(L: LuaState, s: string | LuaString): number;
  };

  export const lualib: {
    luaopen_base: LuaJsFunction;
    luaopen_table: LuaJsFunction;
    luaopen_string: LuaJsFunction;
    luaopen_math: LuaJsFunction;
    luaopen_debug: LuaJsFunction;
    luaopen_coroutine: LuaJsFunction;
    luaopen_os: LuaJsFunction;
  };

  export function to_luastring(s: string): LuaString;
  export function to_jsstring(s: LuaString): string;
}

/**
 * fengari's internals: what lua-numbers.ts patches for Lua 5.1's numbers,
 * and what lua-strings.ts reads and pushes in place of the API's copies.
 */
declare module 'fengari/src/lobject.js' {
  export interface TValue {
    /** The type tag with its variant bits (a string is LUA_TLNGSTR). */
    readonly type: number;
    ttisinteger(): boolean;
    readonly value: number;
    setfltvalue(x: number): void;
    setsvalue(s: unknown): void;
  }
  const lobject: {
    luaO_str2num: (s: Uint8Array, o: TValue) => number;
    luaO_tostring: (L: unknown, obj: TValue) => void;
    /** Pushes the string `ts` (a TString) onto `L`'s stack. */
    pushsvalue2s: (L: unknown, ts: unknown) => void;
  };
  export default lobject;
}
declare module 'fengari/src/lstring.js' {
  /** A Lua string: its bytes (never changed once made) and its table hash, computed once. */
  export interface TString {
    realstring: Uint8Array;
    hash: string | null;
  }
  const lstring: {
    /** A TString of `s` itself (no copy). */
    luaS_bless(L: unknown, s: Uint8Array): TString;
  };
  export default lstring;
}
