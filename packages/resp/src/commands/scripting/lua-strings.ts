/// <reference path="./fengari.d.ts" />
import type { LuaState } from 'fengari';
import type { TString } from 'fengari/src/lstring.js';
import { lobject, lstring } from './lua-module.js';

/**
 * Strings between strata's commands (Buffers) and fengari's Lua strings
 * (Uint8Arrays), without the API's costs: `lua_pushstring` copies its
 * bytes with Uint8Array.from (an iterator) and encodes a JS string's name
 * anew each time, and a command needs a Buffer where Lua has a plain
 * Uint8Array (`Buffer.from(arrayBuffer, ...)`, its argument checks, per
 * argument). Here the strings strata makes for Lua are Buffers already
 * (LuaBytes), so they go back to commands as they are, and so do a
 * script's string constants (`bufferConstants`): only strings Lua makes
 * itself (`..`, the string library) are wrapped, per call.
 *
 * Relies on fengari 0.1.5's internals (a TString's `realstring`, a Proto's
 * `k` and `p`, `pushsvalue2s`): fengari is pinned to that version.
 */

/**
 * A Uint8Array that is a Buffer, as Node's own FastBuffer is one: made as
 * cheaply as a Uint8Array, used by commands as any Buffer. fengari only
 * indexes, subarrays and sets a string's bytes, which a Buffer does alike.
 */
class LuaBytes extends Uint8Array {}
Object.setPrototypeOf(LuaBytes.prototype, Buffer.prototype);

/** Strings up to this long are copied byte by byte (fewer native calls than `set`). */
const COPY_LOOP_MAX = 32;

/** `b[from, to)` as a Lua string's bytes of its own (a Buffer). */
function copyBytes(b: Uint8Array, from: number, to: number): Uint8Array {
  const n = to - from;
  const out = new LuaBytes(n);
  if (n <= COPY_LOOP_MAX) for (let i = 0; i < n; i++) out[i] = b[from + i]!;
  else out.set(new Uint8Array(b.buffer, b.byteOffset + from, n));
  return out;
}

/** Pushes `b[from, to)` as a Lua string (lua_pushstring's result, one copy). */
export function pushBytes(L: LuaState, b: Uint8Array, from: number, to: number): void {
  lobject.pushsvalue2s(L, lstring.luaS_bless(L, copyBytes(b, from, to)));
}

/** Pushes a whole Buffer as a Lua string. */
export function pushBuffer(L: LuaState, b: Uint8Array): void {
  lobject.pushsvalue2s(L, lstring.luaS_bless(L, copyBytes(b, 0, b.length)));
}

/**
 * A Lua string made once, pushed as often as wanted (a field name, `OK`):
 * a Lua string never changes, and its table hash is computed once, where
 * `lua_setfield(L, i, 'ok')` encodes, copies and hashes 'ok' every time.
 */
export function luaConstant(text: string): TString {
  return lstring.luaS_bless(null, copyBytes(Buffer.from(text, 'latin1'), 0, text.length));
}

export function pushConstant(L: LuaState, s: TString): void {
  lobject.pushsvalue2s(L, s);
}

/** A Lua string's bytes as a command's argument: itself when it is a Buffer already. */
export function asBuffer(s: Uint8Array): Buffer {
  if (s instanceof Buffer) return s;
  const n = s.length;
  // A short one copied is cheaper than a view of it (a view's constructor checks its arguments).
  const b =
    n <= COPY_LOOP_MAX
      ? copyBytes(s, 0, n)
      : new LuaBytes(s.buffer as ArrayBuffer, s.byteOffset, n);
  return b as unknown as Buffer;
}

interface Proto {
  readonly k: { readonly type: number; readonly value: unknown }[];
  readonly p: Proto[];
}

interface LuaStateInternals {
  readonly stack: { readonly value: { readonly p: Proto } }[];
  readonly top: number;
}

const STRING_TAG = 4;

/**
 * Makes the string constants of the Lua function on top of `L` (just
 * compiled) and of the functions it defines Buffers: `redis.call('SET',
 * k, 'value')` then hands 'SET' and 'value' to the command as they are.
 * Same bytes, same hash: nothing a script can see changes.
 */
export function bufferConstants(L: LuaState): void {
  const top = L as unknown as LuaStateInternals;
  const pending: Proto[] = [top.stack[top.top - 1]!.value.p];
  for (let proto = pending.pop(); proto !== undefined; proto = pending.pop()) {
    for (const k of proto.k) {
      if ((k.type & 0x0f) !== STRING_TAG) continue;
      const ts = k.value as TString;
      const s = ts.realstring;
      if (!(s instanceof Buffer)) ts.realstring = copyBytes(s, 0, s.length);
    }
    for (const p of proto.p) pending.push(p);
  }
}
