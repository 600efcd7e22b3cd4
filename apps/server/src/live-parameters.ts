import { accessSync, constants, mkdirSync } from 'node:fs';
import { type AppendOnlyFile, type FsyncPolicy, isFsyncPolicy } from '@strata/aof';
import type { StoreCore } from '@strata/hlog';
import type { AppParameter } from '@strata/resp';
import type { Databases, PeriodicCheckpoints } from '@strata/store';
import type { AofSwitch } from './aof-switch.js';
import { formatSaveRules, type LogLevel, parseSaveRules } from './config.js';
import type { Logger } from './logger.js';
import type { OomScore, OomScoreMode } from './oom-score.js';
import type { ProcTitle } from './proc-title.js';
import {
  DEFAULT_SHUTDOWN,
  formatShutdownOptions,
  parseShutdownOptions,
  type ShutdownOptions,
} from './shutdown-options.js';
import type { Watchdog } from './watchdog.js';

/** Redis's reason when the AOF cannot be started (config.c's updateAppendonly). */
const AOF_FAILED = 'Unable to turn on AOF. Check server logs.';

/** Redis's reason when oom_score_adj cannot be written (config.c's updateOOMScoreAdj). */
const OOM_FAILED = 'Failed to set current oom_score_adj. Check server logs.';

/** The settings CONFIG SET changes in strata-server, besides the parts they drive. */
export class LiveSettings {
  appendfsync: FsyncPolicy;
  /** Redis's maxmemory as given (0: the log memory `memory` says). */
  maxmemory: number;
  shutdownOnSigint: ShutdownOptions = DEFAULT_SHUTDOWN;
  shutdownOnSigterm: ShutdownOptions = DEFAULT_SHUTDOWN;
  /** Seconds shutdown waits for commands in flight (Redis: for replicas to catch up). */
  shutdownTimeout = 10;
  /** A failed checkpoint refuses writes while save rules are set (Redis's stop-writes-on-bgsave-error). */
  stopWritesOnSaveError = true;
  /** aof-load-truncated: a torn last AOF record is cut at start (yes), or refuses the start (no). */
  aofLoadTruncated = true;
  /** The automatic AOF rewrite (aof-rewrite.ts): Redis's defaults, 100% growth over 64 MiB. */
  autoAofRewritePercentage = 100;
  autoAofRewriteMinSize = 64 * 1024 * 1024;

  constructor(config: { appendfsync: FsyncPolicy; maxmemory: number }) {
    this.appendfsync = config.appendfsync;
    this.maxmemory = config.maxmemory;
  }
}

/** What the live parameters act on. */
export interface LiveTargets {
  readonly settings: LiveSettings;
  readonly logger: Logger;
  readonly checkpoints: PeriodicCheckpoints;
  readonly databases: Databases;
  /** The open AOF (null with appendonly no). */
  aof(): AppendOnlyFile | null;
  /** CONFIG SET appendonly's switch, and the directory a new AOF goes in. */
  readonly aofSwitch: AofSwitch;
  readonly aofDir: string;
  /** watchdog-period's stall reports. */
  readonly watchdog: Watchdog;
  /** The log memory a database opens with for a maxmemory (0: the default). */
  logMemory(maxmemory: number): number;
  /** The databases open now (CONFIG SET maxmemory changes their log memory too). */
  openStores(): readonly StoreCore[];
  /** The open databases' log memory changed: their collection caches' budgets follow (half of it). */
  memoryChanged(): void;
  /** A full garbage collection, where one can be had (the old rings of a shrink are freed then). */
  releaseMemory(): void;
  readonly oom: OomScore;
  readonly procTitle: ProcTitle;
  /** The save rules or stop-writes-on-bgsave-error changed: whether writes stop is decided again. */
  saveRulesChanged(): void;
}

/**
 * The parameters strata-server acts on that CONFIG SET changes live
 * (RespServerOptions.appParameters). Each applies at once, as in Redis,
 * except where the note on resp's parameter row says otherwise.
 */
export function liveParameters(t: LiveTargets): Record<string, AppParameter> {
  const { settings, logger } = t;
  return {
    appendonly: {
      get: () => (t.aofSwitch.on ? 'yes' : 'no'),
      set(text) {
        const on = text === 'yes';
        if (on && !t.aofSwitch.on) {
          // What Redis's start of an AOF checks before its OK: a directory it can write in.
          try {
            mkdirSync(t.aofDir, { recursive: true });
            accessSync(t.aofDir, constants.W_OK);
          } catch (e) {
            logger.warning(
              `Can't open the append-only file in ${t.aofDir}: ${(e as Error).message}`,
            );
            return AOF_FAILED;
          }
        }
        t.aofSwitch.set(on);
        return undefined;
      },
    },
    appendfsync: {
      get: () => settings.appendfsync,
      set(text) {
        if (!isFsyncPolicy(text)) return 'argument must be one of everysec, always, no';
        settings.appendfsync = text;
        t.aof()?.setPolicy(text);
        return undefined;
      },
    },
    save: {
      get: () => formatSaveRules(t.checkpoints.rules),
      set(text) {
        t.checkpoints.setRules(parseSaveRules(text));
        t.saveRulesChanged();
        return undefined;
      },
    },
    'stop-writes-on-bgsave-error': {
      get: () => (settings.stopWritesOnSaveError ? 'yes' : 'no'),
      set(text) {
        settings.stopWritesOnSaveError = text === 'yes';
        t.saveRulesChanged();
        return undefined;
      },
    },
    'watchdog-period': {
      get: () => String(t.watchdog.period),
      set(text) {
        t.watchdog.setPeriod(Number(text));
        return undefined;
      },
    },
    'aof-load-truncated': {
      get: () => (settings.aofLoadTruncated ? 'yes' : 'no'),
      set(text) {
        settings.aofLoadTruncated = text === 'yes';
        return undefined;
      },
    },
    'auto-aof-rewrite-percentage': {
      get: () => String(settings.autoAofRewritePercentage),
      set(text) {
        settings.autoAofRewritePercentage = Number(text);
        return undefined;
      },
    },
    'auto-aof-rewrite-min-size': {
      get: () => String(settings.autoAofRewriteMinSize),
      set(text) {
        settings.autoAofRewriteMinSize = Number(text);
        return undefined;
      },
    },
    loglevel: {
      // strata's own `nothing` is no Redis level: CONFIG GET shows Redis's default.
      get: () => (logger.level === 'nothing' ? 'notice' : logger.level),
      set(text) {
        logger.level = text as LogLevel;
        return undefined;
      },
    },
    maxmemory: {
      get: () => String(settings.maxmemory),
      set(text) {
        const n = Number(text);
        settings.maxmemory = n;
        const memory = t.logMemory(n);
        t.databases.setMemory(memory);
        // Open databases too: growing applies at once, shrinking once the
        // pages past the new bound are flushed (in the background, as
        // Redis evicts in steps after CONFIG SET maxmemory).
        const stores = t.openStores();
        const shrinks = stores.some((s) => s.log.memoryBytes > memory);
        const changes = stores.map((store) =>
          store.setMemory(memory).catch((e: unknown) => {
            logger.warning(`maxmemory ${text}: the log memory stays as it was: ${String(e)}`);
            return false;
          }),
        );
        void Promise.all(changes).then(() => {
          t.memoryChanged();
          // An idle server may not collect for minutes: the old rings go now.
          if (shrinks) t.releaseMemory();
        });
        logger.notice(`maxmemory ${text}: ${memory} bytes of log memory per database`);
        return undefined;
      },
    },
    'oom-score-adj': {
      get: () => (t.oom.mode === 'relative' ? 'yes' : t.oom.mode),
      set(text) {
        const old = t.oom.mode;
        t.oom.mode = text as OomScoreMode;
        if (t.oom.apply()) return undefined;
        t.oom.mode = old;
        return OOM_FAILED;
      },
    },
    'oom-score-adj-values': {
      get: () => t.oom.values.join(' '),
      set(text) {
        const old = t.oom.values;
        const [a = 0, b = 0, c = 0] = text.split(' ').map(Number);
        t.oom.values = [a, b, c];
        if (t.oom.mode === 'no' || t.oom.apply()) return undefined;
        t.oom.values = old;
        return OOM_FAILED;
      },
    },
    'proc-title-template': {
      get: () => t.procTitle.template,
      set(text) {
        t.procTitle.template = text;
        t.procTitle.apply();
        return undefined;
      },
    },
    'shutdown-on-sigint': {
      get: () => formatShutdownOptions(settings.shutdownOnSigint),
      set(text) {
        settings.shutdownOnSigint = parseShutdownOptions(text);
        return undefined;
      },
    },
    'shutdown-on-sigterm': {
      get: () => formatShutdownOptions(settings.shutdownOnSigterm),
      set(text) {
        settings.shutdownOnSigterm = parseShutdownOptions(text);
        return undefined;
      },
    },
    'shutdown-timeout': {
      get: () => String(settings.shutdownTimeout),
      set(text) {
        settings.shutdownTimeout = Number(text);
        return undefined;
      },
    },
  };
}
