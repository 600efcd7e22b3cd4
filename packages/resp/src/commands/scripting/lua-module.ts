/// <reference path="./fengari.d.ts" />
import { createRequire } from 'node:module';
import type * as Fengari from 'fengari';
import type LObject from 'fengari/src/lobject.js';
import type LString from 'fengari/src/lstring.js';

/**
 * fengari, loaded with the first Lua VM (`loadLua`): its code and tables
 * are about 12 MB of a server's RSS, which a server that runs no script
 * does not pay (a fresh strata-server is that much smaller). The scripting
 * family reads fengari's parts from these bindings, set once here, instead
 * of importing them: an import would load fengari with the server.
 * Everything that reads them runs on a VM, so after `loadLua`.
 */
export let lua: typeof Fengari.lua;
export let lauxlib: typeof Fengari.lauxlib;
export let lualib: typeof Fengari.lualib;
export let to_luastring: typeof Fengari.to_luastring;
/** fengari's internals (lua-numbers.ts patches them, lua-strings.ts pushes strings through them). */
export let lobject: typeof LObject;
export let lstring: typeof LString;

let loaded = false;
const onLoad: (() => void)[] = [];

/** Runs `init` once fengari is loaded (module constants made of Lua strings). */
export function whenLuaLoads(init: () => void): void {
  if (loaded) init();
  else onLoad.push(init);
}

/** Whether fengari was loaded (a VM was made) in this process. */
export function luaLoaded(): boolean {
  return loaded;
}

/** Loads fengari, once; a LuaVm calls it before anything else. */
export function loadLua(): void {
  if (loaded) return;
  const require = createRequire(import.meta.url);
  const f = require('fengari') as typeof Fengari;
  lua = f.lua;
  lauxlib = f.lauxlib;
  lualib = f.lualib;
  to_luastring = f.to_luastring;
  lobject = require('fengari/src/lobject.js') as typeof LObject;
  lstring = require('fengari/src/lstring.js') as typeof LString;
  loaded = true;
  for (const init of onLoad.splice(0)) init();
}
