import type { Socket } from 'node:net';
import type { CollectionStore } from '@strata/collections';
import { INTERNAL_KEY_PREFIX, isInternalKey, type StoreCore } from '@strata/hlog';
import type { User } from '../commands/index.js';
import {
  CommandError,
  execAbortBecauseError,
  noAuthError,
  subscribedContextError,
  toCommandError,
  unknownCommandError,
  unknownSubcommandError,
  wrongArityError,
} from '../errors.js';
import type { Client } from './client.js';
import { PAUSE_NONE } from './client-pause.js';
import { type CommandLog, EXEC_ARGV, MULTI_ARGV, propagationOf } from './command-log.js';
import { CommandFlag, type CommandResult, type CommandSpec } from './command-table.js';
import { Connection } from './connection.js';
import { histogramBucket, newHistogram } from './latency-histogram.js';
import { feedMonitors, monitorLine } from './monitor-feed.js';
import type { ServerState } from './server-state.js';

/** See `Dispatcher.commandObserver`. */
export type CommandObserver = (client: Client, spec: CommandSpec, argv: readonly Buffer[]) => void;

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

/** Commands MONITOR never shows (Redis: too dangerous), or that show themselves before they run (EVAL). */
const MONITOR_HIDDEN = CommandFlag.skip_monitor | CommandFlag.admin;
/** What a client in MONITOR mode may not run: Redis refuses a replica's keyspace commands. */
const KEYSPACE = CommandFlag.write | CommandFlag.readonly;

/** A transaction's writes are logged as MULTI, the writes, EXEC. */
interface ExecLog {
  wrote: boolean;
  /** The last logged write's reply: an EXEC marker that fails turns it into the error. */
  lastStart: number;
  lastEnd: number;
}

/**
 * The command side of a client: looks each command up and checks it in
 * Redis's order (exists, arity, auth, a failing disk, MULTI), queues it
 * inside MULTI, runs it (opening its database first), logs its replay
 * forms to the command log, and keeps the client's WATCHed keys. What it
 * knows of particular commands are flags on their definitions
 * (`runsInMulti`, `runsTransaction`, `refusedOnWriteError`, `argvFree`);
 * what families add at EXEC's end and at close are hooks (FamilyHooks).
 */
export abstract class Dispatcher extends Connection {
  db = 0;
  authenticated: boolean;
  /**
   * The ACL user (commands/acl/): the default one until AUTH. A user
   * allowed everything costs one boolean per command (`unrestricted`).
   */
  user: User;
  multi: MultiState | null = null;
  /** WATCHed keys as (db, key) pairs; `watchDirty` once one of them was written. */
  readonly watching: { db: number; key: string }[] = [];
  watchDirty = false;
  /** fullName of the last command (CLIENT LIST `cmd=`). */
  lastCommand = 'NULL';
  /** Commands of this client waiting on the disk (ServerState.inFlight counts all). */
  inFlight = 0;
  /** Inside EXEC: what a command makes ready for blocked clients is served once it ends, as Redis. */
  inExec = false;
  /**
   * Called once each command of this client ran, replied or failed (a
   * family watching the client's commands: client-side caching remembers
   * the keys a read touched); null for nearly every client.
   */
  commandObserver: CommandObserver | null = null;
  /** Set by a command that chose its own replay form (see `propagate`). */
  private propagated: Buffer[][] | null = null;
  /** Replay forms logged after the command's own, in their database (pops it served). */
  private after: { db: number; argv: Buffer[] }[] | null = null;
  /** Inside EXEC with a command log: its writes are framed as MULTI .. EXEC. */
  private execLog: ExecLog | null = null;
  /** This command's time, read once from its store's clock (-1: not read yet). */
  private commandTime = -1;
  /** When the running command started (performance.now(), as its timing counts it). */
  private commandStarted = 0;
  /** In MONITOR mode: shown every command of every client; it may not touch the keyspace. */
  monitoring = false;
  /** Held by CLIENT PAUSE until it ends (CLIENT LIST flag `b`). */
  pauseHeld = false;
  /** Arguments of the running command shown as `(redacted)` (see `redact`). */
  private redactedArgs: number[] | null = null;
  /** The reply's error count when the last command began or ended: one written since failed it. */
  private errorMark = 0;

  /**
   * `replay`: a client with no connection (RespServer.execute, AOF
   * replay): its writes are not logged again.
   */
  constructor(
    server: ServerState,
    socket: Socket,
    readonly replay: boolean,
  ) {
    const authenticated = replay || !server.authRequired;
    super(server, socket, !authenticated, replay);
    this.authenticated = authenticated;
    // A replay runs as Redis's AOF client: no user, every command allowed.
    this.user = replay ? server.users.superuser : server.users.defaultUser;
  }

  /**
   * A script of this client is running: the replies of its redis.call
   * commands are written to `reply` and read back by the script, so
   * nothing is flushed meanwhile.
   */
  inScript = false;

  /**
   * An EXEC's reply is complete only once its last command ran (a script's
   * too). A command held by CLIENT PAUSE has written nothing yet: pushes go out meanwhile.
   */
  protected override get replyOpen(): boolean {
    return (super.replyOpen && !this.pauseHeld) || this.inExec || this.inScript;
  }

  protected override get repliesHeld(): boolean {
    return this.inScript;
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

  /**
   * The wall time (ms since the epoch) when the running command started,
   * from the clock reading its timing took (no clock read of its own):
   * Redis 7.2's commandTimeSnapshot, for XADD's `*` IDs.
   */
  startedAt(): number {
    return this.server.wall.at(this.commandStarted);
  }

  /** The collections (hashes, sets, sorted sets, lists) of the selected database, cached over its store. */
  get collections(): CollectionStore {
    const s = this.server.keyspace.collections(this.db);
    if (s === undefined) throw new CommandError('ERR_STORE', 'ERR database is not open');
    return s;
  }

  /**
   * Shows argument `index` of the running command as `(redacted)` in
   * SLOWLOG and MONITOR (AUTH's password), as Redis's redactClientCommandArgument.
   */
  redact(index: number): void {
    if (this.redactedArgs === null) this.redactedArgs = [index];
    else if (!this.redactedArgs.includes(index)) this.redactedArgs.push(index);
  }

  setAuthenticated(value: boolean): void {
    this.authenticated = value;
    this.parser.authRequired = !value && this.server.authRequired;
  }

  // ---- the command log -----------------------------------------------------------

  /**
   * Sets the replay form of the running command for the command log, in
   * place of its definition's `replay` rule: call it once per command
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
    const forms = this.propagated ?? propagationOf(spec.replay, argv, this.reply.since(start), now);
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
    if (p !== undefined) {
      // The barrier first: see noteAppend.
      this.server.noteAppend(p);
      this.hold(p, start, end);
    }
  }

  /** EXEC begins: its writes, if any, are logged inside MULTI .. EXEC. */
  beginExec(): void {
    this.inExec = true;
    if (this.server.commandLog !== null && !this.replay) {
      this.execLog = { wrote: false, lastStart: 0, lastEnd: 0 };
    }
  }

  /** EXEC ended: the families' afterExec hooks run (blocked clients served), their forms logged. */
  endExec(): void {
    const x = this.execLog;
    this.execLog = null;
    this.inExec = false;
    const log = this.server.commandLog;
    if (x?.wrote && log !== null) this.append(log, EXEC_ARGV, x.lastStart, x.lastEnd);
    for (const afterExec of this.server.hooks.afterExec) {
      const forms = afterExec(this.client);
      if (forms.length === 0 || log === null || this.replay) continue;
      const at = this.reply.position;
      for (const f of forms) this.append(log, f.argv, at, at, f.db);
    }
  }

  unwatchAll(): void {
    for (const w of this.watching) this.server.unwatch(this.client, w.db, w.key);
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
    this.server.stats.commands++;
    // A replayed command comes alone (RespServer.execute): its time starts now.
    if (this.replay) this.clockMark = -1;
    return this.dispatch(argv);
  }

  /** `execute` once counted; again for a command that waited (the EXEC gate, CLIENT PAUSE). */
  private dispatch(argv: Buffer[]): CommandResult {
    const server = this.server;
    let spec = server.table.lookup(argv[0]!);
    if (spec === undefined) return this.reject(unknownCommandError(argv), null);
    if (spec.subcommands !== null && argv.length >= 2) {
      const sub = spec.subcommands.lookup(argv[1]!);
      if (sub === undefined) return this.reject(unknownSubcommandError(argv[1]!, spec.name), null);
      spec = sub;
    }
    if (!spec.arityOk(argv.length)) return this.reject(wrongArityError(spec.fullName), spec);
    if (!this.authenticated && (spec.flags & CommandFlag.no_auth) === 0) {
      return this.reject(noAuthError(), spec);
    }
    // ACL (Redis's ACLCheckAllPerm), refused at queue time inside MULTI as in Redis.
    if (!this.user.unrestricted) {
      const context = this.multi !== null ? 'multi' : 'toplevel';
      const denied = server.users.deny(this.client, spec, argv, context);
      if (denied !== null) return this.reject(denied, spec);
    }
    if (server.writeError !== null && this.refusesWrite(spec)) {
      // Checked again: a database's failed pages may have been written since.
      const writeError = server.currentWriteError();
      if (writeError !== null) {
        return this.reject(new CommandError('ERR_MISCONF', writeError), spec);
      }
    }
    if (this.multi !== null && (spec.flags & CommandFlag.no_multi) !== 0) {
      return this.reject(
        new CommandError('ERR_SYNTAX', 'ERR Command not allowed inside a transaction'),
        spec,
      );
    }
    if (this.subscribed && this.reply.protocol === 2 && !spec.allowedWhileSubscribed) {
      return this.reject(subscribedContextError(spec.fullName), spec);
    }
    if (this.monitoring && ((spec.flags & KEYSPACE) !== 0 || spec.mayReplicate)) {
      return this.reject(
        new CommandError('ERR_REPLICA_KEYSPACE', "ERR Replica can't interact with the keyspace"),
        spec,
      );
    }
    // CLIENT PAUSE holds the command (inside MULTI too, before it is queued); never a monitor's.
    if (
      server.clientPause.level !== PAUSE_NONE &&
      !this.monitoring &&
      server.clientPause.holds(this.client, spec, argv)
    ) {
      this.lastCommand = spec.fullName;
      return this.holdPaused(argv);
    }
    if (this.multi !== null && !spec.runsInMulti) {
      // Its one-time setup now, not in EXEC's time (nor the next command's); a
      // failure is left for the run under EXEC to meet and answer.
      try {
        if (spec.setup?.(this.client)) this.clockMark = -1;
      } catch {
        // (see above)
      }
      this.multi.queue.push({ spec, argv });
      this.reply.simple('QUEUED');
      return undefined;
    }
    const gate = server.exclusive;
    if (gate !== null && gate !== this.client) {
      // A long script holds the gate: BUSY, or a command allowed then (SCRIPT KILL).
      const busy = server.busy === null ? 'wait' : server.busy(spec);
      if (busy === 'run') return this.call(spec, argv);
      if (busy !== 'wait') return this.reject(busy, spec);
      return server.waitExclusive().then(() => {
        this.clockMark = -1;
        return this.settle(this.dispatch(argv));
      });
    }
    // (P|S)(UN)SUBSCRIBE answer with confirmations Redis sends as pushes, CLIENT REPLY OFF or not.
    if (
      this.repliesMuted &&
      spec.allowedWhileSubscribed &&
      (spec.flags & CommandFlag.pubsub) !== 0
    ) {
      this.sendMutedReply();
    }
    return this.call(spec, argv);
  }

  /** Waits for the end of CLIENT PAUSE, then the command goes through its checks again, as Redis's. */
  private holdPaused(argv: Buffer[]): Promise<void> {
    this.pauseHeld = true;
    return this.server.clientPause.wait().then(() => {
      this.pauseHeld = false;
      this.clockMark = -1;
      if (!this.closed) return this.settle(this.dispatch(argv));
    });
  }

  /**
   * Redis refuses, while the disk fails: write commands, those flagged
   * `refusedOnWriteError` (PING, so a monitoring check notices), and an
   * EXEC whose queue has a write.
   */
  private refusesWrite(spec: CommandSpec): boolean {
    if ((spec.flags & CommandFlag.write) !== 0 || spec.refusedOnWriteError) return true;
    if (!spec.runsTransaction || this.multi === null) return false;
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
        const refused = keyRefused(argv[i]!, max);
        if (refused !== null) return this.reject(refused, spec);
      }
      // Keys by the command's own rule (SORT's STORE destination): the same checks.
      if (spec.definition.keysOf !== undefined) {
        for (const i of spec.keyIndexes(argv)) {
          const refused = keyRefused(argv[i]!, max);
          if (refused !== null) return this.reject(refused, spec);
        }
      }
    } else if (spec.definition.keywordKeys !== undefined) {
      // Keys after a keyword (XREAD's STREAMS): the same checks, when the database is open.
      const max = this.server.keyspace.get(this.db)?.maxKeyLength ?? Number.POSITIVE_INFINITY;
      for (const i of spec.keyIndexes(argv)) {
        const refused = keyRefused(argv[i]!, max);
        if (refused !== null) return this.reject(refused, spec);
      }
    }
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
    // EVAL and FCALL are shown before they run, so their scripts' commands come after them.
    if ((spec.flags & CommandFlag.skip_monitor) !== 0 && this.server.monitors.length > 0) {
      this.feed(argv, performance.now());
    }
    this.errorMark = this.reply.errors;
    // One-time setup that Redis does at start (the Lua VM) is not this command's time;
    // if it fails, the command answers that error as its handler's would be.
    let setupError: unknown = null;
    if (spec.setup !== null) {
      try {
        if (spec.setup(this.client)) this.clockMark = -1;
      } catch (e) {
        setupError = e;
      }
    }
    // One clock read per command: back to back, a command starts where the one before ended
    // (its lookup and checks counted in it, as they are no other command's). Not the commands
    // this one calls (a script's, EXEC's): each of those starts when it starts.
    const started = this.clockMark >= 0 ? this.clockMark : performance.now();
    this.clockMark = -1;
    this.commandStarted = started;
    // Its lookups touch the keys' access clock as Redis's lookupKey decides;
    // an operation that waits for the disk keeps what it started with.
    const access = this.server.access;
    access.touching = spec.touch === 2 || (spec.touch === 1 && !this.client.noTouch);
    access.command++;
    let result: CommandResult;
    try {
      if (setupError !== null) throw setupError;
      result = spec.handler!(this.client, argv);
    } catch (e) {
      access.touching = false;
      this.replyError(e);
      this.finish(spec, argv, started, performance.now(), true);
      if (this.commandObserver !== null) this.commandObserver(this.client, spec, argv);
      return undefined;
    }
    access.touching = false;
    if (result === undefined) {
      if (log !== null) this.logWrite(log, spec, argv, start, now);
      // A command flagged argvFree that ended here kept nothing of argv: the parser reuses it.
      else if (spec.argvFree && this.multi === null) this.doneArgv = argv;
      this.finish(spec, argv, started, performance.now(), true);
      if (this.commandObserver !== null) this.commandObserver(this.client, spec, argv);
      return undefined;
    }
    const settled = this.settleCall(spec, argv, result, log, start, now, started);
    return this.commandObserver === null
      ? settled
      : settled.then(() => this.commandObserver?.(this.client, spec, argv));
  }

  /**
   * A command that went on (the disk, a whole-log pass, a block): logged,
   * or its error replied, once it settles. Its time is until then, its disk
   * reads included; a blocking command's is until it blocked (waiting is no
   * work), and MONITOR shows it then, as Redis.
   */
  private settleCall(
    spec: CommandSpec,
    argv: Buffer[],
    result: Promise<void>,
    log: CommandLog | null,
    start: number,
    now: number,
    started: number,
  ): Promise<void> {
    const blocked = (spec.flags & CommandFlag.blocking) !== 0 ? performance.now() : -1;
    if (blocked >= 0 && (spec.flags & MONITOR_HIDDEN) === 0) this.feed(argv, blocked);
    const done = () => {
      this.finish(spec, argv, started, blocked >= 0 ? blocked : performance.now(), blocked < 0);
      // Settled in a later tick: the next command's time starts with it.
      this.clockMark = -1;
    };
    if (spec.wholeLog) {
      // A whole-log pass or a blocking command: it holds this connection
      // only. A blocking command logs the form it set once it settles (a
      // pop whose key was on disk; nothing when blocked and served by a push).
      return result.then(
        () => {
          if (log !== null) this.logWrite(log, spec, argv, start, now);
          done();
        },
        (e: unknown) => {
          this.replyError(e);
          done();
        },
      );
    }
    // Counted while on the disk: EXEC and FLUSHDB wait for other clients' to end.
    const server = this.server;
    server.pendingStarted(this.client);
    return result.then(
      () => {
        server.pendingEnded(this.client);
        if (log !== null) this.logWrite(log, spec, argv, start, now);
        done();
      },
      (e: unknown) => {
        server.pendingEnded(this.client);
        this.replyError(e);
        done();
      },
    );
  }

  /**
   * A command ended, its reply complete: its time and Redis's counts
   * (commandstats, LATENCY HISTOGRAM), the slow log and the latency
   * monitor when it was slow, MONITOR (`show`: not shown already).
   */
  private finish(
    spec: CommandSpec,
    argv: Buffer[],
    started: number,
    ended: number,
    show: boolean,
  ): void {
    this.clockMark = ended;
    // Counted once it ran, as Redis (CONFIG RESETSTAT counts itself, INFO does not).
    spec.calls++;
    const us = (ended - started) * 1000;
    spec.usec += us;
    const errors = this.reply.errors;
    if (errors !== this.errorMark) {
      spec.failedCalls++;
      this.errorMark = errors;
    }
    const server = this.server;
    // Redis's durations are whole microseconds.
    const duration = Math.floor(us);
    if (server.latencyTracking) {
      if (spec.histogram === null) spec.histogram = newHistogram();
      spec.histogram[histogramBucket(duration)]!++;
    }
    if (duration >= server.slowlog.slowerThan || duration >= server.latency.thresholdUs) {
      this.slow(spec, argv, duration);
    }
    if (show && (spec.flags & MONITOR_HIDDEN) === 0) this.feed(argv, ended);
    this.redactedArgs = null;
  }

  /** A command at least as slow as slowlog-log-slower-than or latency-monitor-threshold. */
  private slow(spec: CommandSpec, argv: Buffer[], duration: number): void {
    if (this.replay) return;
    const server = this.server;
    if (duration >= server.slowlog.slowerThan && (spec.flags & CommandFlag.skip_slowlog) === 0) {
      // A script's commands are its own client's in Redis: no address, no name.
      const script = this.inScript;
      server.slowlog.push(
        argv,
        this.redactedArgs,
        duration,
        script ? '?:0' : this.peerId,
        script ? null : this.client.name,
      );
    }
    const event = (spec.flags & CommandFlag.fast) !== 0 ? 'fast-command' : 'command';
    server.latency.addIfNeeded(event, Math.floor(duration / 1000));
  }

  /** Shows the command to the monitoring clients (`at`: performance.now() when it ran). */
  private feed(argv: readonly Buffer[], at: number): void {
    const monitors = this.server.monitors;
    if (monitors.length === 0 || this.replay) return;
    const source = this.inScript
      ? 'lua'
      : this.unixSocket !== null
        ? `unix:${this.unixSocket}`
        : this.peerId;
    const line = monitorLine(performance.timeOrigin + at, this.db, source, argv, this.redactedArgs);
    feedMonitors(monitors, line);
  }

  /** Awaits a command result that may or may not be a promise. */
  private async settle(r: CommandResult): Promise<void> {
    if (r !== undefined) await r;
  }

  /** A command refused before it ran (`spec`: counted among its rejected_calls, when known). */
  private reject(e: CommandError, spec: CommandSpec | null): undefined {
    if (spec !== null) spec.rejectedCalls++;
    if (spec?.runsTransaction === true) {
      // Redis's rejectCommand on EXEC (execCommandAbort), inside MULTI or
      // not: the transaction is discarded, WATCHed keys unwatched, and the
      // reason said without its `ERR `.
      this.multi = null;
      this.unwatchAll();
      this.replyError(execAbortBecauseError(e.message.replace(/^ERR /, '')));
      return undefined;
    }
    if (this.multi !== null) this.multi.error = true;
    this.replyError(e);
    return undefined;
  }

  replyError(e: unknown): void {
    const err = toCommandError(e);
    this.server.countError(err.message);
    this.reply.error(err.bytes ?? err.message);
  }

  /** A run of commands parsed ahead: their keys are read at once (not inside MULTI: they queue). */
  protected prefetch(keys: readonly Buffer[], n: number): void {
    if (this.multi === null) this.server.keyspace.get(this.db)?.prefetch(keys, n);
  }
}

/** Why a client may not name `key`: longer than the store takes, or one of strata's own keys. */
function keyRefused(key: Buffer, max: number): CommandError | null {
  if (key.length > max) {
    return new CommandError('ERR_KEY_TOO_LONG', `ERR key is too long (at most ${max} bytes)`);
  }
  if (key[0] === INTERNAL_FIRST && isInternalKey(key)) {
    return new CommandError(
      'ERR_RESERVED_KEY',
      "ERR keys starting with '\\xff\\x00strata:' are reserved for strata's own records",
    );
  }
  return null;
}

const INTERNAL_FIRST = INTERNAL_KEY_PREFIX[0]!;
