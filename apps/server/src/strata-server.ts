import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { join, resolve } from 'node:path';
import {
  type AofError,
  type AofFileSystem,
  AppendOnlyFile,
  type AppendOnlyFileOptions,
} from '@strata/aof';
import type { StoreCore } from '@strata/hlog';
import type { DirLock } from '@strata/io';
import { BGSAVE_ERROR_MESSAGE, fileFunctionStore, RespServer } from '@strata/resp';
import {
  AofClock,
  type AofLoaded,
  aofCommandLog,
  aofRefusedCommands,
  Databases,
  PeriodicCheckpoints,
  PeriodicCommits,
  replayAof,
  reportAofWriteStatus,
} from '@strata/store';
import { aofConfigValues, aofInfoLines } from './aof-info.js';

import { AofRewrite, bgrewriteaofCommand } from './aof-rewrite.js';
import { AofSwitch } from './aof-switch.js';
import { bindAddresses, hostPort, isExposed } from './bind-addresses.js';
import { describeConfig, logMemoryFor, type ServerConfig } from './config.js';
import { fileConfigRewrite } from './config-rewrite-file.js';
import { lockServerDir } from './dir-lock.js';
import { fullCollection } from './full-collection.js';
import { commandsInFlight, waitForCommands } from './in-flight.js';
import {
  type BoundAddresses,
  ExtraListeners,
  listenFailed,
  primaryAddress,
  probeAddresses,
} from './listeners.js';
import { LiveSettings, liveParameters } from './live-parameters.js';
import type { LoadedConfig } from './load-config.js';
import { LogCompaction } from './log-compaction.js';
import type { Logger } from './logger.js';
import { OomScore } from './oom-score.js';
import { removePidFile, writePidFile } from './pid-file.js';
import { ProcTitle } from './proc-title.js';
import { FUNCTIONS_FILE } from './rdb-import-run.js';
import { givenValue, startupConfigSets, startupConfigValues } from './redis-parameters.js';
import type { ShutdownOptions } from './shutdown-options.js';
import { listenUnix, removeUnixSocket } from './unix-socket.js';
import { VERSION } from './version.js';
import { Watchdog } from './watchdog.js';

/**
 * strata-server: a RespServer over one hlog Store per database, with
 * Redis-style logs, periodic checkpoints and a clean shutdown.
 */
export class StrataServer {
  readonly config: Readonly<ServerConfig>;
  private readonly databases: Databases;
  private readonly resp: RespServer;
  private readonly checkpoints: PeriodicCheckpoints;
  private readonly commits: PeriodicCommits;
  private readonly compaction: LogCompaction;
  /** BGREWRITEAOF and the automatic rewrite: checkpoints of every database, each cutting the AOF. */
  private readonly aofRewrite: AofRewrite;
  private shutdownRun: Promise<number> | null = null;
  private lock: DirLock | null = null;
  private aof: AppendOnlyFile | null = null;
  /** CONFIG SET appendonly's switch of the AOF, live. */
  private readonly aofSwitch: AofSwitch;
  /** The command log into the AOF, in use while one is open (useAof). */
  private readonly commandLog = aofCommandLog(
    () => this.aof!,
    () => this.resp.keyspace,
  );
  /** What the AOF's replay at start applied, skipped, and where it resumed at a commit point. */
  private aofLoaded: AofLoaded | null = null;
  /** Listeners on the bind addresses after the one RespServer listens on. */
  private readonly extraListeners: ExtraListeners;
  /** The pidfile this process wrote, removed at exit. */
  private pidfile: string | null = null;
  /** With the AOF on, the stores' clock: AOF records are stamped with it, replay sets it. */
  private readonly clock = new AofClock();
  /** What CONFIG SET changes here (live-parameters.ts). */
  private readonly settings: LiveSettings;
  private readonly oom: OomScore;
  private readonly procTitle = new ProcTitle();
  /** watchdog-period's stall reports (off until set). */
  private readonly watchdog: Watchdog;
  /** The `unixsocket` listener, if any. */
  private unixServer: Server | null = null;
  /** tcp-backlog was compared with somaxconn (Redis warns once). */
  private backlogChecked = false;

  constructor(
    private readonly loaded: LoadedConfig,
    private readonly logger: Logger,
    /** Called with the exit code when a client's SHUTDOWN has run its course. */
    private readonly exit: (code: number) => void = (code) => process.exit(code),
    /** Tests: the file system under the AOF (a failing one). */
    private readonly aofFileSystem?: AofFileSystem,
  ) {
    const config = loaded.config;
    this.config = config;
    this.settings = new LiveSettings(config);
    this.watchdog = new Watchdog(
      { pid: process.pid, logfile: config.logfile === '' ? '' : resolve(config.logfile) },
      (ms, period) =>
        logger.warning(
          `WATCHDOG: the event loop was blocked for ${ms} ms (watchdog-period ${period})`,
        ),
    );
    this.settings.aofLoadTruncated = givenValue(loaded, 'aof-load-truncated') !== 'no';
    this.oom = new OomScore(logger);
    this.databases = new Databases({
      dir: resolve(config.dir),
      count: config.databases,
      logger,
      missingCheckpoint: config.aofMissingCheckpoint,
      aofClock: this.clock.now,
      store: {
        memory: config.memory,
        pageSize: config.pageSize,
        segmentSize: config.segmentSize,
        indexBuckets: config.indexSize / 64,
        mutableFraction: config.mutableFraction,
      },
    });
    this.resp = new RespServer({
      databases: this.databases,
      // FUNCTION LOAD's libraries, saved before its OK (no AOF needed).
      functionStore: fileFunctionStore(join(resolve(config.dir), FUNCTIONS_FILE)),
      requirepass: config.requirepass,
      maxclients: config.maxclients,
      notifyKeyspaceEvents: config.notifyKeyspaceEvents,
      protectedMode: config.protectedMode,
      infoSections: {
        persistence: () => [
          ...this.databases.saveStatus.infoLines(this.changesSinceSave()),
          ...aofInfoLines(this.aof, this.aofRewrite, this.aofLoaded, this.aofSwitch.on),
          ...this.databases.recoveryInfoLines(),
        ],
      },
      log: (level, message) => logger[level](message),
      // Made at first use: its context costs ~2 ms of every start.
      releaseMemory: () => fullCollection()?.(),
      users: loaded.users,
      configValues: { ...startupConfigValues(loaded), ...aofConfigValues(config) },
      appParameters: this.liveParameters(),
      ...(loaded.configFile === null
        ? {}
        : { configRewrite: fileConfigRewrite(loaded.configFile) }),
      // The command log is the AOF's while one is open (useAof).
      commands: [
        ...aofRefusedCommands(() => this.aof !== null && this.aofSwitch.on),
        bgrewriteaofCommand(() => this.aofRewrite),
      ],
      // SHUTDOWN from a client: the same clean stop as SIGTERM, then exit
      // (NOSAVE: without the checkpoints).
      onShutdown: (mode) => {
        const options = { save: false, nosave: mode === 'nosave', now: false, force: false };
        this.shutdown(options).then(this.exit, (e: unknown) => {
          logger.warning(`Shutdown failed: ${String(e)}`);
          this.exit(1);
        });
      },
    });
    this.databases.saveStatus.onChange = () => this.stopWritesOnSaveError();
    this.checkpoints = new PeriodicCheckpoints(
      this.resp.keyspace,
      this.databases,
      config.save,
      logger,
    );
    this.aofRewrite = new AofRewrite(
      () => this.resp.keyspace,
      this.databases,
      () => this.aof,
      this.settings,
      logger,
    );
    this.commits = new PeriodicCommits(
      this.resp.keyspace,
      this.databases,
      config.commitInterval,
      () => this.aof !== null,
    );
    this.compaction = new LogCompaction(
      this.resp.keyspace,
      this.databases,
      config.compactionThreshold,
    );
    this.extraListeners = new ExtraListeners((socket) => this.resp.accept(socket));
    this.aofSwitch = new AofSwitch(
      {
        logger,
        rewrite: this.aofRewrite,
        keyspace: () => this.resp.keyspace,
        current: () => this.aof,
        create: () => AppendOnlyFile.create(this.aofOptions()),
        use: (aof) => this.useAof(aof),
        stopLogging: () => this.resp.setCommandLog(null),
        exclusive: (fn) => this.resp.exclusive(fn),
        pauseBackground: () => this.pauseBackground(),
      },
      config.appendonly,
    );
  }

  /** The AOF's options: in `dir`/`appenddirname`, write failures refusing writes (aofWriteStatus). */
  private aofOptions(): AppendOnlyFileOptions {
    const { config, logger } = this;
    return {
      dir: join(resolve(config.dir), config.appenddirname),
      filename: config.appendfilename,
      policy: this.settings.appendfsync,
      logger: { warn: (m) => logger.warning(m) },
      onWriteStatus: (e) => this.aofWriteStatus(e),
      ...(this.aofFileSystem !== undefined ? { fs: this.aofFileSystem } : {}),
    };
  }

  /** `aof` (null: none) is the one the databases opened from now on and the command log use. */
  private useAof(aof: AppendOnlyFile | null): void {
    this.aof = aof;
    this.databases.useAof(aof);
    this.resp.setCommandLog(aof === null ? null : this.commandLog);
    if (aof === null) this.resp.setWriteError(null);
  }

  /**
   * Stops the periodic checkpoints, commit points, compaction (once what
   * runs has ended) and the automatic AOF rewrite's timer: a CONFIG SET
   * appendonly switch runs as a rewrite, or after one. The returned
   * function starts them again.
   */
  private async pauseBackground(): Promise<() => void> {
    this.aofRewrite.pause();
    await Promise.all([this.checkpoints.stop(), this.commits.stop(), this.compaction.stop()]);
    return () => {
      if (this.shutdownRun !== null) return;
      this.checkpoints.start();
      this.commits.start();
      this.compaction.start();
      this.aofRewrite.start();
    };
  }

  /** CONFIG SET's way to what strata-server acts on (RespServerOptions.appParameters). */
  private liveParameters(): ReturnType<typeof liveParameters> {
    const server = this;
    return liveParameters({
      settings: this.settings,
      logger: this.logger,
      get checkpoints() {
        return server.checkpoints;
      },
      databases: this.databases,
      aof: () => this.aof,
      get aofSwitch() {
        return server.aofSwitch;
      },
      aofDir: join(resolve(this.config.dir), this.config.appenddirname),
      watchdog: this.watchdog,
      logMemory: (maxmemory) => logMemoryFor(maxmemory, this.config),
      openStores: () => this.openStores(),
      memoryChanged: () => this.resp.keyspace.updateCollectionBudgets(),
      releaseMemory: () => fullCollection()?.(),
      oom: this.oom,
      procTitle: this.procTitle,
      saveRulesChanged: () => this.stopWritesOnSaveError(),
    });
  }

  /**
   * Redis's stop-writes-on-bgsave-error: while the last checkpoint failed
   * and save rules are set, writes are refused before they run (Redis's
   * RDB MISCONF); the periodic checkpoints retry every 5 seconds, and the
   * first that succeeds lets writes in again.
   */
  private stopWritesOnSaveError(): void {
    const stop =
      this.settings.stopWritesOnSaveError &&
      this.checkpoints.rules.length > 0 &&
      this.databases.saveStatus.lastStatus === 'err';
    this.resp.setSaveError(stop ? BGSAVE_ERROR_MESSAGE : null);
  }

  /** Logs the banner, opens database 0, listens, starts the checkpoint timer. */
  async start(): Promise<{ host: string; port: number }> {
    const { config, logger, loaded } = this;
    logger.notice('oO0OoO0OoO0Oo Strata is starting oO0OoO0OoO0Oo');
    logger.notice(
      `Strata version=${VERSION}, node=${process.version}, bits=64, pid=${process.pid}, just started`,
    );
    if (loaded.configFile !== null) logger.notice(`Configuration loaded from ${loaded.configFile}`);
    else logger.notice('No config file given: defaults and command-line options only');
    for (const note of loaded.notes) logger.warning(note);
    logger.notice(`Config: ${describeConfig({ ...config, dir: resolve(config.dir) })}`);
    this.warnAboutConfig();
    // Every address is tried before anything is written to --dir: a port
    // in use must not leave a fresh directory behind.
    let addresses: BoundAddresses;
    try {
      addresses = await probeAddresses(bindAddresses(config.bind), config.port, logger);
    } catch (e) {
      await this.resp.close().catch(() => undefined);
      throw e;
    }
    // One server per directory, before any store opens: a second one would
    // write its pages over the first one's.
    const lock = lockServerDir(resolve(config.dir));
    this.lock = lock;
    process.once('exit', () => lock.release());
    if (config.pidfile !== '' && writePidFile(config.pidfile, logger)) {
      const pidfile = config.pidfile;
      this.pidfile = pidfile;
      process.once('exit', () => this.releasePidFile());
    }
    logger.notice('Server initialized');
    let address: { host: string; port: number };
    try {
      // The file's values of the parameters resp keeps, before any client.
      for (const argv of startupConfigSets(loaded)) {
        await this.resp.execute(
          0,
          argv.map((a) => Buffer.from(a)),
        );
      }
      // Those were no client's commands: INFO's counters start from zero.
      await this.resp.execute(0, [Buffer.from('CONFIG'), Buffer.from('RESETSTAT')]);
      if (config.appendonly) await this.loadAof();
      address = await this.listen(addresses);
      const unixsocket = givenValue(loaded, 'unixsocket');
      if (unixsocket !== '') {
        const perm = Number.parseInt(givenValue(loaded, 'unixsocketperm'), 8);
        this.unixServer = await listenUnix(
          unixsocket,
          perm,
          this.backlog(),
          (socket) => this.resp.accept(socket, unixsocket),
          logger,
        );
      }
    } catch (e) {
      this.extraListeners.close();
      this.unixServer?.close();
      await this.resp.close().catch(() => undefined);
      this.releasePidFile();
      lock.release();
      throw e;
    }
    this.checkpoints.start();
    this.aofRewrite.start();
    this.commits.start();
    this.compaction.start();
    this.oom.start();
    this.watchdog.setPeriod(Number(givenValue(loaded, 'watchdog-period')));
    const unixsocket = givenValue(loaded, 'unixsocket');
    this.procTitle.start(
      {
        title: process.argv[1] ?? process.argv0,
        bind: config.bind[0] ?? '*',
        port: address.port,
        unixsocket,
        configFile: loaded.configFile,
      },
      givenValue(loaded, 'set-proc-title') === 'yes',
    );
    const where = [address.host, ...this.extraListeners.hosts()].map((h) =>
      hostPort(h, address.port),
    );
    logger.notice(`Ready to accept connections tcp on ${where.join(', ')}`);
    if (this.unixServer !== null) {
      logger.notice(`The server is now ready to accept connections at ${unixsocket}`);
    }
    return address;
  }

  /**
   * Redis's tcp-backlog, for every listener. Redis warns when the kernel
   * caps it lower (checkTcpBacklogSettings); so does this, once.
   */
  private backlog(): number {
    const backlog = Number(givenValue(this.loaded, 'tcp-backlog'));
    if (!this.backlogChecked) {
      this.backlogChecked = true;
      let somaxconn: number | null = null;
      try {
        somaxconn = Number.parseInt(readFileSync('/proc/sys/net/core/somaxconn', 'latin1'), 10);
      } catch {
        // Not Linux: nothing to compare with, as Redis.
      }
      if (somaxconn !== null && somaxconn < backlog) {
        this.logger.warning(
          `WARNING: The TCP backlog setting of ${backlog} cannot be enforced because ` +
            `/proc/sys/net/core/somaxconn is set to the lower value of ${somaxconn}.`,
        );
      }
    }
    return backlog;
  }

  /** RespServer listens on one address, this server's own listeners on the others. */
  private async listen(addresses: BoundAddresses): Promise<{ host: string; port: number }> {
    const { config, logger } = this;
    const primary = primaryAddress(addresses);
    let address: { host: string; port: number };
    try {
      address = await this.resp.listen(config.port, primary.host, this.backlog());
    } catch (e) {
      // listen opens database 0 first: a store that cannot open is no address's fault.
      const syscall = (e as NodeJS.ErrnoException).syscall;
      if (syscall !== 'listen' && syscall !== 'getaddrinfo') throw e;
      throw listenFailed(logger, primary, config.port, e);
    }
    // Port 0 took a free port: the other addresses listen on the same one.
    await this.extraListeners.listen(
      addresses.filter((a) => a !== primary),
      address.port,
      this.backlog(),
      logger,
    );
    return address;
  }

  /** The configuration's warnings: what is not used, and who can connect. */
  private warnAboutConfig(): void {
    const { config, logger, loaded } = this;
    if (loaded.unused.length > 0) {
      logger.warning(
        `Not used by strata-server (accepted, CONFIG GET shows them): ${loaded.unused.join(', ')}`,
      );
    }
    const syslog = loaded.parameters.filter((p) => p.name === 'syslog-enabled').at(-1);
    if (syslog?.text === 'yes') {
      logger.warning(
        'syslog-enabled yes: strata-server does not write to syslog; its log goes to ' +
          (config.logfile === '' ? 'standard output' : config.logfile),
      );
    }
    const exposed = bindAddresses(config.bind).filter(isExposed);
    if (exposed.length > 0 && config.requirepass === null && !config.protectedMode) {
      logger.warning(
        `WARNING: listening on ${exposed.map((a) => a.shown).join(' ')} without requirepass and ` +
          'with protected-mode no: anyone who can reach this port can read and change every key.',
      );
    }
  }

  private releasePidFile(): void {
    if (this.pidfile !== null) removePidFile(this.pidfile, this.logger);
    this.pidfile = null;
  }

  /**
   * Opens the append-only file and replays it before any client connects:
   * each database opens at the checkpoint the AOF names, then gets the
   * commands after it. Write errors of the AOF refuse writes (MISCONF) until
   * writing works again.
   */
  private async loadAof(): Promise<void> {
    const aof = await AppendOnlyFile.open(this.aofOptions());
    this.useAof(aof);
    this.aofLoaded = await replayAof(aof, {
      resp: this.resp,
      databases: this.databases,
      clock: this.clock,
      logger: this.logger,
      loadTruncated: this.settings.aofLoadTruncated,
    });
  }

  /** The databases open now. */
  private openStores(): StoreCore[] {
    const keyspace = this.resp.keyspace;
    const stores: StoreCore[] = [];
    for (let i = 0; i < keyspace.count; i++) {
      const store = keyspace.get(i);
      if (store !== undefined) stores.push(store);
    }
    return stores;
  }

  /** Writes to the open databases since their last checkpoints (rdb_changes_since_last_save). */
  private changesSinceSave(): number {
    const keyspace = this.resp.keyspace;
    let n = 0;
    for (let i = 0; i < keyspace.count; i++) {
      const store = keyspace.get(i);
      if (store !== undefined) n += this.databases.changesSinceCheckpoint(i, store) ?? 0;
    }
    return n;
  }

  /**
   * The AOF's writes failed (once per episode: the writer reports changes
   * of state, not each retry) or work again. Meanwhile writes are refused
   * before they run (MISCONF, Redis's wording without the path).
   */
  private aofWriteStatus(e: AofError | null): void {
    reportAofWriteStatus(e, this.aof?.currentPath ?? 'appendonly.aof', this.logger, (m) =>
      this.resp.setWriteError(m),
    );
  }

  /**
   * Redis's shutdown: stop the periodic checkpoints, let commands waiting on
   * the disk finish, then close: no more connections, clients dropped, every
   * open database checkpointed and closed. Resolves with the exit code.
   */
  shutdown(options: ShutdownOptions | NodeJS.Signals = 'SIGTERM'): Promise<number> {
    const chosen =
      options === 'SIGINT'
        ? this.settings.shutdownOnSigint
        : typeof options === 'string'
          ? this.settings.shutdownOnSigterm
          : options;
    this.shutdownRun ??= this.runShutdown(chosen);
    return this.shutdownRun;
  }

  /**
   * `options`: shutdown-on-sigint/sigterm's flags (SHUTDOWN's NOSAVE):
   * `nosave` closes the databases without checkpoints, `now` does not wait
   * for commands in flight (else up to shutdown-timeout seconds, Redis's
   * wait for replicas), `force` exits 0 even when a database failed to
   * save. `save` and `default` checkpoint, with or without save rules:
   * a checkpoint only shortens the next start, the log is durable anyway.
   */
  private async runShutdown(options: ShutdownOptions): Promise<number> {
    const { logger } = this;
    logger.notice('User requested shutdown...');
    // A CONFIG SET appendonly switch ends first: the databases are reopened in it.
    await this.aofSwitch.settled();
    await this.checkpoints.stop();
    await this.aofRewrite.stop();
    await this.commits.stop();
    await this.compaction.stop();
    this.watchdog.stop();
    const inFlight = commandsInFlight(this.resp);
    if (inFlight > 0 && !options.now) {
      const wait = this.settings.shutdownTimeout;
      logger.verbose(`Waiting for ${inFlight} commands in flight`);
      const left = await waitForCommands(this.resp, wait * 1000);
      if (left > 0) logger.warning(`${left} commands still in flight after ${wait} seconds`);
    }
    this.databases.checkpointOnClose = !options.nosave;
    let open = 0;
    for (let i = 0; i < this.resp.keyspace.count; i++) if (this.resp.keyspace.get(i)) open++;
    logger.notice(
      `Closing ${this.resp.clientCount} client connections; ${options.nosave ? 'closing' : 'checkpointing'} ${open} open ` +
        `database${open === 1 ? '' : 's'} before exiting.`,
    );
    this.extraListeners.close();
    if (this.unixServer !== null) {
      removeUnixSocket(givenValue(this.loaded, 'unixsocket'), logger);
      this.unixServer.close();
      this.unixServer = null;
    }
    try {
      await this.resp.close();
      if (this.aof !== null) {
        logger.notice('Calling fsync() on the AOF file.');
        await this.aof.close();
      }
    } catch (e) {
      logger.warning(`Error trying to save the databases: ${(e as Error).message}`);
      if (options.force) logger.warning('Errors trying to shut down the server ignored (force).');
      return options.force ? 0 : 1;
    } finally {
      this.lock?.release();
      this.releasePidFile();
    }
    logger.warning('Strata is now ready to exit, bye bye...');
    return 0;
  }
}
