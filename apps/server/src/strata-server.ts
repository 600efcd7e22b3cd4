import { resolve } from 'node:path';
import { RespServer } from '@strata/resp';
import { describeConfig, type ServerConfig } from './config.js';
import { Databases } from './databases.js';
import { DirLock } from './dir-lock.js';
import { commandsInFlight, waitForCommands } from './in-flight.js';
import type { LoadedConfig } from './load-config.js';
import type { Logger } from './logger.js';
import { PeriodicCheckpoints } from './periodic-checkpoints.js';
import { VERSION } from './version.js';

/** How long shutdown lets commands waiting on the disk finish before it closes anyway. */
const DRAIN_MS = 10_000;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * strata-server: a RespServer over one hlog Store per database, with
 * Redis-style logs, periodic checkpoints and a clean shutdown.
 */
export class StrataServer {
  readonly config: Readonly<ServerConfig>;
  private readonly databases: Databases;
  private readonly resp: RespServer;
  private readonly checkpoints: PeriodicCheckpoints;
  private shutdownRun: Promise<number> | null = null;
  private lock: DirLock | null = null;

  constructor(
    private readonly loaded: LoadedConfig,
    private readonly logger: Logger,
    /** Called with the exit code when a client's SHUTDOWN has run its course. */
    private readonly exit: (code: number) => void = (code) => process.exit(code),
  ) {
    const config = loaded.config;
    this.config = config;
    this.databases = new Databases({
      dir: resolve(config.dir),
      count: config.databases,
      logger,
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
      requirepass: config.requirepass,
      maxclients: config.maxclients,
      // SHUTDOWN from a client: the same clean stop as SIGTERM, then exit.
      onShutdown: () => {
        this.shutdown().then(this.exit, (e: unknown) => {
          logger.warning(`Shutdown failed: ${String(e)}`);
          this.exit(1);
        });
      },
    });
    this.checkpoints = new PeriodicCheckpoints(
      this.resp.keyspace,
      this.databases,
      config.checkpointInterval,
      logger,
    );
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
    if (!LOOPBACK.has(config.bind) && config.requirepass === null) {
      logger.warning(
        `WARNING: listening on ${config.bind} without requirepass: anyone who can reach ` +
          'this port can read and change every key.',
      );
    }
    // One server per directory, before any store opens: a second one would
    // write its pages over the first one's.
    const lock = DirLock.acquire(resolve(config.dir));
    this.lock = lock;
    process.once('exit', () => lock.release());
    logger.notice('Server initialized');
    let address: { host: string; port: number };
    try {
      address = await this.resp.listen(config.port, config.bind);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.syscall === 'listen' || err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL') {
        logger.warning(
          `Warning: Could not create server TCP listening socket ${config.bind}:${config.port}: ${err.message}`,
        );
        logger.warning(`Failed listening on port ${config.port} (tcp), aborting.`);
      }
      await this.resp.close().catch(() => undefined);
      lock.release();
      throw e;
    }
    this.checkpoints.start();
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    logger.notice(`Ready to accept connections tcp on ${host}:${address.port}`);
    return address;
  }

  /**
   * Redis's shutdown: stop the periodic checkpoints, let commands waiting on
   * the disk finish, then close: no more connections, clients dropped, every
   * open database checkpointed and closed. Resolves with the exit code.
   */
  shutdown(): Promise<number> {
    this.shutdownRun ??= this.runShutdown();
    return this.shutdownRun;
  }

  private async runShutdown(): Promise<number> {
    const { logger } = this;
    logger.notice('User requested shutdown...');
    await this.checkpoints.stop();
    const inFlight = commandsInFlight(this.resp);
    if (inFlight > 0) {
      logger.verbose(`Waiting for ${inFlight} commands in flight`);
      const left = await waitForCommands(this.resp, DRAIN_MS);
      if (left > 0)
        logger.warning(`${left} commands still in flight after ${DRAIN_MS / 1000} seconds`);
    }
    let open = 0;
    for (let i = 0; i < this.resp.keyspace.count; i++) if (this.resp.keyspace.get(i)) open++;
    logger.notice(
      `Closing ${this.resp.clientCount} client connections; checkpointing ${open} open ` +
        `database${open === 1 ? '' : 's'} before exiting.`,
    );
    try {
      await this.resp.close();
    } catch (e) {
      logger.warning(`Error trying to save the databases: ${(e as Error).message}`);
      return 1;
    } finally {
      this.lock?.release();
    }
    logger.warning('Strata is now ready to exit, bye bye...');
    return 0;
  }
}
