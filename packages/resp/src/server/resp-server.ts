import { createServer, type Server, Socket } from 'node:net';
import { join } from 'node:path';
import type { StoreCore } from '@strata/hlog';
import {
  DEFAULT_CLIENT_QUERY_BUFFER_LIMIT,
  DEFAULT_PROTO_MAX_BULK_LEN,
  type RespVersion,
} from '@strata/protocol';
import {
  AclUsers,
  type AppParameter,
  type ConfigRewriteHook,
  type ConfiguredUser,
  commandFamilies,
  type FunctionStore,
  fileFunctionStore,
  parseNotifyFlags,
  type ShutdownHook,
} from '../commands/index.js';
import { maxClientsError, PROTECTED_MODE_REPLY, ReplayError } from '../errors.js';
import { Client } from './client.js';
import type { CommandLog } from './command-log.js';
import type { CommandDefinition, CommandTable } from './command-table.js';
import { CommandTable as Table } from './command-table.js';
import {
  type DatabaseProvider,
  Keyspace,
  type StoreDatabasesOptions,
  storeDatabases,
} from './keyspace.js';
import { LocalClient } from './local-client.js';
import { isLoopback } from './loopback.js';
import {
  DEFAULT_OUTPUT_LIMITS,
  type OutputLimits,
  type ServerConfig,
  type ServerLog,
  ServerState,
} from './server-state.js';
import { StoreHealth } from './store-health.js';

export interface RespServerOptions {
  /** Where the databases live: a provider, or options for one Store per database in a directory. */
  readonly databases: DatabaseProvider | StoreDatabasesOptions;
  /** requirepass: clients must AUTH (or HELLO ... AUTH) first. Default none. */
  readonly requirepass?: string | null;
  /** maxclients. Default 10000. */
  readonly maxclients?: number;
  /** proto-max-bulk-len. Default 512 MB. */
  readonly maxBulkLength?: number;
  /**
   * Bytes of replies a client may leave unread before it is disconnected
   * (client-output-buffer-limit, hard). Default 0: no limit, as Redis's
   * normal clients; reading from a client pauses while its replies do not drain.
   */
  readonly outputBufferLimit?: number;
  /**
   * client-output-buffer-limit by client class; a class given replaces
   * Redis's default for it (pubsub 32mb 8mb 60). `outputBufferLimit`, when
   * set, is the normal class's hard limit.
   */
  readonly outputLimits?: Partial<OutputLimits>;
  /**
   * notify-keyspace-events at start, in Redis's letters (`KEA`, `Ex`...).
   * Default '' (none). A letter that is no class throws a RangeError.
   */
  readonly notifyKeyspaceEvents?: string;
  /**
   * Request bytes a client may have buffered and not run (a command still
   * arriving) before it is disconnected (client-query-buffer-limit). Default 1 GB.
   */
  readonly queryBufferLimit?: number;
  /** Seconds a client may stay idle before it is closed (Redis's `timeout`). Default 0: never. */
  readonly timeout?: number;
  /** Time source (ms since the epoch) of the keys' access clock, OBJECT IDLETIME/FREQ's. Default Date.now (tests move it). */
  readonly accessClock?: () => number;
  /** Seconds before TCP keepalive probes on an idle connection (`tcp-keepalive`). Default 300, as Redis; 0: off. */
  readonly tcpKeepAlive?: number;
  /** Extra commands, or replacements of built-in ones by name. */
  readonly commands?: readonly CommandDefinition[];
  /**
   * What SHUTDOWN does after its SAVE and after closing the caller's
   * connection: an app stops itself (checkpoint, close, exit). Default: the
   * server stops listening, drops its clients and closes the databases.
   */
  readonly onShutdown?: ShutdownHook;
  /**
   * Where write commands are logged once they ran (an append-only file),
   * in their replay form; see CommandLog. Default none.
   */
  readonly commandLog?: CommandLog;
  /**
   * protected-mode (default true): with no requirepass, a client from a
   * non-loopback address gets Redis's DENIED error and is disconnected.
   */
  readonly protectedMode?: boolean;
  /**
   * An app's INFO lines (`field:value`), by section name. A built-in section
   * (`persistence`...) shows them after its own; another name is a section
   * of its own, shown by `INFO <name>`, `all` and `everything`. Called on
   * each INFO, so they are current.
   */
  readonly infoSections?: Readonly<Record<string, InfoSectionProvider>>;
  /**
   * An app's read-only settings for CONFIG GET (`appendonly`, `appendfsync`...),
   * by Redis's name; a built-in one of the same name is replaced.
   */
  readonly configValues?: Readonly<Record<string, () => string>>;
  /**
   * Parameters the app acts on itself, changed live by CONFIG SET (see
   * AppParameter), by Redis's name; a built-in one of the same name is
   * replaced. A name also in `configValues` is read-only there.
   */
  readonly appParameters?: Readonly<Record<string, AppParameter>>;
  /**
   * CONFIG REWRITE's way to the config file the app started from (it reads
   * the file, applies the rewrite, writes it back). Default none: CONFIG
   * REWRITE answers that the server runs without a config file.
   */
  readonly configRewrite?: ConfigRewriteHook;
  /**
   * Where the lines Redis writes to its log go (DEBUG RELOAD's, DEBUG
   * LISTPACK's layout of a value...). Default: nowhere.
   */
  readonly log?: ServerLog;
  /**
   * Gives the memory the process no longer uses back to the system now
   * (strata-server: a full collection of V8's heap, whose dead Buffers
   * are then freed). Called shortly after a client let go of a huge
   * request (held or closed), at most once a second, and by MEMORY PURGE.
   * Default none: V8 collects when it next needs to, which an idle server
   * may not do for long.
   */
  readonly releaseMemory?: () => void;
  /**
   * The config file's `user <name> <rules...>` lines (each checked with
   * `checkUserDirective`, which gives the words to pass), loaded before the
   * server listens as Redis's ACLLoadConfiguredUsers; with an aclfile set
   * too, the start fails as Redis's does. Default none.
   */
  readonly users?: readonly ConfiguredUser[];
  /**
   * Where FUNCTION LOAD's libraries are kept between runs. Default: with
   * `databases: { dir }`, the file `<dir>/functions.rdb`; with a provider,
   * none (the libraries last as long as the server). null: none.
   */
  readonly functionStore?: FunctionStore | null;
  /**
   * Bytes of heap and buffers one Lua script may add before it is stopped
   * with an error (fengari has no allocator to cap). Default 1 GiB.
   */
  readonly scriptMemory?: number;
}

const DEFAULT_SCRIPT_MEMORY = 1 << 30;

/** The lines an app adds to one INFO section, each `field:value`. */
export type InfoSectionProvider = () => readonly string[];

export interface RespServerAddress {
  readonly host: string;
  readonly port: number;
}

function isProvider(d: DatabaseProvider | StoreDatabasesOptions): d is DatabaseProvider {
  return typeof (d as DatabaseProvider).open === 'function';
}

/**
 * A Redis-protocol server over Strata stores.
 *
 * ```ts
 * const server = new RespServer({ databases: { dir: './data', store: { memory: 64 << 20 } } });
 * const { port } = await server.listen(6379); // 127.0.0.1 unless told otherwise
 * // ... redis-cli -p 6379
 * await server.close(); // closes clients, then checkpoints and closes the stores
 * ```
 */
export class RespServer {
  readonly table: CommandTable;
  readonly keyspace: Keyspace;
  private readonly state: ServerState;
  private readonly server: Server;
  private readonly health: StoreHealth;
  private closing: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  /** The connection-less client that runs `execute` (replay). */
  private replayClient: Client | null = null;
  private replayDb = 0;

  constructor(options: RespServerOptions) {
    const provider = isProvider(options.databases)
      ? options.databases
      : storeDatabases(options.databases);
    this.keyspace = new Keyspace(
      watchedStores(provider, (s) => {
        this.health.watch(s);
        s.useAccessClock(this.state.access);
        // Read at the event: SWAPDB moves a store to another index.
        s.count.onExpired = (key) => this.state.keyExpired(s, key);
      }),
      { onKeyGone: (s, key) => this.state.keyGone(s, key) },
    );
    const functionStore =
      options.functionStore !== undefined
        ? options.functionStore
        : isProvider(options.databases)
          ? null
          : fileFunctionStore(join(options.databases.dir, 'functions.rdb'));
    const families = commandFamilies({
      functionStore,
      flush: this.keyspace.canFlush,
      save: this.keyspace.canSave,
      ...(options.onShutdown ? { shutdown: options.onShutdown } : {}),
    });
    const defs = new Map<string, CommandDefinition>();
    for (const f of families) for (const d of f.commands) defs.set(d.name, d);
    let parseAhead = true;
    for (const d of options.commands ?? []) {
      const builtIn = defs.get(d.name);
      if (builtIn === undefined || builtIn.handler === d.handler) {
        defs.set(d.name, d);
        continue;
      }
      // A new handler for a built-in command: the flags promised what the
      // built-in handler does, and parsing ahead stops (a replaced GET may
      // change what the bytes after it mean).
      const { argvFree: _argvFree, parseAhead: ahead, ...rest } = d;
      if (ahead !== undefined || builtIn.parseAhead !== undefined) parseAhead = false;
      defs.set(d.name, rest);
    }
    this.table = Table.from(defs.values());
    const config: ServerConfig = {
      requirepass: options.requirepass ?? null,
      maxclients: options.maxclients ?? 10_000,
      maxBulkLength: options.maxBulkLength ?? DEFAULT_PROTO_MAX_BULK_LEN,
      outputLimits: {
        ...DEFAULT_OUTPUT_LIMITS,
        ...(options.outputBufferLimit === undefined
          ? {}
          : { normal: { hard: options.outputBufferLimit, soft: 0, softSeconds: 0 } }),
        ...options.outputLimits,
      },
      queryBufferLimit: options.queryBufferLimit ?? DEFAULT_CLIENT_QUERY_BUFFER_LIMIT,
      protectedMode: options.protectedMode ?? true,
      notifyKeyspaceEvents: notifyFlags(options.notifyKeyspaceEvents ?? ''),
      scriptMemory: options.scriptMemory ?? DEFAULT_SCRIPT_MEMORY,
      idleTimeout: options.timeout ?? 0,
      tcpKeepAlive: options.tcpKeepAlive ?? 300,
    };
    this.state = new ServerState(this.table, this.keyspace, config, {
      users: (table) => new AclUsers(table),
      hooks: families.flatMap((f) => (f.hooks === undefined ? [] : [f.hooks])),
      parseAhead,
      ...(options.accessClock !== undefined && { accessNow: options.accessClock }),
    });
    this.state.commandLog = options.commandLog ?? null;
    this.state.infoSections = options.infoSections ?? {};
    this.state.configValues = options.configValues ?? {};
    this.state.appParameters = options.appParameters ?? {};
    this.state.configRewrite = options.configRewrite ?? null;
    if (options.log !== undefined) this.state.log = options.log;
    if (options.releaseMemory !== undefined) this.state.releaseMemory = options.releaseMemory;
    this.state.configuredUsers = options.users ?? [];
    this.health = new StoreHealth(this.state);
    this.server = createServer({ noDelay: true }, (socket) => this.accept(socket));
  }

  /**
   * Listens on `host` (loopback by default: exposing a server is a choice)
   * and `port` (0 picks a free one), with `backlog` connections waiting to
   * be accepted (Redis's tcp-backlog; the kernel caps it at somaxconn).
   * Database 0 is opened first, so a store that cannot open fails here
   * rather than on the first command.
   */
  async listen(port = 6379, host = '127.0.0.1', backlog = 511): Promise<RespServerAddress> {
    await this.start();
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      this.server.once('error', onError);
      this.server.listen({ port, host, backlog }, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const address = this.address();
    this.state.port = address.port;
    this.state.host = address.host;
    return address;
  }

  /**
   * What `listen` does before it listens: database 0 opened, the families'
   * `beforeListen` hooks run (function libraries loaded, the hash field
   * expiry cycle started), the server's timers started. An embedded user
   * calls it to run commands in process (`local()`) with no socket; once
   * only, however often it is called.
   */
  start(): Promise<void> {
    this.starting ??= (async () => {
      await this.keyspace.ensure(0);
      for (const beforeListen of this.state.hooks.beforeListen) await beforeListen(this.state);
      this.state.metrics.start();
      this.state.idleClients.start();
      this.state.accessTicker.start();
    })();
    return this.starting;
  }

  /**
   * A client in this process, with no connection: its commands run as a
   * connection's do (every check, the command log, WATCH, notifications)
   * and `send` gives each one's reply bytes. See LocalClient.
   */
  local(protocol: RespVersion = 3): LocalClient {
    return new LocalClient(this.state, protocol);
  }

  address(): RespServerAddress {
    const a = this.server.address();
    if (a === null || typeof a === 'string') throw new Error('the server is not listening');
    return { host: a.address, port: a.port };
  }

  /**
   * Runs one command with no connection (replaying an append-only file):
   * in database `db`, not logged to the command log. MULTI .. EXEC work
   * across calls. Rejects with a ReplayError (Redis's error text) when the
   * command answers an error.
   */
  async execute(db: number, argv: Buffer[]): Promise<void> {
    let c = this.replayClient;
    if (c === null) {
      c = new Client(this.state, new Socket(), true);
      this.replayClient = c;
    }
    if (db !== this.replayDb) {
      // As a SELECT in the file would: queued inside MULTI, at once outside.
      await this.runReplay(c, [Buffer.from('SELECT'), Buffer.from(String(db))]);
      this.replayDb = db;
    }
    await this.runReplay(c, argv);
  }

  private async runReplay(c: Client, argv: Buffer[]): Promise<void> {
    const r = c.execute(argv);
    if (r !== undefined) await r;
    const out = c.reply.flush();
    if (out !== null && out[0] === 0x2d) {
      const end = out.indexOf(0x0d);
      throw new ReplayError(out.subarray(1, end < 0 ? out.length : end).toString('latin1'));
    }
  }

  /**
   * Replaces the command log (`commandLog`; null: none): an app turning its
   * append-only file on or off. Call it inside `exclusive`, so that no
   * command is half logged.
   */
  setCommandLog(log: CommandLog | null): void {
    this.state.commandLog = log;
  }

  /**
   * Runs `fn` with every client held, as FLUSHALL or DEBUG RELOAD do: it
   * starts once no client has a command running, and none starts until it
   * ends. For an app's change of how the databases are kept.
   */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const state = this.state;
    // After whoever holds the gate now (a command's runExclusive came through it open).
    while (state.exclusive !== null) await state.waitExclusive();
    return state.runExclusive(new Client(state, new Socket(), true), fn);
  }

  /**
   * Refuses write commands (and PING) with `MISCONF <message>` while set
   * (Redis's wording for the AOF: "Errors writing to the AOF file: <why>");
   * null accepts them again. Reads keep working.
   */
  setWriteError(message: string | null): void {
    this.state.setWriteError(message);
  }

  /**
   * Refuses write commands (and PING) with `message` (a whole `MISCONF`
   * reply: BGSAVE_ERROR_MESSAGE) while a failed checkpoint stops writes
   * (stop-writes-on-bgsave-error); null accepts them again.
   */
  setSaveError(message: string | null): void {
    this.state.setSaveError(message);
  }

  /** The error write commands get now, or null. */
  get writeError(): string | null {
    return this.state.writeError;
  }

  /** Connected clients. */
  get clientCount(): number {
    return this.state.clients.size;
  }

  /** Stops accepting, disconnects every client, then closes the databases. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.health.stop();
      this.state.metrics.stop();
      this.state.idleClients.stop();
      for (const onServerClose of this.state.hooks.onServerClose) onServerClose(this.state);
      this.state.accessTicker.stop();
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const c of this.state.clients.values()) c.kill();
      await closed;
      await this.keyspace.closeAll();
    })();
    return this.closing;
  }

  /**
   * Serves a connection accepted on a listener of the app's own (more
   * addresses than listen's one), with the same checks as listen's.
   * `unixSocket`: the path of the Unix socket it came through: local to
   * protected mode (Redis's connIsLocal), shown as `<path>:0` with flag U.
   */
  accept(socket: Socket, unixSocket?: string): void {
    const state = this.state;
    state.stats.connections++;
    if (this.closing !== null || state.clients.size >= state.config.maxclients) {
      // Redis answers, then closes: the client sees why.
      state.stats.rejectedConnections++;
      refuse(socket, `-${maxClientsError().message}\r\n`);
      return;
    }
    if (
      state.config.protectedMode &&
      !state.authRequired &&
      unixSocket === undefined &&
      !isLoopback(socket.remoteAddress)
    ) {
      refuse(socket, PROTECTED_MODE_REPLY);
      return;
    }
    if (state.config.tcpKeepAlive > 0) socket.setKeepAlive(true, state.config.tcpKeepAlive * 1000);
    const client = new Client(state, socket);
    if (unixSocket !== undefined) client.unixSocket = unixSocket;
    state.clients.set(client.id, client);
    state.expiryPace.clientsChanged(state.clients.size);
    socket.on('error', () => {
      // A reset connection is a normal end of a client; 'close' follows.
    });
    socket.on('close', () => {
      state.clients.delete(client.id);
      state.expiryPace.clientsChanged(state.clients.size);
      client.onClose();
    });
  }
}

/**
 * `provider` with `watch` called on every store it opens or gives back
 * from a flush (StoreHealth listens to their write errors).
 */
function notifyFlags(letters: string): number {
  const flags = parseNotifyFlags(letters);
  if (flags === null) {
    throw new RangeError(`notify-keyspace-events: invalid event class character in '${letters}'`);
  }
  return flags;
}

function watchedStores(
  provider: DatabaseProvider,
  watch: (store: StoreCore) => void,
): DatabaseProvider {
  const watched = (s: StoreCore): StoreCore => {
    watch(s);
    return s;
  };
  const p = provider;
  return {
    get count() {
      return p.count;
    },
    open: (index) => p.open(index).then(watched),
    close: (index, store) => p.close(index, store),
    ...(p.flush && {
      flush: (index, store, lazily) => p.flush!(index, store, lazily).then(watched),
    }),
    ...(p.save && { save: (index, store) => p.save!(index, store) }),
    ...(p.reopen && { reopen: (index, store) => p.reopen!(index, store).then(watched) }),
    ...(p.stored && { stored: () => p.stored!() }),
    ...(p.swap && { swap: (a, b) => p.swap!(a, b) }),
    ...(p.collectionBudget && {
      collectionBudget: (index, store) => p.collectionBudget!(index, store),
    }),
  };
}

/**
 * Answers a connection that is not let in, then closes it. It is read (and
 * its input dropped) so its end is seen and the socket freed; one that keeps
 * its side open is destroyed shortly after. A reset is no error of ours.
 */
function refuse(socket: Socket, reply: string): void {
  socket.on('error', () => undefined);
  socket.end(reply);
  socket.resume();
  socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
}

/** How long a refused connection may stay half open. */
const REFUSED_LINGER_MS = 1000;
