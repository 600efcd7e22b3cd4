/// <reference path="./fengari.d.ts" />
import type { LuaState } from 'fengari';
import { CommandError } from '../../errors.js';
import { dumpLibraries, restoreLibraries } from './function-dump.js';
import { lua } from './lua-module.js';
import { raiseRedisError } from './lua-vm.js';
import type { ScriptEngine } from './script-run.js';
import { SCRIPT_FLAGS } from './shebang.js';

/** Where the libraries are kept between runs (RespServerOptions.functionStore). */
export interface FunctionStore {
  /** The payload last saved (FUNCTION DUMP's format), or null when none was. */
  load(): Promise<Buffer | null>;
  /** Keeps `payload` durably before it resolves: FUNCTION LOAD answers OK after. */
  save(payload: Buffer): Promise<void>;
}

/** Function flags are the scripts' (FUNCTION LIST prints them in this order). */
const FLAGS: readonly string[] = SCRIPT_FLAGS;

export interface RegisteredFunction {
  readonly name: string;
  readonly library: string;
  /** Registry ref of its callback in the functions' VM. */
  readonly ref: number;
  readonly flags: readonly string[];
  readonly description: Buffer | null;
}

export interface Library {
  readonly name: string;
  readonly code: Buffer;
  readonly functions: ReadonlyMap<string, RegisteredFunction>;
}

const fail = (message: string) => new CommandError('ERR_SCRIPT', message, true);

/** The library codes of a function store's payload; throws when the payload is corrupt. */
export function savedCodes(payload: Buffer): Buffer[] {
  const codes = restoreLibraries(payload);
  if (codes === null) throw fail('ERR the saved function libraries are corrupt (checksum)');
  return codes;
}

/** `#!lua name=<lib>`, Redis 7.0's functionExtractLibMetaData. */
export function libraryName(code: Buffer): string {
  if (code[0] !== 0x23 || code[1] !== 0x21) throw fail('ERR Missing library metadata');
  const end = code.indexOf(0x0a);
  const line = code.toString('latin1', 0, end < 0 ? code.length : end);
  const parts = line.split(' ').filter((p) => p !== '');
  if (parts[0] !== '#!lua') throw fail(`ERR Engine '${parts[0]!.slice(2)}' not found`);
  let name: string | null = null;
  for (const part of parts.slice(1)) {
    if (!part.startsWith('name=')) throw fail(`ERR Invalid metadata value given: ${part}`);
    name = part.slice(5);
  }
  if (name === null) throw fail('ERR Library name was not given');
  if (!/^[A-Za-z0-9_]+$/.test(name)) {
    throw fail(
      'ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long',
    );
  }
  return name;
}

/** The function libraries of a server (Redis 7.0's functions.c), and their persistence. */
export class FunctionLibraries {
  private readonly libraries = new Map<string, Library>();
  private readonly functions = new Map<string, RegisteredFunction>();

  constructor(
    private readonly engine: ScriptEngine,
    private readonly store: FunctionStore | null,
  ) {}

  get libraryCount(): number {
    return this.libraries.size;
  }

  get functionCount(): number {
    return this.functions.size;
  }

  find(name: string): RegisteredFunction | undefined {
    return this.functions.get(name);
  }

  list(): Iterable<Library> {
    return this.libraries.values();
  }

  /** Loads the libraries saved before (at start). */
  async restoreSaved(): Promise<void> {
    const payload = await this.store?.load();
    if (payload === null || payload === undefined) return;
    for (const code of savedCodes(payload)) {
      try {
        this.add(this.compile(code), false);
      } catch (e) {
        // Saved by an RDB import, not by a FUNCTION LOAD that compiled it: say which.
        const name = code.toString('latin1', 0, Math.min(code.indexOf(0x0a) >>> 0, 200));
        const why = (e instanceof Error ? e.message : String(e)).replace(/^ERR /, '');
        throw fail(`ERR the saved function library '${name}' cannot be loaded: ${why}`);
      }
    }
  }

  /** FUNCTION LOAD [REPLACE]: the library's name; saved before it resolves. */
  load(code: Buffer, replace: boolean): Promise<string> | string {
    const lib = this.compile(code);
    this.add(lib, replace);
    return this.saved(lib.name);
  }

  /** FUNCTION DELETE. */
  delete(name: string): Promise<void> | undefined {
    const lib = this.libraries.get(name);
    if (lib === undefined) throw fail('ERR Library not found');
    this.remove(lib);
    return this.persist();
  }

  /** FUNCTION FLUSH. */
  flush(): Promise<void> | undefined {
    this.libraries.clear();
    this.functions.clear();
    this.engine.resetFunctions();
    return this.persist();
  }

  dump(): Buffer {
    return dumpLibraries([...this.libraries.values()].map((l) => l.code));
  }

  /** FUNCTION RESTORE with its policy: all the payload's libraries or none. */
  restore(payload: Buffer, policy: 'flush' | 'append' | 'replace'): Promise<void> | undefined {
    const codes = restoreLibraries(payload);
    if (codes === null) throw fail('ERR DUMP payload version or checksum are wrong');
    // Checked on a copy of the names first, so a collision changes nothing.
    const libs = codes.map((code) => this.compile(code));
    const names = new Set(policy === 'flush' ? [] : this.libraries.keys());
    const fnOwners = new Map<string, string>();
    if (policy !== 'flush')
      for (const f of this.functions.values()) fnOwners.set(f.name, f.library);
    for (const lib of libs) {
      if (names.has(lib.name) && policy === 'append')
        throw fail(`ERR Library ${lib.name} already exists`);
      if (policy === 'replace' && names.has(lib.name)) {
        for (const [fn, owner] of fnOwners) if (owner === lib.name) fnOwners.delete(fn);
      }
      for (const fn of lib.functions.keys()) {
        if (fnOwners.has(fn)) throw fail(`ERR Function ${fn} already exists`);
        fnOwners.set(fn, lib.name);
      }
      names.add(lib.name);
    }
    if (policy === 'flush') {
      this.libraries.clear();
      this.functions.clear();
    }
    for (const lib of libs) this.add(lib, policy !== 'append');
    return this.persist();
  }

  private async saved(name: string): Promise<string> {
    await this.persist();
    return name;
  }

  private persist(): Promise<void> | undefined {
    return this.store?.save(this.dump());
  }

  private remove(lib: Library): void {
    this.libraries.delete(lib.name);
    for (const f of lib.functions.values()) {
      this.functions.delete(f.name);
      this.engine.functionsVm.release(f.ref);
    }
  }

  private add(lib: Library, replace: boolean): void {
    const old = this.libraries.get(lib.name);
    if (old !== undefined && !replace) {
      this.release(lib);
      throw fail(`ERR Library '${lib.name}' already exists`);
    }
    for (const f of lib.functions.values()) {
      const owner = this.functions.get(f.name);
      if (owner !== undefined && owner.library !== lib.name) {
        this.release(lib);
        throw fail(`ERR Function ${f.name} already exists`);
      }
    }
    if (old !== undefined) this.remove(old);
    this.libraries.set(lib.name, lib);
    for (const f of lib.functions.values()) this.functions.set(f.name, f);
  }

  private release(lib: Library): void {
    for (const f of lib.functions.values()) this.engine.functionsVm.release(f.ref);
  }

  /** Runs the library's code with redis.register_function collecting its functions. */
  private compile(code: Buffer): Library {
    const name = libraryName(code);
    const vm = this.engine.functionsVm;
    const functions = new Map<string, RegisteredFunction>();
    // The metadata line is skipped but its newline kept: line numbers are the user's.
    const eol = code.indexOf(0x0a);
    const body = eol < 0 ? Buffer.alloc(0) : code.subarray(eol);
    const error = vm.loadLibrary(body, (L) =>
      registerFunction(L, name, functions, (i) => vm.ref(i)),
    );
    if (error !== null) {
      for (const f of functions.values()) vm.release(f.ref);
      throw fail(error);
    }
    if (functions.size === 0) throw fail('ERR No functions registered');
    return { name, code: Buffer.from(code), functions };
  }
}

/**
 * redis.register_function(name, callback) or
 * redis.register_function{function_name=, callback=, flags=, description=},
 * read as Redis 7.0 reads them (function_lua.c): the named arguments in the
 * table's order, their names and the flags without regard to case, a name
 * or description that is a number taken as its string (lua_isstring).
 */
function registerFunction(
  L: LuaState,
  library: string,
  into: Map<string, RegisteredFunction>,
  ref: (i: number) => number,
): number {
  const raise = (message: string) => raiseRedisError(L, message);
  const argc = lua.lua_gettop(L);
  if (argc < 1 || argc > 2) return raise('wrong number of arguments to redis.register_function');
  let name: string | null = null;
  let callbackAt = 2;
  let flags: string[] = [];
  let description: Buffer | null = null;
  if (argc === 1) {
    if (lua.lua_type(L, 1) !== lua.LUA_TTABLE) {
      return raise(
        'calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).',
      );
    }
    callbackAt = 0;
    lua.lua_pushnil(L);
    while (lua.lua_next(L, 1) !== 0) {
      // Stack: key at -2, value at -1.
      if (!isString(L, -2))
        return raise('named argument key given to redis.register_function is not a string');
      const key = Buffer.from(lua.lua_tolstring(L, -2)!).toString('latin1').toLowerCase();
      if (key === 'function_name') {
        if (!isString(L, -1)) {
          return raise('function_name argument given to redis.register_function must be a string');
        }
        name = Buffer.from(lua.lua_tolstring(L, -1)!).toString('latin1');
      } else if (key === 'description') {
        if (!isString(L, -1)) {
          return raise('description argument given to redis.register_function must be a string');
        }
        description = Buffer.from(lua.lua_tolstring(L, -1)!);
      } else if (key === 'callback') {
        if (lua.lua_type(L, -1) !== lua.LUA_TFUNCTION) {
          return raise('callback argument given to redis.register_function must be a function');
        }
        // Kept on the stack under the iteration (its slot stays valid until the end).
        lua.lua_pushvalue(L, -1);
        lua.lua_insert(L, 2);
        callbackAt = 2;
        lua.lua_pop(L, 1);
        continue;
      } else if (key === 'flags') {
        if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) {
          return raise(
            'flags argument to redis.register_function must be a table representing function flags',
          );
        }
        const read = readFlags(L, lua.lua_gettop(L));
        if (read === null) return raise('unknown flag given');
        flags = read;
      } else {
        return raise('unknown argument given to redis.register_function');
      }
      lua.lua_pop(L, 1);
    }
    if (name === null) return raise('redis.register_function must get a function name argument');
    if (callbackAt === 0) return raise('redis.register_function must get a callback argument');
  } else {
    if (!isString(L, 1)) return raise('first argument to redis.register_function must be a string');
    if (lua.lua_type(L, 2) !== lua.LUA_TFUNCTION) {
      return raise('second argument to redis.register_function must be a function');
    }
    name = Buffer.from(lua.lua_tolstring(L, 1)!).toString('latin1');
  }
  if (!/^[A-Za-z0-9_]+$/.test(name)) {
    return raise(
      'Library names can only contain letters, numbers, or underscores(_) and must be at least one character long',
    );
  }
  if (into.has(name)) return raise('Function already exists in the library');
  flags = FLAGS.filter((f) => flags.includes(f));
  into.set(name, { name, library, ref: ref(callbackAt), flags, description });
  return 0;
}

/** lua_isstring: a string, or a number (which converts). */
function isString(L: LuaState, i: number): boolean {
  const t = lua.lua_type(L, i);
  return t === lua.LUA_TSTRING || t === lua.LUA_TNUMBER;
}

/** The flags table at `t` (t[1], t[2]... up to a nil), each a known flag in any case; null if one is not. */
function readFlags(L: LuaState, t: number): string[] | null {
  const out: string[] = [];
  for (let i = 1; lua.lua_rawgeti(L, t, i) !== lua.LUA_TNIL; i++) {
    const flag = isString(L, -1)
      ? Buffer.from(lua.lua_tolstring(L, -1)!).toString('latin1').toLowerCase()
      : '';
    lua.lua_pop(L, 1);
    if (!FLAGS.includes(flag)) return null;
    out.push(flag);
  }
  lua.lua_pop(L, 1);
  return out;
}
