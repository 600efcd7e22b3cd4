/// <reference path="./fengari.d.ts" />
import type { RespVersion } from '@strata/protocol';
import type { LuaState } from 'fengari';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import { CommandFlag, type CommandResult, type CommandSpec } from '../../server/command-table.js';
import type { ServerState } from '../../server/server-state.js';
import { checkCommand } from '../acl/acl-check.js';
import { scriptDeniedMessage } from '../acl/acl-users.js';
import { lauxlib, lua } from './lua-module.js';
import { pushReply, writeLuaValue } from './lua-reply.js';
import { asBuffer } from './lua-strings.js';
import {
  type LuaHost,
  LuaVm,
  pushRedisError,
  raiseRedisError,
  type ScriptThread,
} from './lua-vm.js';

/** What a script may do, from EVAL_RO or its shebang flags. */
export interface ScriptMode {
  readonly readOnly: boolean;
}

/** What EVAL or FCALL asks the engine to run. */
export interface ScriptCall {
  /** Registry ref of the compiled script, or of the function's callback. */
  readonly ref: number;
  /** What its errors name: the script's SHA1, the function's name. */
  readonly name: string;
  readonly keys: readonly Buffer[];
  readonly args: readonly Buffer[];
  readonly mode: ScriptMode;
  /** FCALL's: the functions' VM, keys and arguments as its two arguments. */
  readonly isFunction: boolean;
  /** The command that runs it (FUNCTION STATS). */
  readonly argv: readonly Buffer[];
}

/** One script running: its client, its protocol, and what the scheduler must know. */
export interface Run {
  readonly c: Client;
  /** FCALL's (FUNCTION STATS shows it), not EVAL's. */
  readonly isFunction: boolean;
  /** The command that runs it (FUNCTION STATS). */
  readonly argv: readonly Buffer[];
  /** The SHA1 its errors name. */
  readonly name: string;
  readonly mode: ScriptMode;
  resp: 2 | 3;
  /** A redis.call that went to the disk: the script waits for it (yielded). */
  pending: Promise<void> | null;
  /** The reply of that call, once it settled, and whether to raise it (redis.call of an error). */
  pendingStart: number;
  raise: boolean;
  /** A write command ran: SCRIPT KILL can no longer stop it (Redis's UNKILLABLE). */
  wrote: boolean;
  readonly startedAt: number;
  killRequested: boolean;
  /** When the current slice began: the count hook yields once it has run long enough. */
  sliceAt: number;
  /** The script's own coroutine: only it yields to the engine (a coroutine the script made yields to the script). */
  readonly co: LuaState;
  /**
   * The process's heap and buffers (fengari's strings) at its first count
   * hook (-1 before; the first 10,000 instructions are not counted): the
   * count hook stops a script that grows them past `config.scriptMemory`
   * (fengari has no allocator to cap; unbounded, V8's heap limit would end
   * the process).
   */
  heapAtStart: number;
  /** The count hook raised an error (SCRIPT KILL, memory). */
  hookRaised: boolean;
  /** Its VM and coroutine (the coroutine goes back to the VM once it ends). */
  readonly vm: LuaVm;
  readonly thread: ScriptThread;
  /** The client's database, protocol and CLIENT LIST `cmd` before it: restored once it ends. */
  readonly db: number;
  readonly protocol: RespVersion;
  readonly lastCommand: string;
  /** It began the MULTI .. EXEC frame of its writes (not inside an EXEC already). */
  readonly framed: boolean;
}

function heapBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** How long one slice of a script runs before it lets the event loop turn (and others get BUSY). */
const SLICE_MS = 20;
/** Lua instructions between the count hook's checks. */
const HOOK_COUNT = 10_000;

/**
 * Runs scripts for one server: its Lua VM (shared by every script, as in
 * Redis), the script running now, and the rules for others meanwhile.
 *
 * A script runs as a Lua coroutine. While every command it calls stays in
 * memory it runs in one synchronous step. A call that goes to the disk, or
 * a script that has run for a slice, yields: the script then holds the
 * server's exclusive gate, so no other client's command runs until it
 * ends (it stays atomic); after `busy-reply-threshold` they are answered
 * BUSY instead of waiting, and SCRIPT KILL may stop it unless it wrote.
 */
export class ScriptEngine implements LuaHost {
  /**
   * EVAL's VM and the functions' (as in Redis: SCRIPT FLUSH leaves the
   * functions, FUNCTION FLUSH the scripts), each made at its first use: a
   * server that runs no script loads no Lua (fengari and a VM are ~12 MB
   * and ~30 ms of a start).
   */
  private evalVm: LuaVm | null = null;
  private libraryVm: LuaVm | null = null;
  running: Run | null = null;
  private readonly hookFn = (L: LuaState) => this.hook(L);

  constructor(
    private readonly server: ServerState,
    private readonly busyThresholdMs: () => number,
  ) {}

  get vm(): LuaVm {
    this.evalVm ??= new LuaVm(this);
    return this.evalVm;
  }

  get functionsVm(): LuaVm {
    this.libraryVm ??= new LuaVm(this);
    return this.libraryVm;
  }

  /** Makes EVAL's VM now if there is none (a command's `setup`); true when it did. */
  prepareEvalVm(): boolean {
    if (this.evalVm !== null) return false;
    this.evalVm = new LuaVm(this);
    return true;
  }

  /** Makes the functions' VM now if there is none (a command's `setup`); true when it did. */
  prepareFunctionsVm(): boolean {
    if (this.libraryVm !== null) return false;
    this.libraryVm = new LuaVm(this);
    return true;
  }

  /** SCRIPT FLUSH: the old VM's scripts and state are dropped with it; the next use makes a new one. */
  reset(): void {
    this.evalVm = null;
  }

  /** FUNCTION FLUSH (and a FUNCTION RESTORE FLUSH): the functions' VM anew. */
  resetFunctions(): void {
    this.libraryVm = null;
  }

  /** Runs `call` for `c` and writes its reply to `c.reply`. */
  run(c: Client, call: ScriptCall): CommandResult {
    if (this.running !== null) {
      // A script calling EVAL is refused by its flags; this is a bug guard.
      throw new CommandError('ERR_BUSY', 'ERR a script is already running');
    }
    const server = this.server;
    // The declared keys' reads start together (a script's calls then often
    // find them in memory); one key has nothing to overlap with.
    if (call.keys.length > 1) server.keyspace.get(c.db)?.prefetch(call.keys, call.keys.length);
    if (!server.othersIdle(c)) {
      // Other clients' commands are on the disk: the script starts once they end, as EXEC does.
      return server.runExclusive(c, () => this.start(c, call, true));
    }
    return this.start(c, call, false);
  }

  private start(c: Client, call: ScriptCall, holdsGate: boolean): CommandResult {
    const { ref, keys, args, isFunction } = call;
    const vm = isFunction ? this.functionsVm : this.vm;
    const thread = vm.takeThread();
    const co = thread.co;
    const firstArgs = vm.pushCall(co, ref, keys, args, isFunction);
    const now = Date.now();
    const framed = !c.inExec;
    const run: Run = {
      c,
      isFunction,
      argv: call.argv,
      name: call.name,
      mode: call.mode,
      resp: 2,
      pending: null,
      pendingStart: 0,
      raise: false,
      wrote: false,
      startedAt: now,
      killRequested: false,
      sliceAt: now,
      co,
      heapAtStart: -1,
      hookRaised: false,
      vm,
      thread,
      db: c.db,
      protocol: c.reply.protocol,
      lastCommand: c.lastCommand,
      framed,
    };
    this.running = run;
    // Its writes reach the command log as MULTI, the writes, EXEC (effects replication).
    if (framed) c.beginExec();
    c.inScript = true;
    lua.lua_sethook(co, this.hookFn, lua.LUA_MASKCOUNT, HOOK_COUNT);
    let status: number;
    try {
      status = lua.lua_resume(co, null, firstArgs);
    } catch (e) {
      this.finish(run, lua.LUA_ERRRUN);
      throw e;
    }
    if (status !== lua.LUA_YIELD) {
      this.finish(run, status);
      return undefined;
    }
    // It goes on asynchronously: nothing of another client may run in between.
    const server = this.server;
    const acquired = !holdsGate && server.exclusive !== c;
    if (acquired) server.exclusive = c;
    server.busy = (spec) => this.othersMeanwhile(spec);
    let woken = false;
    return (async () => {
      try {
        while (status === lua.LUA_YIELD) {
          if (!woken && Date.now() - run.startedAt >= this.busyThresholdMs()) {
            // Busy now: those that waited for the script are answered BUSY, as Redis answers them.
            woken = true;
            server.wakeExclusiveWaiters();
          }
          let nargs = 0;
          if (run.pending !== null) {
            await run.pending;
            run.pending = null;
            nargs = this.pushCallReply(co, run);
          } else {
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
          run.sliceAt = Date.now();
          status = lua.lua_resume(co, null, nargs);
        }
      } finally {
        this.finish(run, status);
        if (acquired) server.releaseExclusive(c);
      }
    })();
  }

  /** The script ended (`status`): the client as it was, the reply, the coroutine kept or let go. */
  private finish(run: Run, status: number): void {
    const c = run.c;
    c.inScript = false;
    c.db = run.db;
    c.reply.protocol = run.protocol;
    c.lastCommand = run.lastCommand;
    this.running = null;
    this.server.busy = null;
    this.reply(c, run.co, status, run);
    // A thread a hook raised an error in keeps fengari's hooks off (allowhook): not reused.
    run.vm.releaseThread(run.thread, status === lua.LUA_OK && !run.hookRaised);
    if (run.framed) c.endExec();
  }

  /** Every HOOK_COUNT instructions: SCRIPT KILL, and the end of a slice. */
  private hook(L: LuaState): void {
    const run = this.running;
    if (run === null) return;
    if (run.killRequested) {
      run.killRequested = false;
      run.hookRaised = true;
      raiseRedisError(L, 'Script killed by user with SCRIPT KILL...');
      return;
    }
    const limit = this.server.config.scriptMemory;
    // The baseline is taken at the first check: reading it costs a system call, too much per script.
    if (run.heapAtStart < 0) run.heapAtStart = heapBytes();
    else if (heapBytes() - run.heapAtStart > limit) {
      run.hookRaised = true;
      // An OOM error, raised like redis.call's errors: the reply names the script and its line.
      raiseRedisError(L, `-${scriptMemoryError(limit).message}`);
      return;
    }
    if (Date.now() - run.sliceAt >= SLICE_MS && L === run.co && lua.lua_isyieldable(L)) {
      lua.lua_yield(L, 0);
    }
  }

  /** Another client's command while the script holds the gate. */
  private othersMeanwhile(spec: CommandSpec): 'wait' | 'run' | CommandError {
    const run = this.running;
    if (run === null || Date.now() - run.startedAt < this.busyThresholdMs()) return 'wait';
    if ((spec.flags & CommandFlag.allow_busy) !== 0 && !spec.runsTransaction && !spec.runsInMulti) {
      return 'run';
    }
    return new CommandError(
      'ERR_BUSY',
      'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
    );
  }

  /** SCRIPT KILL. */
  kill(): void {
    const run = this.running;
    if (run === null)
      throw new CommandError('ERR_NOTBUSY', 'NOTBUSY No scripts in execution right now.');
    if (run.wrote) {
      throw new CommandError(
        'ERR_UNKILLABLE',
        'UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.',
      );
    }
    run.killRequested = true;
  }

  /** The script ended (`status`): its result or its error, as the caller's reply. */
  private reply(c: Client, co: LuaState, status: number, run: Run): void {
    if (status !== lua.LUA_OK) {
      // The runner's xpcall catches every script error; this is the VM failing itself.
      c.reply.error(
        `ERR Error running script (call to f_${run.name}): ${lua.lua_tojsstring(co, -1)}`,
      );
      return;
    }
    if (lua.lua_toboolean(co, 1)) {
      writeLuaValue(co, 2, c.reply, run.resp);
      return;
    }
    c.reply.error(scriptError(co, 2, run.name));
  }

  // ---- LuaHost: the redis table --------------------------------------------------

  call(L: LuaState, raise: boolean): number {
    const run = this.running;
    if (run === null) return lauxlib.luaL_error(L, 'redis.call outside a script');
    const argc = lua.lua_gettop(L);
    if (argc === 0) {
      return refuse(L, raise, 'Please specify at least one argument for this redis lib call');
    }
    const argv: Buffer[] = new Array(argc);
    for (let i = 1; i <= argc; i++) {
      const t = lua.lua_type(L, i);
      if (t === lua.LUA_TSTRING) argv[i - 1] = asBuffer(lua.lua_tolstring(L, i)!);
      else if (t === lua.LUA_TNUMBER) {
        argv[i - 1] = Buffer.from(numberArgument(lua.lua_tonumber(L, i)), 'latin1');
      } else return refuse(L, raise, 'Lua redis lib command arguments must be strings or integers');
    }
    const c = run.c;
    const server = this.server;
    let spec = server.table.lookup(argv[0]!);
    if (spec !== undefined && spec.subcommands !== null && argc >= 2) {
      spec = spec.subcommands.lookup(argv[1]!);
    }
    if (spec === undefined || spec.handler === null) {
      return refuse(L, raise, 'Unknown Redis command called from script');
    }
    if (!spec.arityOk(argc)) {
      return refuse(L, raise, 'Wrong number of args calling Redis command from script');
    }
    if ((spec.flags & CommandFlag.noscript) !== 0) {
      return refuse(L, raise, 'This Redis command is not allowed from script');
    }
    // scriptVerifyACL: each call is checked against the caller's ACL user.
    if (!c.user.unrestricted) {
      const denied = server.users.check(c, spec, argv, 'lua');
      if (denied !== null) return refuse(L, raise, scriptDeniedMessage(denied));
    }
    const write = (spec.flags & CommandFlag.write) !== 0;
    // Redis counts may-replicate commands as writes here (so read-only scripts run under CLIENT PAUSE WRITE).
    if (run.mode.readOnly && (write || MAY_REPLICATE.has(spec.fullName))) {
      return refuse(L, raise, 'Write commands are not allowed from read-only scripts.');
    }
    if (write) {
      // scriptVerifyWriteCommandAllow: while writes fail, a script's write is refused with the reason.
      const writeError = server.writeError === null ? null : server.currentWriteError();
      if (writeError !== null) return refuse(L, raise, `-${writeError}`);
      run.wrote = true;
    }
    const reply = c.reply;
    const start = reply.position;
    const protocol = reply.protocol;
    reply.protocol = run.resp;
    let r: CommandResult;
    try {
      r = c.call(spec, argv);
    } catch (e) {
      reply.protocol = protocol;
      throw e;
    }
    if (r === undefined) reply.protocol = protocol;
    else {
      // On the disk: the script yields until it settles; the continuation raises an error reply.
      // The reply is written when it settles, in the script's protocol too.
      r = r.finally(() => {
        reply.protocol = protocol;
      });
      run.pending = r;
      run.pendingStart = start;
      run.raise = raise;
      return lua.lua_yieldk(L, 0, 0, this.continueCall);
    }
    const isError = this.convert(L, run, start);
    return raise && isError ? this.raiseReply(L) : 1;
  }

  /** After a call that yielded: its reply is on the stack (`pushCallReply`), raised when it is to be. */
  private readonly continueCall = (L: LuaState): number => {
    const run = this.running;
    return run?.raise ? this.raiseReply(L) : 1;
  };

  /** The settled call's reply onto the coroutine, for the continuation (see `call`). */
  private pushCallReply(co: LuaState, run: Run): number {
    const raise = run.raise;
    const isError = this.convert(co, run, run.pendingStart);
    run.raise = raise && isError;
    return 1;
  }

  /** redis.call of a command that answered an error: raised as the redis library raises. */
  private raiseReply(L: LuaState): number {
    lua.lua_getfield(L, -1, 'err');
    const message = lua.lua_tojsstring(L, -1);
    lua.lua_pop(L, 2);
    return raiseRedisError(L, `-${message}`);
  }

  /** Pushes the reply written since `start` and takes it back from the writer; whether it was an error. */
  private convert(L: LuaState, run: Run, start: number): boolean {
    const reply = run.c.reply;
    const bytes = reply.bytes;
    const at = reply.offsetOf(start);
    const isError = bytes[at] === 0x2d || bytes[at] === 0x21;
    pushReply(L, bytes, at);
    reply.rewind(start);
    return isError;
  }

  setResp(L: LuaState): number {
    const run = this.running;
    if (run === null) return 0;
    if (lua.lua_gettop(L) !== 1)
      return raiseRedisError(L, 'redis.setresp() requires one argument.');
    const v = lua.lua_tonumber(L, 1);
    if (v !== 2 && v !== 3) return raiseRedisError(L, 'RESP version must be 2 or 3.');
    run.resp = v;
    return 0;
  }

  /** redis.acl_check_cmd: whether the caller's ACL user may run the command (nothing logged). */
  aclCheck(L: LuaState): number {
    const argc = lua.lua_gettop(L);
    if (argc < 1) {
      return raiseRedisError(L, 'Please specify at least one argument for this redis lib call');
    }
    const name = lua.lua_tolstring(L, 1);
    let spec = name === null ? undefined : this.server.table.lookup(asBuffer(name));
    const argv: Buffer[] = [];
    for (let i = 1; i <= argc; i++) {
      const s = lua.lua_tolstring(L, i);
      argv.push(s === null ? Buffer.alloc(0) : asBuffer(s));
    }
    if (spec !== undefined && spec.subcommands !== null && argc >= 2) {
      spec = spec.subcommands.lookup(argv[1]!);
    }
    if (spec === undefined) {
      return raiseRedisError(L, 'Invalid command passed to redis.acl_check_cmd()');
    }
    const user = this.running?.c.user;
    lua.lua_pushboolean(L, user === undefined || checkCommand(user, spec, argv) === null);
    return 1;
  }
}

/**
 * Commands Redis 7.0 flags may-replicate that a script can call (its
 * COMMAND INFO does not show that flag, so neither does strata's table).
 */
const MAY_REPLICATE: ReadonlySet<string> = new Set(['publish', 'spublish', 'pfcount']);

/**
 * Redis has no limit on its Lua VM's memory (only `maxmemory`, for the
 * dataset); strata's scriptMemory is its own, so the words are too. The
 * code is Redis's OOM, which clients read as out of memory.
 */
function scriptMemoryError(limit: number): CommandError {
  return new CommandError(
    'ERR_OOM',
    `OOM script used more memory than scripts may use (${limit} bytes of heap and buffers, scriptMemory)`,
  );
}

/** A refused redis.call: raised, or (redis.pcall) returned as an error table. */
function refuse(L: LuaState, raise: boolean, message: string): number {
  if (raise) return raiseRedisError(L, message);
  pushRedisError(L, message);
  return 1;
}

/** A number given to redis.call, as Redis 7.0 writes it (fpconv_dtoa: the shortest exact form). */
function numberArgument(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  return String(n);
}

/**
 * A script's error as Redis 7.0 replies it: the error table's message, then
 * where it happened (`script: <sha>, on @user_script:<line>.`) when the
 * handler found a line; a raw error value (not a table) as Redis words it.
 */
function scriptError(L: LuaState, i: number, name: string): Buffer {
  if (lua.lua_type(L, i) !== lua.LUA_TTABLE) {
    const msg =
      lua.lua_type(L, i) === lua.LUA_TSTRING ? lua.lua_tojsstring(L, i) : 'execution failure';
    return Buffer.from(`ERR Error running script ${name}, ${msg.slice(0, 100)}`, 'latin1');
  }
  const field = (f: string) => {
    lua.lua_getfield(L, i, f);
    const t = lua.lua_type(L, -1);
    const v =
      t === lua.LUA_TSTRING || t === lua.LUA_TNUMBER
        ? Buffer.from(lua.lua_tolstring(L, -1)!)
        : null;
    lua.lua_pop(L, 1);
    return v;
  };
  const err = field('err') ?? Buffer.alloc(0);
  const source = field('source');
  const line = field('line');
  if (source === null || line === null) return err;
  return Buffer.concat([
    err,
    Buffer.from(` script: ${name}, on ${source.toString('latin1')}:${line.toString('latin1')}.`),
  ]);
}
