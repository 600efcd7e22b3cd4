import type { Socket } from 'node:net';
import { ReplyWriter, RequestParser } from '@strata/protocol';
import { CommandError, notPersistedMessage } from '../errors.js';
import type { Client } from './client.js';
import type { CommandResult } from './command-table.js';
import { repr } from './monitor-feed.js';
import { type OutputLimit, RELEASE_MEMORY_AFTER_BYTES, type ServerState } from './server-state.js';
import { readChunks } from './socket-reader.js';

// Why reading from the socket is paused (bits): a command waiting on the
// disk holds the connection's later commands, and a socket that does not
// drain its replies stops us reading more requests.
const PAUSE_PENDING = 1;
const PAUSE_DRAIN = 2;
// Replies wait for the command log (appendfsync always) before they leave.
const PAUSE_APPEND = 4;

/** Replies of one batch past which they are written before the batch ends. */
const BATCH_REPLY_BYTES = 1 << 20;

/** Commands parsed ahead of running, at most (see `nextCommand`). */
const AHEAD_MAX = 32;

/** A reply held until its command is in the log: replaced by an error if that fails. */
interface HeldReply {
  /** Reply positions (ReplyWriter.position) of the reply to replace on failure. */
  readonly start: number;
  readonly end: number;
  error: string | null;
  /** Its bytes were dropped (CLIENT REPLY OFF): nothing to replace. */
  dropped: boolean;
}

/**
 * A client's reply writer: it counts the error replies written, so the
 * dispatcher knows a command failed however its error was written (thrown,
 * or a script's error reply), as Redis counts failed_calls.
 */
export class CommandReplyWriter extends ReplyWriter {
  errors = 0;

  override error(message: string | Uint8Array): this {
    this.errors++;
    return super.error(message);
  }
}

/**
 * The socket side of a client: the loop that feeds the parser, runs every
 * complete command in order (`execute`, the dispatcher's) and writes their
 * replies; parse-ahead of pipelined commands flagged for it; replies held
 * for the command log; the query and output buffer limits.
 *
 * Every complete command in a chunk runs, then all their replies go out in
 * one socket write. A command that returns a promise (the store went to
 * disk) holds the commands after it: reading pauses, the replies so far are
 * written, and the loop resumes when it settles. Other connections go on
 * meanwhile; the store keeps every key linearizable.
 */
export abstract class Connection {
  readonly reply: CommandReplyWriter;
  readonly parser: RequestParser;
  lastInteraction = Date.now();
  /** Reply, then close (QUIT, a protocol error). */
  closeAfterReply = false;
  closed = false;
  /**
   * In Redis's pub/sub context (subscribed to a channel, pattern or shard
   * channel; the pubsub family keeps it): the pubsub output limits apply,
   * and on RESP2 only commands flagged `allowedWhileSubscribed` run.
   */
  subscribed = false;
  /** A command of this client is still running (on the disk, or blocked): its reply is not complete. */
  private commandPending = false;
  /** Pushes that came while a reply was not complete, appended once it is (`pushWriter`). */
  private deferredPushes: ReplyWriter | null = null;
  /** Queued with the server for a flush at the end of this tick (`pushed`). */
  private flushQueued = false;
  /** When the output went over the soft limit (Unix seconds), 0 while under it. */
  private softLimitSince = 0;
  /** Replies waiting for their command log appends; `holding` of them not settled. */
  private held: HeldReply[] = [];
  private holding = 0;
  /** The server's `syncSeq` when a reply or push was last written: they wait for that sync. */
  private replySeq = 0;
  private paused = 0;
  private running = false;
  /** The arguments array of a command that ended keeping nothing of it (see `Dispatcher.call`). */
  protected doneArgv: Buffer[] | null = null;
  /** Commands parsed ahead of running (a pipelined run of GETs and SETs), `aheadAt` to `aheadEnd`. */
  private readonly ahead: Buffer[][] = new Array<Buffer[]>(AHEAD_MAX).fill(EMPTY_ARGV);
  private aheadAt = 0;
  private aheadEnd = 0;
  /** Argument bytes of the commands in `ahead` not run yet: the query buffer limit counts them. */
  private aheadBytes = 0;
  /** The most request bytes held since memory was last given back (RELEASE_MEMORY_AFTER_BYTES). */
  private heldPeak = 0;
  /** The keys of `ahead`, for the store's prefetch. */
  private readonly aheadKeys: Buffer[] = new Array<Buffer>(AHEAD_MAX).fill(EMPTY_KEY);
  /** CLIENT REPLY OFF: no reply is sent until CLIENT REPLY ON. */
  private replyOff = false;
  /** CLIENT REPLY SKIP: the next command's reply is not sent. */
  private skipNext = false;
  /**
   * While replies are off or skipped: where the bytes to drop begin in
   * `reply` (they are dropped once the command ends; pushes go around them), else -1.
   */
  private muteFrom = -1;
  /** The running command's reply goes out though replies are off (`sendMutedReply`): muted again after it. */
  private remute = false;
  private peer: string | null = null;
  /** The Unix socket's path when the client came through one (Redis's CLIENT_UNIX_SOCKET). */
  unixSocket: string | null = null;
  /**
   * When this client's last command ended (performance.now()) while its
   * commands run back to back in one batch, else -1: the next command's
   * time starts there, so a command costs one clock read (see Dispatcher.call).
   */
  protected clockMark = -1;

  /**
   * `replay`: a client with no connection (RespServer.execute, AOF
   * replay): nothing is read from its socket.
   */
  constructor(
    readonly server: ServerState,
    readonly socket: Socket,
    authRequired: boolean,
    replay: boolean,
  ) {
    this.reply = new CommandReplyWriter({ protocol: 2 });
    this.parser = new RequestParser({ maxBulkLength: server.config.maxBulkLength, authRequired });
    if (replay) return;
    readChunks(socket, (chunk) => this.onData(chunk));
    socket.on('drain', () => this.resume(PAUSE_DRAIN));
    socket.once('close', () => this.closedWith());
  }

  /** Runs one command; a promise only when it is still running (the dispatcher). */
  abstract execute(argv: Buffer[]): CommandResult;

  /** The store may read these keys of a run parsed ahead at once (`n` of them). */
  protected abstract prefetch(keys: readonly Buffer[], n: number): void;

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.server.stats.netInput += chunk.length;
    this.lastInteraction = Date.now();
    // Nothing queued on the socket: every reply flushed has left, its bytes may be written over.
    if (this.socket.writableLength === 0) this.reply.reuse();
    this.parser.feed(chunk);
    if (this.paused === 0) this.run();
    const held = this.parser.bufferedBytes + this.aheadBytes;
    if (held > this.heldPeak) this.heldPeak = held;
    // Redis's client-query-buffer-limit: dropped, with no reply, as Redis does.
    if (held > this.server.config.queryBufferLimit && !this.closed) this.overQueryLimit();
  }

  /** Redis's words in its log, then the client is dropped (readQueryFromClient). */
  private overQueryLimit(): void {
    const info = this.server.users.clientInfo(this.client);
    const first = repr(this.parser.peek(64));
    this.server.log(
      'warning',
      `Closing client that reached max query buffer length: ${info} (qbuf initial bytes: ${first})`,
    );
    this.server.stats.queryLimitDisconnections++;
    this.kill();
  }

  /**
   * A client that held a lot of request bytes (a huge argument or argument
   * list) is done with them: the server is asked to give the memory back
   * rather than keep it until the runtime next collects.
   */
  private letGo(): void {
    if (this.heldPeak < RELEASE_MEMORY_AFTER_BYTES) return;
    this.heldPeak = 0;
    this.server.releaseMemorySoon();
  }

  /** The connection is gone: what it held counts toward giving memory back (many clients' halves add up). */
  private closedWith(): void {
    const held = this.heldPeak;
    this.heldPeak = 0;
    this.server.letGoOf(held);
  }

  /** Runs every complete command buffered, then writes their replies at once. */
  private run(): void {
    if (this.running) return;
    this.running = true;
    // A new batch: time passed since the last command ended.
    this.clockMark = -1;
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
        if (this.skipNext) this.beginSkip();
        const pending = this.execute(argv);
        this.replySeq = this.server.syncSeq;
        if (this.remute) this.endSentReply();
        if (pending === undefined) {
          if (this.muteFrom >= 0) this.dropMuted();
          if (this.deferredPushes !== null) this.releasePushes();
        }
        if (this.doneArgv === argv) this.parser.recycle(argv);
        this.doneArgv = null;
        if (this.closed) return;
        if (pending !== undefined) {
          this.pause(PAUSE_PENDING);
          this.commandPending = true;
          this.flushReplies();
          // execute() never rejects: errors became replies already.
          void pending.then(() => {
            this.replySeq = this.server.syncSeq;
            if (this.muteFrom >= 0) this.dropMuted();
            this.commandPending = false;
            this.releasePushes();
            this.resume(PAUSE_PENDING);
          });
          return;
        }
        if (this.overOutputLimit()) return;
        // A batch whose replies grew big goes out now: a client that does not
        // read then stops being read (drain) before the server holds a whole
        // pipeline's replies (a chunk of GETs of a big value).
        if (this.reply.pendingBytes >= BATCH_REPLY_BYTES) {
          this.flushReplies();
          // The socket write is no command's time.
          this.clockMark = -1;
          if (this.paused !== 0 || this.closed) return;
        }
      }
      this.flushReplies();
      // QUIT after a write whose append is pending: its replies go first.
      if (this.closeAfterReply && !this.closed && this.holding === 0) this.closeAfterReplies();
      if (this.heldPeak !== 0 && this.parser.idle) this.letGo();
    } finally {
      this.running = false;
    }
  }

  /**
   * Redis's CLIENT_CLOSE_AFTER_REPLY (QUIT, a protocol error): the replies
   * leave, then the connection is closed whole. Nothing more is read, and
   * it is not left half-open, counted, after its last reply.
   */
  private closeAfterReplies(): void {
    this.closed = true;
    const socket = this.socket;
    socket.pause();
    socket.end(() => socket.destroy());
  }

  /**
   * The next command to run: parsed ahead already, or from the parser. A
   * command flagged `parseAhead` (GET, SET) starts a run parsed ahead: the
   * commands after it are parsed while they are such commands (the first
   * other one ends the run, parsed too), then the store prefetches all
   * their keys at once, so their cache misses overlap instead of each
   * command waiting for its own. Parsing ahead past them only is safe: they
   * change nothing the parser depends on (authentication,
   * proto-max-bulk-len).
   */
  private nextCommand(): Buffer[] | null {
    const ahead = this.ahead;
    if (this.aheadAt < this.aheadEnd) return this.takeAhead();
    const first = this.parser.take();
    const matcher = this.server.aheadMatcher;
    if (first === null || matcher === null || !matcher.matches(first)) return first;
    let argv = this.parser.take();
    // A lone command (pipeline 1) has nothing to overlap with: it runs as it is.
    if (argv === null) return first;
    // Slots are overwritten, never truncated: `length = 0` is a runtime call.
    const keys = this.aheadKeys;
    ahead[0] = first;
    keys[0] = first[1]!;
    let n = 1;
    let nKeys = 1;
    let bytes = argvBytes(first);
    for (;;) {
      ahead[n++] = argv;
      bytes += argvBytes(argv);
      if (!matcher.matches(argv)) break;
      keys[nKeys++] = argv[1]!;
      if (n === AHEAD_MAX) break;
      argv = this.parser.take();
      if (argv === null) break;
    }
    this.aheadAt = 0;
    this.aheadEnd = n;
    this.aheadBytes = bytes;
    if (nKeys > 1) this.prefetch(keys, nKeys);
    for (let i = 0; i < nKeys; i++) keys[i] = EMPTY_KEY;
    return this.takeAhead();
  }

  private takeAhead(): Buffer[] {
    const argv = this.ahead[this.aheadAt]!;
    this.ahead[this.aheadAt++] = EMPTY_ARGV;
    this.aheadBytes -= argvBytes(argv);
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
    if (this.closed || this.repliesHeld) return;
    if (this.muteFrom >= 0) {
      // A muted command still running keeps its bytes (the command log reads its reply).
      if (this.commandPending) return;
      this.dropMuted();
    }
    if (this.holding > 0) {
      this.pause(PAUSE_APPEND);
      return;
    }
    const barrier = this.server.syncBarrier;
    if (barrier !== null && this.replySeq > this.server.syncedSeq) {
      // Written after a write whose sync is pending (appendfsync always):
      // it may show that write, which a crash could still lose.
      this.holding++;
      void barrier.then(() => {
        if (--this.holding === 0) this.resume(PAUSE_APPEND);
      });
      this.pause(PAUSE_APPEND);
      return;
    }
    let out = this.reply.flush();
    if (this.held.length > 0) out = this.releaseHeld(out);
    if (out === null) return;
    this.server.stats.netOutput += out.length;
    // With an output buffer limit, a client that does not read is dropped
    // once over it, as Redis does; without one, it stops being read.
    const limit = this.outputLimit();
    this.server.turnWrites.hold(this.socket);
    if (!this.socket.write(out) && limit.hard <= 0 && limit.soft <= 0) {
      this.pause(PAUSE_DRAIN);
    }
    this.overOutputLimit();
  }

  /** The client-output-buffer-limit class of this client. */
  private outputLimit(): OutputLimit {
    const limits = this.server.config.outputLimits;
    return this.subscribed ? limits.pubsub : limits.normal;
  }

  /**
   * Redis's client-output-buffer-limit: a client whose unsent replies pass
   * the hard limit, or stay over the soft one for longer than its seconds,
   * is dropped (Redis's checkClientOutputBufferLimits).
   */
  private overOutputLimit(): boolean {
    const limit = this.outputLimit();
    if (limit.hard <= 0 && limit.soft <= 0) return false;
    const bytes = this.reply.pendingBytes + this.socket.writableLength;
    let over = limit.hard > 0 && bytes > limit.hard;
    if (!over && limit.soft > 0 && bytes > limit.soft) {
      const now = Math.floor(Date.now() / 1000);
      if (this.softLimitSince === 0) this.softLimitSince = now;
      else over = now - this.softLimitSince > limit.softSeconds;
    } else if (!over) {
      this.softLimitSince = 0;
    }
    if (!over) return false;
    this.server.stats.outputLimitDisconnections++;
    this.kill();
    return true;
  }

  /**
   * Nothing may be written to the socket now: a script is running, and the
   * reply writer holds its calls' replies until it reads them back.
   */
  protected get repliesHeld(): boolean {
    return false;
  }

  /** A command of this client is still running: blocked, paused, or reading from disk. */
  get waitingOnCommand(): boolean {
    return this.commandPending;
  }

  /** The reply of the running command is not complete yet (an EXEC adds to this). */
  protected get replyOpen(): boolean {
    return this.commandPending;
  }

  /**
   * Where a push for this client (a pub/sub message, an invalidation) is
   * written: its reply writer, or while one of its own replies is not
   * complete (its command is running, on the disk, or an EXEC) a side
   * writer appended after that reply. So a push never lands inside a reply,
   * and the bytes from a command's start to its end are its reply alone:
   * the command log reads its replay form from them, and a failed append
   * replaces exactly them. (Redis 7.0 puts a message a client published to
   * itself before PUBLISH's reply; invalidations it already sends after.)
   * Call `pushed()` once written.
   */
  pushWriter(): ReplyWriter {
    // Pushes are sent while replies are off (Redis's CLIENT_PUSHING): they stay out of the muted bytes.
    if (!this.replyOpen && !this.running && this.muteFrom < 0) return this.reply;
    this.deferredPushes ??= new ReplyWriter({
      protocol: this.reply.protocol,
      initialCapacity: 256,
    });
    this.deferredPushes.protocol = this.reply.protocol;
    return this.deferredPushes;
  }

  /**
   * A push was written (`pushWriter`): over the output limit the client is
   * dropped; otherwise it leaves at the end of this tick, or with the
   * client's own replies when its command loop is running.
   */
  pushed(): void {
    this.replySeq = this.server.syncSeq;
    if (this.closed || this.overOutputLimit() || this.running || this.flushQueued) return;
    if (this.replyOpen) return;
    this.flushQueued = true;
    this.server.flushSoon(this.client);
  }

  /** The server's end-of-tick flush of pushes (ServerState.flushSoon). */
  flushPushes(): void {
    this.flushQueued = false;
    if (this.running || this.replyOpen) return;
    if (this.muteFrom >= 0) this.releasePushes();
    this.flushReplies();
  }

  /** A reply completed: the pushes that waited for it follow it. */
  protected releasePushes(): void {
    const deferred = this.deferredPushes;
    if (deferred === null || deferred.pendingBytes === 0 || this.replyOpen) return;
    if (this.muteFrom >= 0) this.dropMuted();
    this.reply.raw(deferred.flush()!);
    // Replies still off: what follows the pushes is muted again.
    if (this.muteFrom >= 0) this.muteFrom = this.reply.position;
    if (!this.running) this.pushed();
  }

  // ---- CLIENT REPLY ------------------------------------------------------------

  /** Replies are not being sent (CLIENT REPLY OFF, or SKIP for this command). */
  get repliesMuted(): boolean {
    return this.muteFrom >= 0;
  }

  /**
   * CLIENT REPLY: `on` sends replies again from now on (this one included),
   * `off` stops them, `skip` drops the next command's (not while off).
   */
  setReplyMode(mode: 'on' | 'off' | 'skip'): void {
    if (mode === 'on') {
      this.replyOff = false;
      this.skipNext = false;
      if (this.muteFrom >= 0) this.dropMuted();
      this.muteFrom = -1;
    } else if (mode === 'off') {
      this.replyOff = true;
      if (this.muteFrom < 0) this.muteFrom = this.reply.position;
    } else if (!this.replyOff) {
      this.skipNext = true;
    }
  }

  /**
   * The command about to run answers with what Redis sends as pushes
   * ((P|S)(UN)SUBSCRIBE confirmations): sent even while replies are off or skipped.
   */
  protected sendMutedReply(): void {
    if (this.muteFrom < 0 || this.commandPending) return;
    this.dropMuted();
    this.muteFrom = -1;
    this.remute = true;
  }

  private endSentReply(): void {
    this.remute = false;
    if (this.replyOff && this.muteFrom < 0) this.muteFrom = this.reply.position;
  }

  /** The command after CLIENT REPLY SKIP begins: its reply is dropped. */
  private beginSkip(): void {
    this.skipNext = false;
    if (this.muteFrom < 0) this.muteFrom = this.reply.position;
  }

  /**
   * Drops the muted bytes written so far (a command's reply ended); while
   * replies are off, what comes next is muted too. Held replies among them
   * have nothing left to replace.
   */
  private dropMuted(): void {
    const from = this.muteFrom;
    for (const h of this.held) if (h.start >= from) h.dropped = true;
    this.reply.rewind(from);
    this.muteFrom = this.replyOff ? from : -1;
  }

  /** The client's address as Redis's getClientPeerId gives it (`ip:port`, `[ipv6]:port`, `?:0`). */
  get peerId(): string {
    // A Unix socket's client: the path and port 0, as Redis's connFormatAddr.
    this.peer ??=
      this.unixSocket !== null
        ? `${this.unixSocket}:0`
        : formatAddress(this.socket.remoteAddress, this.socket.remotePort);
    return this.peer;
  }

  /** The client the server state keeps (the object itself). */
  protected abstract get client(): Client;

  /**
   * Every held reply's append settled: the chunk as it goes out, with each
   * reply whose append failed replaced by its NOTPERSISTED error.
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
      if (h.error === null || h.dropped || start < at) continue;
      parts.push(out.subarray(at, start), Buffer.from(`-${h.error}\r\n`));
      at = h.end - base;
    }
    parts.push(out.subarray(at));
    return Buffer.concat(parts);
  }

  /** Holds the replies from `start` on until `p` settles (appendfsync always). */
  protected hold(p: Promise<void>, start: number, end: number): void {
    const h: HeldReply = { start, end, error: null, dropped: false };
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

  /** Closes the connection now, dropping unsent replies (CLIENT KILL, limits). */
  kill(): void {
    if (this.closed) return;
    this.closed = true;
    this.reply.discard();
    this.socket.destroy();
  }
}

const EMPTY_ARGV: Buffer[] = [];

/** An address as Redis prints a peer: `ip:port`, `[ipv6]:port`, `?:0` with none. */
export function formatAddress(host: string | undefined, port: number | undefined): string {
  if (host === undefined) return '?:0';
  const h = host.startsWith('::ffff:') ? host.slice(7) : host;
  return h.includes(':') ? `[${h}]:${port ?? 0}` : `${h}:${port ?? 0}`;
}

/** Argument bytes of a command (what the query buffer limit counts). */
function argvBytes(argv: readonly Buffer[]): number {
  let n = 0;
  for (let i = 0; i < argv.length; i++) n += argv[i]!.length;
  return n;
}
const EMPTY_KEY: Buffer = Buffer.alloc(0);

/**
 * The error a reply becomes when its append to the command log failed: the
 * command ran, so the reply says it is applied and not persisted (never
 * MISCONF, which says a write was refused before it ran).
 */
export function appendErrorReply(e: unknown): string {
  if (e instanceof CommandError) return e.message;
  return notPersistedMessage(e instanceof Error ? e.message : String(e));
}
