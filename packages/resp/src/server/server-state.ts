import { randomBytes } from 'node:crypto';
import type { AccessClock } from '@strata/hlog';
import type {
  AclUsers,
  AppParameter,
  ConfigRewriteHook,
  ConfiguredUser,
} from '../commands/index.js';
import type { CommandError } from '../errors.js';
import { oneLine } from '../errors.js';
import { AccessTicker } from './access-ticker.js';
import type { Client } from './client.js';
import { ClientPause } from './client-pause.js';
import type { CommandLog } from './command-log.js';
import type { CommandSpec, CommandTable } from './command-table.js';
import { ExpiryPace } from './expiry-pace.js';
import type { FamilyHooks, LoggedForm } from './family-hooks.js';
import { IdleClients } from './idle-clients.js';
import { InstantaneousMetrics, untouchedLogBytes } from './instantaneous-metrics.js';
import type { Keyspace } from './keyspace.js';
import { LatencyMonitor } from './latency-monitor.js';
import { ParseAheadMatcher } from './parse-ahead.js';
import { SlowLog } from './slowlog.js';
import { SlotValues, type StateSlot } from './state-slot.js';
import { TurnWrites } from './turn-writes.js';
import { WallClock } from './wall-clock.js';

/**
 * One class of Redis's client-output-buffer-limit, in bytes of replies
 * waiting for a client: over `hard` it is disconnected at once, over `soft`
 * for more than `softSeconds` too. 0 turns a limit off.
 */
export interface OutputLimit {
  readonly hard: number;
  readonly soft: number;
  readonly softSeconds: number;
}

/** client-output-buffer-limit, by Redis's client classes. */
export interface OutputLimits {
  readonly normal: OutputLimit;
  readonly replica: OutputLimit;
  /** Clients in the pub/sub context (subscribed to anything). */
  readonly pubsub: OutputLimit;
}

/** Redis's defaults: normal 0 0 0, replica 256mb 64mb 60, pubsub 32mb 8mb 60. */
export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
  normal: { hard: 0, soft: 0, softSeconds: 0 },
  replica: { hard: 256 << 20, soft: 64 << 20, softSeconds: 60 },
  pubsub: { hard: 32 << 20, soft: 8 << 20, softSeconds: 60 },
};

export interface ServerConfig {
  /** requirepass: null = no AUTH needed. */
  requirepass: string | null;
  maxclients: number;
  /** proto-max-bulk-len. */
  maxBulkLength: number;
  /** client-output-buffer-limit: bytes of replies a client may have waiting, by class. */
  outputLimits: OutputLimits;
  /** client-query-buffer-limit: request bytes a client may hold before it is disconnected. */
  queryBufferLimit: number;
  /** protected-mode: with no requirepass, only loopback clients are accepted. */
  protectedMode: boolean;
  /** notify-keyspace-events as Redis's NOTIFY_* bits (the pubsub family's keyspace-events.ts); 0: off. */
  notifyKeyspaceEvents: number;
  /** Bytes of heap and buffers one script may add before it is stopped (RespServerOptions.scriptMemory). */
  scriptMemory: number;
  /** timeout: seconds a client may stay idle before it is closed; 0: never (IdleClients). */
  idleTimeout: number;
  /** tcp-keepalive: seconds of silence before TCP keepalive probes start, on new connections; 0: off. */
  tcpKeepAlive: number;
}

export interface ServerStateOptions {
  /** The command families' hooks (CommandFamily.hooks). */
  readonly hooks?: readonly FamilyHooks[];
  /** False: no command is parsed ahead (an app replaced one flagged for it). Default true. */
  readonly parseAhead?: boolean;
  /**
   * The ACL users of this table (the acl family's AclUsers, made by the
   * server: the dispatcher only holds them).
   */
  readonly users: (table: CommandTable) => AclUsers;
  /** Time source of the keys' access clock (ms). Default Date.now. */
  readonly accessNow?: () => number;
}

/** After a client let go of much memory, how soon, and how often at most, the app is asked to give it back. */
const RELEASE_DELAY_MS = 100;
/** Request bytes let go of (one client's, or closed clients' together) that make the app give memory back. */
export const RELEASE_MEMORY_AFTER_BYTES = 32 << 20;
const RELEASE_INTERVAL_MS = 1000;

/**
 * What every connection and command shares: the command table, the
 * databases, the connected clients, the config, the counters, and the state
 * of transactions (the exclusive gate of EXEC, WATCHed keys).
 */
/** A line for the app's log, at Redis's level (serverLog's LL_NOTICE, LL_WARNING). */
export type ServerLog = (level: 'notice' | 'warning', message: string) => void;

export class ServerState {
  readonly clients = new Map<number, Client>();
  readonly startedAt = Date.now();
  private nextId = 1;
  private configValue: ServerConfig;
  readonly stats = {
    connections: 0,
    rejectedConnections: 0,
    commands: 0,
    netInput: 0,
    netOutput: 0,
    /** Clients dropped over the query buffer limit (client_query_buffer_limit_disconnections). */
    queryLimitDisconnections: 0,
    /** Clients dropped over an output buffer limit (client_output_buffer_limit_disconnections). */
    outputLimitDisconnections: 0,
    /** Keys the stores found expired (expired_keys). */
    expiredKeys: 0,
    /** Error replies sent (total_error_replies). */
    errorReplies: 0,
  };
  /** Error replies by their first word (INFO errorstats: `errorstat_WRONGTYPE:count=3`). */
  readonly errorsByPrefix = new Map<string, number>();
  private runIdHex: string | null = null;
  /**
   * INFO's run_id: 40 random hex characters, new for every server (made at
   * first use: the first randomBytes sets up crypto, ~2 ms of a start).
   */
  get runId(): string {
    this.runIdHex ??= randomBytes(20).toString('hex');
    return this.runIdHex;
  }
  /** INFO's instantaneous rates and memory peak, sampled while the server listens. */
  readonly metrics = new InstantaneousMetrics(this.stats, () => untouchedLogBytes(this.keyspace));
  readonly idleClients = new IdleClients(this);
  /** The keys' access clock (OBJECT IDLETIME/FREQ), shared by the databases' stores. */
  readonly accessTicker: AccessTicker;
  /** Wall time from the dispatcher's clock readings (XADD's `*`). */
  readonly wall = new WallClock();

  get access(): AccessClock {
    return this.accessTicker.clock;
  }

  /** SLOWLOG's entries and its two parameters (the dispatcher adds what is slow). */
  readonly slowlog = new SlowLog();
  /** LATENCY's events and latency-monitor-threshold. */
  readonly latency = new LatencyMonitor();
  /** latency-tracking: each command's calls are counted in its LATENCY HISTOGRAM buckets. */
  latencyTracking = true;
  /** Clients in MONITOR mode, in the order they started: each command is shown to them. */
  readonly monitors: Client[] = [];
  /** CLIENT PAUSE: held clients, and expiries held until it ends. */
  readonly clientPause = new ClientPause((store, key) => this.keyExpired(store, key));

  /** Commands waiting on the disk, over all clients (each client counts its own). */
  inFlight = 0;
  /** While set, only this client's commands run (EXEC going to disk stays atomic). */
  exclusive: Client | null = null;
  /**
   * Set while a script holds the gate (the scripting family): what a
   * command of another client does meanwhile; wait for the gate, run now
   * (SCRIPT KILL once the script is busy) or be refused (BUSY).
   */
  busy: ((spec: CommandSpec) => 'wait' | 'run' | CommandError) | null = null;
  private exclusiveWaiters: (() => void)[] = [];
  private idleWaiters: { except: Client; resolve: () => void }[] = [];

  /** WATCHed keys: db -> key (latin1, bytes as they are) -> watching clients. */
  readonly watched = new Map<number, Map<string, Set<Client>>>();
  watchedKeys = 0;

  /** Unix time of the last SAVE/BGSAVE that completed (LASTSAVE); start time at first. */
  lastSave = Math.floor(Date.now() / 1000);

  /** The expiry cycle's pace (hz, active-expire-effort, dynamic-hz). */
  readonly expiryPace: ExpiryPace;

  /** Where write commands are logged (an AOF), or null. */
  commandLog: CommandLog | null = null;

  /**
   * appendfsync always: settled (either way) once every write appended so
   * far is synced, null while none is pending. A reply written while it is
   * pending waits for it (Connection.flushReplies), as Redis sends no reply
   * before beforeSleep's fsync: a reader never sees a write a crash can
   * still take away.
   */
  syncBarrier: Promise<void> | null = null;
  /** Barriers begun (one per sync batch appended to); `syncedSeq`: the newest settled. */
  syncSeq = 0;
  syncedSeq = 0;
  private lastAppend: Promise<void> | null = null;

  /** A write was appended; `p` settles once its batch is synced (one barrier per batch). */
  noteAppend(p: Promise<void>): void {
    if (p === this.lastAppend) return;
    this.lastAppend = p;
    const seq = ++this.syncSeq;
    const prev = this.syncBarrier;
    const lift = (): void => {
      if (seq > this.syncedSeq) this.syncedSeq = seq;
      if (this.syncBarrier === barrier) {
        this.syncBarrier = null;
        this.lastAppend = null;
      }
    };
    // Batches sync concurrently: the barrier covers every one before it too.
    // Alone, it lifts in `p`'s own reaction, ahead of the writer's hold on
    // `p` (Dispatcher notes the append first): the writer's released reply
    // then goes out at once, not held again for a barrier lifting a tick later.
    const barrier: Promise<void> =
      prev === null ? p.then(lift, lift) : Promise.all([prev, p.then(NOOP, NOOP)]).then(lift);
    this.syncBarrier = barrier;
  }

  /** An app's INFO lines (RespServerOptions.infoSections) and CONFIG GET values (configValues). */
  infoSections: Readonly<Record<string, () => readonly string[]>> = {};
  configValues: Readonly<Record<string, () => string>> = {};
  /** Parameters the app acts on, which CONFIG SET changes (RespServerOptions.appParameters). */
  appParameters: Readonly<Record<string, AppParameter>> = {};
  /** How CONFIG REWRITE reaches the app's config file (RespServerOptions.configRewrite); null: there is none. */
  configRewrite: ConfigRewriteHook | null = null;
  /** The config file's `user` lines (RespServerOptions.users), loaded before the server listens. */
  configuredUsers: readonly ConfiguredUser[] = [];
  /** The app's server log (RespServerOptions.log): lines Redis writes to its log. */
  log: ServerLog = () => undefined;

  /**
   * While set, write commands (and PING) are refused with this error
   * (`MISCONF ...`): a failed checkpoint's first (Redis's RDB error), then
   * the AOF's, then a database log's.
   */
  writeError: string | null = null;
  private aofError: string | null = null;
  /** A failed checkpoint with stop-writes-on-bgsave-error (Redis checks it before the AOF's). */
  private saveError: string | null = null;
  private readonly storeErrors = new Map<number, string>();
  /** Re-reads the databases' write errors (StoreHealth): one may have cleared since. */
  refreshWriteError: (() => void) | null = null;

  /** Where the server listens (INFO, CLIENT LIST laddr). */
  port = 0;
  host = '';

  constructor(
    readonly table: CommandTable,
    readonly keyspace: Keyspace,
    config: ServerConfig,
    options: ServerStateOptions,
  ) {
    this.configValue = config;
    this.expiryPace = new ExpiryPace(keyspace);
    this.accessTicker = new AccessTicker(options.accessNow);
    this.users = options.users(table);
    this.users.setRequirepass(config.requirepass);
    this.aheadMatcher = options.parseAhead === false ? null : ParseAheadMatcher.from(table);
    const hooks = options.hooks ?? [];
    this.hooks = {
      afterExec: hooks.flatMap((h) => (h.afterExec === undefined ? [] : [h.afterExec])),
      onClientReset: hooks.flatMap((h) => (h.onClientReset === undefined ? [] : [h.onClientReset])),
      onKeyExpired: hooks.flatMap((h) => (h.onKeyExpired === undefined ? [] : [h.onKeyExpired])),
      onKeyGone: hooks.flatMap((h) => (h.onKeyGone === undefined ? [] : [h.onKeyGone])),
      onClientClose: hooks.flatMap((h) => (h.onClientClose === undefined ? [] : [h.onClientClose])),
      beforeListen: hooks.flatMap((h) => (h.beforeListen === undefined ? [] : [h.beforeListen])),
      onServerClose: hooks.flatMap((h) => (h.onServerClose === undefined ? [] : [h.onServerClose])),
    };
  }

  /**
   * Commands a client may parse ahead in a pipelined run and prefetch the
   * keys of (definitions flagged `parseAhead`), or null: none, or an app
   * replaced one of them (its handler may change what later bytes mean).
   */
  readonly aheadMatcher: ParseAheadMatcher | null;

  get parseAhead(): boolean {
    return this.aheadMatcher !== null;
  }

  /** The command families' hooks, by the point the dispatcher calls them at. */
  readonly hooks: {
    readonly afterExec: readonly ((client: Client) => readonly LoggedForm[])[];
    readonly onClientReset: readonly ((client: Client) => void)[];
    readonly onKeyExpired: readonly ((server: ServerState, db: number, key: Buffer) => void)[];
    readonly onKeyGone: readonly ((
      server: ServerState,
      db: number,
      key: Uint8Array | null,
    ) => void)[];
    readonly onClientClose: readonly ((client: Client) => void)[];
    readonly beforeListen: readonly ((server: ServerState) => Promise<void>)[];
    readonly onServerClose: readonly ((server: ServerState) => void)[];
  };

  /** An error reply was sent: counted, and by its prefix (Redis's afterErrorReply). */
  countError(message: string): void {
    this.stats.errorReplies++;
    const space = message.indexOf(' ');
    const prefix = space === -1 ? message : message.slice(0, space);
    this.errorsByPrefix.set(prefix, (this.errorsByPrefix.get(prefix) ?? 0) + 1);
  }

  /** `store` says `key` expired (KeyCount.onExpired): the families hear it in that store's database. */
  keyExpired(store: unknown, key: Buffer): void {
    if (this.clientPause.level !== 0) {
      // Redis expires nothing while clients are paused: announced once the pause ends.
      this.clientPause.holdExpired(store, key);
      return;
    }
    this.stats.expiredKeys++;
    if (this.hooks.onKeyExpired.length === 0) return;
    for (let db = 0; db < this.keyspace.count; db++) {
      if (this.keyspace.get(db) !== store) continue;
      for (const hook of this.hooks.onKeyExpired) hook(this, db, key);
      return;
    }
  }

  /** `store` says the value of `key` is gone (null: all its keys): the families hear it in its database. */
  keyGone(store: unknown, key: Uint8Array | null): void {
    if (this.hooks.onKeyGone.length === 0) return;
    for (let db = 0; db < this.keyspace.count; db++) {
      if (this.keyspace.get(db) !== store) continue;
      for (const hook of this.hooks.onKeyGone) hook(this, db, key);
      return;
    }
  }

  /** Clients with pushes written by others' commands (pub/sub messages), flushed once this tick ends. */
  private pushedClients: Client[] = [];

  /** Sockets written this event-loop turn: their writes leave together once it ends. */
  readonly turnWrites = new TurnWrites(() => this.commandLog?.beforeReplies?.());

  /**
   * The app's way to give memory back to the system at once
   * (RespServerOptions.releaseMemory), or null.
   */
  releaseMemory: (() => void) | null = null;
  private releaseTimer: NodeJS.Timeout | null = null;
  private lastRelease = 0;
  /** Request bytes closed clients held, since memory was last given back. */
  private closedHeld = 0;

  /** A client closed holding `bytes` of requests: many such add up to a release. */
  letGoOf(bytes: number): void {
    this.closedHeld += bytes;
    if (this.closedHeld < RELEASE_MEMORY_AFTER_BYTES) return;
    this.closedHeld = 0;
    this.releaseMemorySoon();
  }

  /**
   * A client let go of a lot of memory (a huge request, held or closed):
   * the app's `releaseMemory` runs shortly after, once however many ask,
   * at most once a second (a full collection is not free).
   */
  releaseMemorySoon(): void {
    if (this.releaseMemory === null || this.releaseTimer !== null) return;
    const delay = Math.max(RELEASE_DELAY_MS, this.lastRelease + RELEASE_INTERVAL_MS - Date.now());
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = null;
      this.lastRelease = Date.now();
      this.releaseMemory?.();
    }, delay);
    this.releaseTimer.unref();
  }

  /**
   * `c` got a push from another client's command: its output goes out once
   * the current tick's commands ran, in one socket write per client however
   * many messages a pipeline published to it.
   */
  flushSoon(c: Client): void {
    if (this.pushedClients.push(c) === 1) process.nextTick(this.flushPushed);
  }

  private readonly flushPushed = (): void => {
    const clients = this.pushedClients;
    this.pushedClients = [];
    for (const c of clients) c.flushPushes();
  };

  /** The families' per-server state (ServerSlot). */
  private readonly slots = new SlotValues<ServerState>(this);

  /** A family's state of this server, created on first use. */
  state<S>(slot: StateSlot<S, ServerState>): S {
    return this.slots.get(slot);
  }

  /** A family's state of this server, or undefined when it has none yet. */
  peekState<S>(slot: StateSlot<S, ServerState>): S | undefined {
    return this.slots.peek(slot);
  }

  get config(): ServerConfig {
    return this.configValue;
  }

  set config(c: ServerConfig) {
    const before = this.configValue.requirepass;
    this.configValue = c;
    // requirepass is the default user's password (Redis's ACLUpdateDefaultUserPassword).
    if (c.requirepass !== before) this.users.setRequirepass(c.requirepass);
  }

  /** The ACL users (the default one's password is requirepass) and the ACL log. */
  readonly users: AclUsers;

  /** The command log's write error (a message after `MISCONF `, or the whole reply), or null. */
  setWriteError(message: string | null): void {
    const m = message === null ? null : oneLine(message);
    this.aofError = m === null ? null : m.startsWith('MISCONF ') ? m : `MISCONF ${m}`;
    this.updateWriteError();
  }

  /** The checkpoints' error (the whole MISCONF reply) while writes stop for it, or null. */
  setSaveError(message: string | null): void {
    this.saveError = message === null ? null : oneLine(message);
    this.updateWriteError();
  }

  /** A database's log failed to write (message) or recovered (null). */
  setStoreWriteError(db: number, message: string | null): void {
    if (message === null) this.storeErrors.delete(db);
    else this.storeErrors.set(db, message);
    this.updateWriteError();
  }

  /**
   * The write error as it is now: a database's error is checked again
   * first (a retry or checkpoint may have written its pages). For the
   * moment a write is about to be refused; `writeError` is the fast check.
   */
  currentWriteError(): string | null {
    if (this.writeError !== null && this.storeErrors.size > 0) this.refreshWriteError?.();
    return this.writeError;
  }

  private updateWriteError(): void {
    let e = this.saveError ?? this.aofError;
    if (e === null) for (const m of this.storeErrors.values()) e ??= m;
    this.writeError = e;
  }

  newClientId(): number {
    return this.nextId++;
  }

  /** A new client must AUTH first: the default user has a password, or is off (Redis's authRequired). */
  get authRequired(): boolean {
    return !this.users.defaultUser.autoAuthenticates;
  }

  /**
   * One of the default user's passwords (requirepass) is `password`. Constant
   * time: both sides are SHA-256 digests, so the compare never depends on
   * where the bytes differ or on the password's length.
   */
  checkPassword(password: Uint8Array): boolean {
    return this.users.defaultUser.matchesPassword(password);
  }

  // ---- pending commands and the EXEC gate ------------------------------------

  pendingStarted(c: Client): void {
    c.inFlight++;
    this.inFlight++;
  }

  pendingEnded(c: Client): void {
    c.inFlight--;
    this.inFlight--;
    if (this.idleWaiters.length > 0) this.wakeIdle();
  }

  /** Resolves when no client but `except` has a command in flight. */
  waitIdle(except: Client): Promise<void> {
    if (this.othersIdle(except)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push({ except, resolve }));
  }

  othersIdle(except: Client): boolean {
    return this.inFlight === except.inFlight;
  }

  private wakeIdle(): void {
    const still: { except: Client; resolve: () => void }[] = [];
    for (const w of this.idleWaiters) {
      if (this.othersIdle(w.except)) w.resolve();
      else still.push(w);
    }
    this.idleWaiters = still;
  }

  /** Resolves once the exclusive gate is open again. */
  waitExclusive(): Promise<void> {
    return new Promise((resolve) => this.exclusiveWaiters.push(resolve));
  }

  /**
   * Runs `fn` with every other client held: it starts once no other client
   * has a command on the disk, and nothing else starts until it ends
   * (FLUSHDB, an EXEC that goes to disk).
   */
  async runExclusive<T>(c: Client, fn: () => Promise<T> | T): Promise<T> {
    // Inside an EXEC the client holds the gate already: EXEC releases it.
    const acquired = this.exclusive !== c;
    this.exclusive = c;
    try {
      await this.waitIdle(c);
      return await fn();
    } finally {
      if (acquired) this.releaseExclusive(c);
    }
  }

  /**
   * Wakes the commands waiting for the gate without opening it: they look
   * again (a script that became busy answers them BUSY).
   */
  wakeExclusiveWaiters(): void {
    const waiters = this.exclusiveWaiters;
    this.exclusiveWaiters = [];
    for (const w of waiters) w();
  }

  releaseExclusive(c: Client): void {
    if (this.exclusive !== c) return;
    this.exclusive = null;
    const waiters = this.exclusiveWaiters;
    this.exclusiveWaiters = [];
    for (const w of waiters) w();
  }

  // ---- WATCH -------------------------------------------------------------------

  watch(c: Client, db: number, key: Buffer): boolean {
    let keys = this.watched.get(db);
    if (keys === undefined) {
      keys = new Map();
      this.watched.set(db, keys);
    }
    const k = key.toString('latin1');
    let set = keys.get(k);
    if (set === undefined) {
      set = new Set();
      keys.set(k, set);
    }
    if (set.has(c)) return false;
    set.add(c);
    this.watchedKeys++;
    return true;
  }

  unwatch(c: Client, db: number, key: string): void {
    const keys = this.watched.get(db);
    const set = keys?.get(key);
    if (set === undefined || !set.delete(c)) return;
    this.watchedKeys--;
    if (set.size === 0) keys!.delete(key);
    if (keys!.size === 0) this.watched.delete(db);
  }

  /** A write command ran: clients watching one of its keys see their EXEC fail. */
  touchKeys(db: number, spec: CommandSpec, argv: readonly Buffer[]): void {
    const keys = this.watched.get(db);
    if (keys === undefined) return;
    for (const i of spec.changedKeyIndexes(argv)) {
      const set = keys.get(argv[i]!.toString('latin1'));
      if (set !== undefined) for (const c of set) c.watchDirty = true;
    }
  }

  /** FLUSHDB / FLUSHALL: every watcher of `db` (or of all, for -1) is dirty. */
  touchAll(db: number): void {
    for (const [d, keys] of this.watched) {
      if (db !== -1 && d !== db) continue;
      for (const set of keys.values()) for (const c of set) c.watchDirty = true;
    }
  }
}

const NOOP = (): void => undefined;
