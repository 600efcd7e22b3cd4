/// <reference path="./fengari.d.ts" />
import type { LuaJsFunction, LuaState } from 'fengari';
import { lauxlib, lua } from './lua-module.js';
import { formatNumber } from './lua-numbers.js';

/**
 * lua-cjson 2.1 as Redis loads it (`cjson.encode`, `cjson.decode`,
 * `cjson.null`), with its defaults: numbers as `%.14g`, `/` escaped,
 * arrays for tables keyed 1..n (holes as null; "excessively sparse" past
 * 10 when over half are holes), `{}` for an empty table, nesting at most
 * 1000, and its error messages. Object members come in Lua's table order,
 * which is not Redis's: a script should not depend on it.
 */
const NULL = Object.freeze({ cjson: 'null' });
const MAX_DEPTH = 1000;

function pushNull(L: LuaState): void {
  lua.lua_pushlightuserdata(L, NULL);
}

export function isCjsonNull(L: LuaState, i: number): boolean {
  return lua.lua_type(L, i) === lua.LUA_TLIGHTUSERDATA && lua.lua_touserdata(L, i) === NULL;
}

const ESCAPES: Readonly<Record<number, string>> = {
  34: '\\"',
  92: '\\\\',
  47: '\\/',
  8: '\\b',
  12: '\\f',
  10: '\\n',
  13: '\\r',
  9: '\\t',
};

function encodeString(s: Uint8Array, out: string[]): void {
  let text = '"';
  for (const b of s) {
    const e = ESCAPES[b];
    if (e !== undefined) text += e;
    else if (b < 0x20 || b === 0x7f) text += `\\u${b.toString(16).padStart(4, '0')}`;
    else text += String.fromCharCode(b);
  }
  out.push(`${text}"`);
}

function typeName(L: LuaState, i: number): string {
  return new TextDecoder().decode(lua.lua_typename(L, lua.lua_type(L, i)));
}

function fail(L: LuaState, i: number, why: string): never {
  lauxlib.luaL_error(L, `Cannot serialise ${typeName(L, i)}: ${why}`);
  throw new Error('unreachable');
}

/** Encodes the value at index `i` (absolute) into `out`, as latin1 text of its bytes. */
function encodeValue(L: LuaState, i: number, depth: number, out: string[]): void {
  switch (lua.lua_type(L, i)) {
    case lua.LUA_TSTRING:
      encodeString(lua.lua_tolstring(L, i)!, out);
      return;
    case lua.LUA_TNUMBER: {
      const n = lua.lua_tonumber(L, i);
      if (!Number.isFinite(n)) fail(L, i, 'must not be NaN or Inf');
      out.push(formatNumber(n));
      return;
    }
    case lua.LUA_TBOOLEAN:
      out.push(lua.lua_toboolean(L, i) ? 'true' : 'false');
      return;
    case lua.LUA_TNIL:
      out.push('null');
      return;
    case lua.LUA_TLIGHTUSERDATA:
      if (isCjsonNull(L, i)) {
        out.push('null');
        return;
      }
      break;
    case lua.LUA_TTABLE:
      if (depth >= MAX_DEPTH) {
        lauxlib.luaL_error(L, `Cannot serialise, excessive nesting (${depth + 1})`);
      }
      encodeTable(L, i, depth + 1, out);
      return;
  }
  fail(L, i, 'type not supported');
}

function encodeTable(L: LuaState, t: number, depth: number, out: string[]): void {
  // An array when every key is a positive integer (lua-cjson's lua_array_length).
  let max = 0;
  let items = 0;
  let array = true;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, t) !== 0) {
    lua.lua_pop(L, 1);
    const k = lua.lua_type(L, -1) === lua.LUA_TNUMBER ? lua.lua_tonumber(L, -1) : Number.NaN;
    if (Number.isInteger(k) && k >= 1) {
      if (k > max) max = k;
      items++;
    } else array = false;
  }
  if (array && max > 0) {
    if (max > 10 && max > items * 2) {
      lauxlib.luaL_error(L, 'Cannot serialise table: excessively sparse array');
    }
    out.push('[');
    for (let k = 1; k <= max; k++) {
      if (k > 1) out.push(',');
      lua.lua_rawgeti(L, t, k);
      encodeValue(L, lua.lua_gettop(L), depth, out);
      lua.lua_pop(L, 1);
    }
    out.push(']');
    return;
  }
  out.push('{');
  let first = true;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, t) !== 0) {
    if (!first) out.push(',');
    first = false;
    const kt = lua.lua_type(L, -2);
    if (kt === lua.LUA_TSTRING) encodeString(lua.lua_tolstring(L, -2)!, out);
    else if (kt === lua.LUA_TNUMBER) out.push(`"${formatNumber(lua.lua_tonumber(L, -2))}"`);
    else fail(L, -2, 'table key must be a number or string');
    out.push(':');
    encodeValue(L, lua.lua_gettop(L), depth, out);
    lua.lua_pop(L, 1);
  }
  out.push('}');
}

const encode: LuaJsFunction = (L) => {
  if (lua.lua_gettop(L) !== 1) return lauxlib.luaL_error(L, 'expected 1 argument');
  const out: string[] = [];
  encodeValue(L, 1, 0, out);
  lua.lua_pushstring(L, Buffer.from(out.join(''), 'latin1'));
  return 1;
};

/** lua-cjson's decoder: a tokenizer whose token names its errors quote. */
class Decoder {
  private p = 0;
  constructor(
    private readonly L: LuaState,
    private readonly s: Uint8Array,
  ) {}

  run(): void {
    this.value(0);
    this.skipSpace();
    if (this.p < this.s.length) this.error('the end', this.tokenName());
  }

  private skipSpace(): void {
    const s = this.s;
    while (
      this.p < s.length &&
      (s[this.p] === 0x20 || s[this.p] === 0x09 || s[this.p] === 0x0a || s[this.p] === 0x0d)
    ) {
      this.p++;
    }
  }

  private tokenName(): string {
    if (this.p >= this.s.length) return 'T_END';
    const c = this.s[this.p]!;
    const names: Record<number, string> = {
      123: 'T_OBJ_BEGIN',
      125: 'T_OBJ_END',
      91: 'T_ARR_BEGIN',
      93: 'T_ARR_END',
      34: 'T_STRING',
      58: 'T_COLON',
      44: 'T_COMMA',
    };
    if (names[c] !== undefined) return names[c]!;
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return 'T_NUMBER';
    if (this.matches('true') || this.matches('false')) return 'T_BOOLEAN';
    if (this.matches('null')) return 'T_NULL';
    return 'invalid token';
  }

  private matches(word: string): boolean {
    for (let i = 0; i < word.length; i++)
      if (this.s[this.p + i] !== word.charCodeAt(i)) return false;
    return true;
  }

  private error(expected: string, found: string): never {
    lauxlib.luaL_error(
      this.L,
      `Expected ${expected} but found ${found} at character ${this.p + 1}`,
    );
    throw new Error('unreachable');
  }

  private value(depth: number): void {
    const L = this.L;
    this.skipSpace();
    const c = this.s[this.p];
    if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_DEPTH) {
        lauxlib.luaL_error(
          L,
          `Found too many nested data structures (${depth + 1}) at character ${this.p + 1}`,
        );
      }
      this.p++;
      lua.lua_newtable(L);
      if (c === 0x5b) this.array(depth + 1);
      else this.object(depth + 1);
      return;
    }
    if (c === 0x22) {
      lua.lua_pushstring(L, this.string());
      return;
    }
    if (this.matches('true')) {
      this.p += 4;
      lua.lua_pushboolean(L, true);
      return;
    }
    if (this.matches('false')) {
      this.p += 5;
      lua.lua_pushboolean(L, false);
      return;
    }
    if (this.matches('null')) {
      this.p += 4;
      pushNull(L);
      return;
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(
      Buffer.from(this.s.subarray(this.p, this.p + 400)).toString('latin1'),
    );
    if (m === null || m[0] === '' || m[0] === '-') this.error('value', this.tokenName());
    this.p += m[0].length;
    lua.lua_pushnumber(L, Number(m[0]));
  }

  private array(depth: number): void {
    const L = this.L;
    this.skipSpace();
    if (this.s[this.p] === 0x5d) {
      this.p++;
      return;
    }
    for (let i = 1; ; i++) {
      this.value(depth);
      lua.lua_rawseti(L, -2, i);
      this.skipSpace();
      const c = this.s[this.p];
      if (c === 0x5d) {
        this.p++;
        return;
      }
      if (c !== 0x2c) this.error('comma or array end', this.tokenName());
      this.p++;
    }
  }

  private object(depth: number): void {
    const L = this.L;
    this.skipSpace();
    if (this.s[this.p] === 0x7d) {
      this.p++;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (this.s[this.p] !== 0x22) this.error('object key string', this.tokenName());
      lua.lua_pushstring(L, this.string());
      this.skipSpace();
      if (this.s[this.p] !== 0x3a) this.error('colon', this.tokenName());
      this.p++;
      this.value(depth);
      lua.lua_rawset(L, -3);
      this.skipSpace();
      const c = this.s[this.p];
      if (c === 0x7d) {
        this.p++;
        return;
      }
      if (c !== 0x2c) this.error('comma or object end', this.tokenName());
      this.p++;
    }
  }

  /** A JSON string's bytes (escapes decoded, \u as UTF-8); `p` is at its opening quote. */
  private string(): Uint8Array {
    const s = this.s;
    const start = this.p;
    const out: number[] = [];
    for (this.p++; ; this.p++) {
      if (this.p >= s.length) {
        this.p = start;
        this.error('value', 'invalid token');
      }
      const c = s[this.p]!;
      if (c === 0x22) break;
      if (c !== 0x5c) {
        out.push(c);
        continue;
      }
      const e = s[++this.p];
      const simple: Record<number, number> = {
        34: 0x22,
        92: 0x5c,
        47: 0x2f,
        98: 8,
        102: 12,
        110: 10,
        114: 13,
        116: 9,
      };
      if (e !== undefined && simple[e] !== undefined) {
        out.push(simple[e]!);
        continue;
      }
      if (e === 0x75) {
        let code = Number.parseInt(
          Buffer.from(s.subarray(this.p + 1, this.p + 5)).toString('latin1'),
          16,
        );
        this.p += 4;
        if (code >= 0xd800 && code < 0xdc00 && s[this.p + 1] === 0x5c && s[this.p + 2] === 0x75) {
          const low = Number.parseInt(
            Buffer.from(s.subarray(this.p + 3, this.p + 7)).toString('latin1'),
            16,
          );
          if (low >= 0xdc00 && low < 0xe000) {
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            this.p += 6;
          }
        }
        if (!Number.isNaN(code)) {
          out.push(...Buffer.from(String.fromCodePoint(code), 'utf8'));
          continue;
        }
      }
      this.p = start;
      this.error('value', 'invalid token');
    }
    this.p++;
    return Uint8Array.from(out);
  }
}

const decode: LuaJsFunction = (L) => {
  if (lua.lua_gettop(L) !== 1) return lauxlib.luaL_error(L, 'expected 1 argument');
  const s = lauxlib.luaL_checklstring(L, 1);
  new Decoder(L, s).run();
  return 1;
};

/** The configuration functions: accepted, the defaults returned (strata keeps lua-cjson's defaults). */
const keepDefaults =
  (...defaults: (number | boolean)[]): LuaJsFunction =>
  (L) => {
    for (const d of defaults) {
      if (typeof d === 'boolean') lua.lua_pushboolean(L, d);
      else lua.lua_pushnumber(L, d);
    }
    return defaults.length;
  };

export const openCjson: LuaJsFunction = (L) => {
  lua.lua_newtable(L);
  const fns: [string, LuaJsFunction][] = [
    ['encode', encode],
    ['decode', decode],
    ['encode_sparse_array', keepDefaults(false, 2, 10)],
    ['encode_max_depth', keepDefaults(MAX_DEPTH)],
    ['decode_max_depth', keepDefaults(MAX_DEPTH)],
    ['encode_number_precision', keepDefaults(14)],
    ['encode_keep_buffer', keepDefaults(true)],
    ['encode_invalid_numbers', keepDefaults(false)],
    ['decode_invalid_numbers', keepDefaults(true)],
  ];
  for (const [name, f] of fns) {
    lua.lua_pushjsfunction(L, f);
    lua.lua_setfield(L, -2, name);
  }
  pushNull(L);
  lua.lua_setfield(L, -2, 'null');
  lua.lua_pushstring(L, 'cjson');
  lua.lua_setfield(L, -2, '_NAME');
  lua.lua_pushstring(L, '2.1.0');
  lua.lua_setfield(L, -2, '_VERSION');
  return 1;
};
