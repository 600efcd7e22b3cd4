import type { Socket } from 'node:net';
import type { CollectionStore } from '@strata/collections';
import type { StoreCore } from '@strata/hlog';
import { ReplyWriter, RequestParser, type RespVersion } from '@strata/protocol';
import { serveReadyKeys } from '../commands/blocking/blocking-registry.js';
import {
  aofWriteErrorMessage,
  CommandError,
  execAbortBecauseError,
  noAuthError,
  toCommandError,
  unknownCommandError,
  unknownSubcommandError,
  wrongArityError,
} from '../errors.js';
import { type CommandLog, EXEC_ARGV, MULTI_ARGV, propagationOf } from './command-log.js';
import { CommandFlag, type CommandResult, type CommandSpec } from './command-table.js';
import type { ServerState } from './server-state.js';
import { readChunks } from './socket-reader.js';

/** A queued command of MULTI. */
export interface QueuedCommand {
  readonly spec: CommandSpec;
  readonly argv: Buffer[];
}

export interface MultiState {
  readonly queue: QueuedCommand[];
  /** A command was rejected while queueing: EXEC answers EXECABORT. */
  error: boolean;
}

// Why reading from the socket is paused (bits): a command waiting on the
// disk holds the connection's later commands, and a socket that does not
// drain its replies stops us reading more requests.
const PAUSE_PENDING = 1;
const PAUSE_DRAIN = 2;
// Replies wait for the command log (appendfsync always) before they leave.
const PAUSE_APPEND = 4;

/** Replies of one batch past which they are written before the batch ends. */
const BATCH_REPLY_BYTES = 1 << 20;

/** GETs and SETs parsed ahead of running, at most (see `nextCommand`). */
const AHEAD_MAX = 32;

/** A reply held until its command is in the log: replaced by an error if that fails. */
interface HeldReply {
  /** Reply positions (ReplyWriter.position) of the reply to replace on failure. */
  readonly start: number;
  readonly end: number;
  error: string | null;
}

/** A transaction's writes are logged as MULTI, the writes, EXEC. */
interface ExecLog {
  wrote: boolean;
  /** The last logged write's reply: an EXEC marker that fails turns it into the error. */
  lastStart: number;
  lastEnd: number;
}

/** Commands that run at once inside MULTI instead of being queued (Redis's list). */
const MULTI_IMMEDIATE = new Set(['exec', 'discard', 'multi', 'watch', 'quit', 'reset']);

/**
 * One connection: its parser and reply writer, its state (db, protocol,
 * name, auth, MULTI) and the loop that runs its commands in order.
 *
 * Every complete command in a chunk runs, then all their replies go out in
 * one socket write. A command that returns a promise (the store went to
 * disk) holds the commands after it: reading pauses, the replies so far are
 * written, and the loop resumes when it settles. Other connections go on
 * meanwhile; the store keeps every key linearizable.
 */
export class Client {
  readonly id: number;
  readonly reply: ReplyWriter;
  readonly parser: RequestParser;
  readonly createdAt = Date.now();
  lastInteraction = Date.now();
  db = 0;
  name: Buffer | null = null;
  libName = '';
  libVer = '';
  authenticated: boolean;
  noEvict = false;
  multi: MultiState | null = null;
  /** WATCHed keys as (db, key) pairs; `watchDirty` once one of them was written. */
  readonly watching: { db: number; key: string }[] = [];
  watchDirty = false;
  /** fullName of the last command (CLIENT LIST `cmd=`). */
  lastCommand = 'NULL';
  /** Commands of this client waiting on the disk (ServerState.inFlight counts all). */
  inFlight = 0;
  /** Reply, then close (QUIT, a protocol error). */
  closeAfterReply = false;
  closed = false;
  /** Set by a command that chose its own replay form (see `propagate`). */
  private propagated: Buffer[][] | null = null;
  /** Replay forms logged after the command's own, in their database (pops it served). */
  private after: { db: number; argv: Buffer[] }[] | null = null;
  /** Inside EXEC with a command log: its writes are framed as MULTI .. EXEC. */
  private execLog: ExecLog | null = null;
  /** Inside EXEC: keys made ready for blocked clients are served once it ends, as Redis. */
  inExec = false;
  /** Keys that may serve blocked clients after this EXEC (see `inExec`). */
  readonly readyKeys: { db: number; key: Buffer }[] = [];
  /** Replies waiting for their command log appends; `holding` of them not settled. */
  private held: HeldReply[] = [];
  private holding = 0;
  private paused = 0;
  private running = false;
  /** The arguments array of a command that ended keeping nothing of it (see `call`). */
  private doneArgv: Buffer[] | null = null;
  /** This command's time, read once from its store's clock (-1: not read yet). */
  private commandTime = -1;
  /** Commands parsed ahead of running (a pipelined run of GETs and SETs), `aheadAt` to `aheadEnd`. */
  private readonly ahead: Buffer[][] = new Array<Buffer[]>(AHEAD_MAX).fill(EMPTY_ARGV);
  private aheadAt = 0;
  private aheadEnd = 0;
  /** Argument bytes of the commands in `ahead` not run yet: the query buffer limit counts them. */
  private aheadBytes = 0;
  /** The keys of `ahead`, for the store's prefetch. */
  private readonly aheadKeys: Buffer[] = new Array<Buffer>(AHEAD_MAX).fill(EMPTY_KEY);

  /**
   * `replay`: a client with no connection (RespServer.execute, AOF
   * replay): its writes are not logged again.
   */
  constructor(
    readonly server: ServerState,
    readonly socket: Socket,
    readonly replay = false,
  ) {
    this.id = replay ? 0 : server.newClientId();
    this.authenticated = replay || !server.authRequired;
    this.reply = new ReplyWriter({ protocol: 2 });
    this.parser = new RequestParser({
      maxBulkLength: server.config.maxBulkLength,
      authRequired: !this.authenticated,
    });
    if (replay) return;
    readChunks(socket, (chunk) => this.onData(chunk));
    socket.on('drain', () => this.resume(PAUSE_DRAIN));
  }

  get protocol(): RespVersion {
    return this.reply.protocol;
  }

  set protocol(p: RespVersion) {
    this.reply.protocol = p;
  }

  /** The store of the selected database; open whenever a command with keys runs. */
  get store(): StoreCore {
    const s = this.server.keyspace.get(this.db);
    if (s === undefined) throw new CommandError('ERR_STORE', 'ERR database is not open');
    return s;
  }

  /**
   * The running command's time in ms, read once from its store's clock: the
   * handler's expiry math and the command log's absolute form (PXAT,
   * PEXPIREAT) see the same millisecond, and an AOF replay its stamp.
   */
  now(): number {
    if (this.commandTime < 0) {
      // A command without keys may run before its database's store is open.
      const store = this.server.keyspace.get(this.db);
      this.commandTime = store === undefined ? Date.now() : store.clock();
    }
    return this.commandTime;
  }

  /** The collections (hashes, sets, sorted sets, lists) of the selected database, cached over its store. */
  get collections(): CollectionStore {
    const s = this.server.keyspace.collections(this.db);
    if (s === undefined) throw new CommandError('ERR_STORE', 'ERR database is not open');
    return s;
  }

  setAuthenticated(value: boolean): void {
    this.authenticated = value;
    this.parser.authRequired = !value && this.server.authRequired;
  }

  // ---- the loop ----------------------------------------------------------------

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.server.stats.netInput += chunk.length;
    this.lastInteraction = Date.now();
    this.parser.feed(chunk);
    if (this.paused === 0) this.run();
    // Redis's client-query-buffer-limit: dropped, with no reply, as Redis does.
    if (this.parser.bufferedBytes + this.aheadBytes > this.server.config.queryBufferLimit) {
      this.kill();
    }
  }

  /** Runs every complete command buffered, then writes their replies at once. */
  private run(): void {
    if (this.running) return;
    this.running = true;
    try {
      while (!this.closeAfterReply && !this.closed) {
        const argv = this.nextCommand();
        if (argv === null) {
          const error = this.parser.error;
          if (error !== null) {
            this.reply.raw(error.reply);
            this.closeAfterReply = true;
          }
          break;
        }
        const pending = this.execute(argv);
        if (this.doneArgv === argv) this.parser.recycle(argv);
        this.doneArgv = null;
        if (this.closed) return;
        if (pending !== undefined) {
          this.pause(PAUSE_PENDING);
          this.flushReplies();
          // execute() never rejects: errors became replies already.
          void pending.then(() => this.resume(PAUSE_PENDING));
          return;
        }
        if (this.overOutputLimit()) return;
        // A batch whose replies grew big goes out now: a client that does not
        // read then stops being read (drain) before the server holds a whole
        // pipeline's replies (a chunk of GETs of a big value).
        if (this.reply.pendingBytes >= BATCH_REPLY_BYTES) {
          this.flushReplies();
          if (this.paused !== 0 || this.closed) return;
        }
      }
      this.flushReplies();
      // QUIT after a write whose append is pending: its replies go first.
      if (this.closeAfterReply && !this.closed && this.holding === 0) {
        this.closed = true;
        this.socket.end();
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * The next command to run: parsed ahead already, or from the parser. A
   * GET or SET starts a run parsed ahead: the commands after it are parsed
   * while they are GETs and SETs (the first other one ends the run, parsed
   * too), then the store prefetches all their keys at once, so their cache
   * misses overlap instead of each command waiting for its own. Parsing
   * ahead past GET and SET only is safe: they change nothing the parser
   * depends on (authentication, proto-max-bulk-len).
   */
  private nextCommand(): Buffer[] | null {
    const ahead = this.ahead;
    if (this.aheadAt < this.aheadEnd) return this.takeAhead();
    const first = this.parser.take();
    if (first === null || !this.server.parseAhead || !isGetOrSet(first)) return first;
    // Slots are overwritten, never truncated: `length = 0` is a runtime call.
    const keys = this.aheadKeys;
    let n = 0;
    let nKeys = 0;
    let argv: Buffer[] | null = first;
    let bytes = 0;
    do {
      ahead[n++] = argv;
      for (let i = 0; i < argv.length; i++) bytes += argv[i]!.length;
      if (!isGetOrSet(argv)) break;
      keys[nKeys++] = argv[1]!;
      if (n === AHEAD_MAX) break;
      argv = this.parser.take();
    } while (argv !== null);
    this.aheadAt = 0;
    this.aheadEnd = n;
    this.aheadBytes = bytes;
    if (nKeys > 1 && this.multi === null) {
      this.server.keyspace.get(this.db)?.prefetch(keys, nKeys);
    }
    for (let i = 0; i < nKeys; i++) keys[i] = EMPTY_KEY;
    return this.takeAhead();
  }

  private takeAhead(): Buffer[] {
    const argv = this.ahead[this.aheadAt]!;
    this.ahead[this.aheadAt++] = EMPTY_ARGV;
    for (let i = 0; i < argv.length; i++) this.aheadBytes -= argv[i]!.length;
    return argv;
  }

  private pause(reason: number): void {
    if (this.paused === 0) this.socket.pause();
    this.paused |= reason;
  }

  private resume(reason: number): void {
    if ((this.paused & reason) === 0) return;
    this.paused &= ~reason;
    if (this.paused !== 0 || this.closed) return;
    this.socket.resume();
    this.run();
  }

  /**
   * One socket write for every reply since the last one; while a command
   * log append of theirs is pending, they wait (and reading pauses).
   */
  private flushReplies(): void {
    if (this.closed) return;
    if (this.holding > 0) {
      this.pause(PAUSE_APPEND);
      return;
    }
    let out = this.reply.flush();
    if (this.held.length > 0) out = this.releaseHeld(out);
    if (out === null) return;
    this.server.stats.netOutput += out.length;
    // With an output buffer limit, a client that does not read is dropped
    // once over it, as Redis does; without one, it stops being read.
    if (!this.socket.write(out) && this.server.config.outputBufferLimit <= 0) {
      this.pause(PAUSE_DRAIN);
    }
    this.overOutputLimit();
  }

  /** Redis's client-output-buffer-limit: a client that does not read is dropped. */
  private overOutputLimit(): boolean {
    const limit = this.server.config.outputBufferLimit;
    if (limit <= 0 || this.reply.pendingBytes + this.socket.writableLength <= limit) return false;
    this.kill();
    return true;
  }

  /**
   * Every held reply's append settled: the chunk as it goes out, with each
   * reply whose append failed replaced by its MISCONF error.
   */
  private releaseHeld(out: Buffer | null): Buffer | null {
    const held = this.held;
    this.held = [];
    if (out === null || !held.some((h) => h.error !== null)) return out;
    const base = this.reply.position - out.length;
    const parts: Buffer[] = [];
    let at = 0;
    for (const h of held) {
      const start = h.start - base;
      if (h.error === null || start < at) continue;
      parts.push(out.subarray(at, start), Buffer.from(`-${h.error}\r\n`));
      at = h.end - base;
    }
    parts.push(out.subarray(at));
    return Buffer.concat(parts);
  }

  /** Holds the replies from `start` on until `p` settles (appendfsync always). */
  private hold(p: Promise<void>, start: number, end: number): void {
    const h: HeldReply = { start, end, error: null };
    this.held.push(h);
    this.holding++;
    const settled = () => {
      if (--this.holding === 0) this.resume(PAUSE_APPEND);
    };
    p.then(settled, (e: unknown) => {
      h.error = appendErrorReply(e);
      settled();
    });
  }

  // ---- the command log -----------------------------------------------------------

  /**
   * Sets the replay form of the running command for the command log, in
   * place of the central rule (command-log.ts): call it once per command
   * to log, in order; a command that calls it with nothing logs nothing.
   */
  propagate(...argv: Buffer[]): void {
    if (argv.length === 0) {
      this.propagated ??= [];
      return;
    }
    if (this.propagated === null) this.propagated = [argv];
    else this.propagated.push(argv);
  }

  /**
   * Logs `argv` (in `db`) after the running command's own forms: the pops
   * of clients it served in another database or after a transfer (MOVE).
   */
  logAfter(db: number, argv: Buffer[]): void {
    if (this.server.commandLog === null || this.replay) return;
    if (this.after === null) this.after = [{ db, argv }];
    else this.after.push({ db, argv });
  }

  /** A write command ran: log its replay forms (its reply is from `start` on). */
  private logWrite(log: CommandLog, spec: CommandSpec, argv: Buffer[], start: number, now: number) {
    const end = this.reply.position;
    const forms =
      this.propagated ?? propagationOf(spec.fullName, argv, this.reply.since(start), now);
    this.propagated = null;
    const after = this.after;
    this.after = null;
    if (forms.length === 0 && after === null) return;
    const x = this.execLog;
    if (x !== null) {
      if (!x.wrote) {
        x.wrote = true;
        this.append(log, MULTI_ARGV, start, end);
      }
      x.lastStart = start;
      x.lastEnd = end;
    }
    for (const f of forms) this.append(log, f, start, end);
    if (after !== null) for (const a of after) this.append(log, a.argv, start, end, a.db);
  }

  private append(
    log: CommandLog,
    argv: readonly Buffer[],
    start: number,
    end: number,
    db = this.db,
  ): void {
    const p = log.append(db, argv);
    if (p !== undefined) this.hold(p, start, end);
  }

  /** EXEC begins: its writes, if any, are logged inside MULTI .. EXEC. */
  beginExec(): void {
    this.inExec = true;
    if (this.server.commandLog !== null && !this.replay) {
      this.execLog = { wrote: false, lastStart: 0, lastEnd: 0 };
    }
  }

  /** EXEC ended: then the clients blocked on keys it made ready are served. */
  endExec(): void {
    const x = this.execLog;
    this.execLog = null;
    this.inExec = false;
    const log = this.server.commandLog;
    if (x?.wrote && log !== null) this.append(log, EXEC_ARGV, x.lastStart, x.lastEnd);
    if (this.readyKeys.length === 0) return;
    const served = serveReadyKeys(this);
    if (log === null || this.replay) return;
    const at = this.reply.position;
    for (const s of served) this.append(log, s.argv, at, at, s.db);
  }

  /** Closes the connection now, dropping unsent replies (CLIENT KILL, limits). */
  kill(): void {
    if (this.closed) return;
    this.closed = true;
    this.reply.discard();
    this.socket.destroy();
  }

  /** Called once the socket is gone. */
  onClose(): void {
    this.closed = true;
    this.unwatchAll();
    this.multi = null;
    // An EXEC still running keeps the gate until its last command ends: its
    // writes stay atomic even when the client is gone.
  }

  unwatchAll(): void {
    for (const w of this.watching) this.server.unwatch(this, w.db, w.key);
    this.watching.length = 0;
    this.watchDirty = false;
  }

  // ---- dispatch ----------------------------------------------------------------

  /**
   * Looks the command up and checks it in Redis's order (exists, arity,
   * auth), queues it inside MULTI, else runs it. Returns a promise only when
   * the command is still running.
   */
  execute(argv: Buffer[]): CommandResult {
    const server = this.server;
    server.stats.commands++;
    let spec = server.table.lookup(argv[0]!);
    if (spec === undefined) return this.reject(unknownCommandError(argv));
    if (spec.subcommands !== null && argv.length >= 2) {
      const sub = spec.subcommands.lookup(argv[1]!);
      if (sub === undefined) return this.reject(unknownSubcommandError(argv[1]!, spec.name));
      spec = sub;
    }
    if (!spec.arityOk(argv.length)) return this.reject(wrongArityError(spec.fullName));
    if (!this.authenticated && (spec.flags & CommandFlag.no_auth) === 0) {
      return this.reject(noAuthError());
    }
    if (server.writeError !== null && this.refusesWrite(spec)) {
      // Checked again: a database's failed pages may have been written since.
      const writeError = server.currentWriteError();
      if (writeError !== null && spec.name === 'exec' && this.multi !== null) {
        // Redis's execCommandAbort: the transaction is discarded with the reason.
        this.multi = null;
        this.unwatchAll();
        return this.reject(execAbortBecauseError(writeError));
      }
      if (writeError !== null) return this.reject(new CommandError('ERR_MISCONF', writeError));
    }
    if (this.multi !== null && (spec.flags & CommandFlag.no_multi) !== 0) {
      return this.reject(
        new CommandError('ERR_SYNTAX', 'ERR Command not allowed inside a transaction'),
      );
    }
    if (this.multi !== null && !MULTI_IMMEDIATE.has(spec.fullName)) {
      this.multi.queue.push({ spec, argv });
      this.reply.simple('QUEUED');
      return undefined;
    }
    const gate = server.exclusive;
    if (gate !== null && gate !== this) {
      return server.waitExclusive().then(() => this.settle(this.execute(argv)));
    }
    return this.call(spec, argv);
  }

  /**
   * Redis refuses, while the disk fails: write commands, PING (so a
   * monitoring check notices), and an EXEC whose queue has a write.
   */
  private refusesWrite(spec: CommandSpec): boolean {
    if ((spec.flags & CommandFlag.write) !== 0) return true;
    if (spec.parent !== null) return false;
    if (spec.name === 'ping') return true;
    if (spec.name !== 'exec' || this.multi === null) return false;
    return this.multi.queue.some((q) => (q.spec.flags & CommandFlag.write) !== 0);
  }

  /** Runs a checked command: opens its database first when it needs one. */
  call(spec: CommandSpec, argv: Buffer[]): CommandResult {
    this.lastCommand = spec.fullName;
    if (spec.firstKey > 0) {
      const store = this.server.keyspace.get(this.db);
      if (store === undefined) {
        return this.server.keyspace.ensure(this.db).then(
          () => this.settle(this.call(spec, argv)),
          (e: unknown) => this.replyError(e),
        );
      }
      // The store refuses longer keys; refusing the whole command up front
      // keeps a multi-key reply from stopping half written.
      const max = store.maxKeyLength;
      const last = spec.lastKey < 0 ? argv.length + spec.lastKey : spec.lastKey;
      for (let i = spec.firstKey; i <= last && i < argv.length; i += spec.step) {
        if (argv[i]!.length > max) {
          return this.reject(
            new CommandError('ERR_KEY_TOO_LONG', `ERR key is too long (at most ${max} bytes)`),
          );
        }
      }
    }
    spec.calls++;
    if ((spec.flags & CommandFlag.write) !== 0 && this.server.watchedKeys > 0) {
      this.server.touchKeys(this.db, spec, argv);
    }
    // Write commands go to the command log (an AOF) once they ran.
    const log =
      (spec.flags & CommandFlag.write) !== 0 && !this.replay ? this.server.commandLog : null;
    let start = 0;
    let now = 0;
    this.commandTime = -1;
    if (log !== null) {
      start = this.reply.position;
      now = this.now();
      this.propagated = null;
      this.after = null;
    }
    let result: CommandResult;
    try {
      result = spec.handler!(this, argv);
    } catch (e) {
      spec.failedCalls++;
      this.replyError(e);
      return undefined;
    }
    if (result === undefined) {
      if (log !== null) this.logWrite(log, spec, argv, start, now);
      // GET and SET that ended here keep nothing of argv: the parser reuses the array.
      else if (spec.argvFree && this.multi === null) this.doneArgv = argv;
      return undefined;
    }
    if (spec.wholeLog) {
      // A whole-log pass or a blocking command: it holds this connection
      // only. A blocking command logs the form it set once it settles (a
      // pop whose key was on disk; nothing when blocked and served by a push).
      return result.then(
        () => {
          if (log !== null) this.logWrite(log, spec, argv, start, now);
        },
        (e: unknown) => {
          spec.failedCalls++;
          this.replyError(e);
        },
      );
    }
    // Counted while on the disk: EXEC and FLUSHDB wait for other clients' to end.
    const server = this.server;
    server.pendingStarted(this);
    return result.then(
      () => {
        server.pendingEnded(this);
        if (log !== null) this.logWrite(log, spec, argv, start, now);
      },
      (e: unknown) => {
        server.pendingEnded(this);
        spec.failedCalls++;
        this.replyError(e);
      },
    );
  }

  /** Awaits a command result that may or may not be a promise. */
  private async settle(r: CommandResult): Promise<void> {
    if (r !== undefined) await r;
  }

  private reject(e: CommandError): undefined {
    if (this.multi !== null) this.multi.error = true;
    this.replyError(e);
    return undefined;
  }

  replyError(e: unknown): void {
    const err = toCommandError(e);
    this.reply.error(err.bytes ?? err.message);
  }
}

const EMPTY_ARGV: Buffer[] = [];
const EMPTY_KEY: Buffer = Buffer.alloc(0);

/** GET or SET (any case) with their plain arguments: what `nextCommand` parses ahead. */
function isGetOrSet(argv: Buffer[]): boolean {
  const n = argv.length;
  if (n !== 2 && n !== 3) return false;
  const name = argv[0]!;
  if (name.length !== 3 || (name[1]! | 0x20) !== 0x65 || (name[2]! | 0x20) !== 0x74) return false;
  const first = name[0]! | 0x20;
  return n === 2 ? first === 0x67 : first === 0x73;
}

/** The error a reply becomes when its append to the command log failed. */
function appendErrorReply(e: unknown): string {
  if (e instanceof CommandError) return e.message;
  return aofWriteErrorMessage(e instanceof Error ? e.message : String(e));
}
