import { constants as bufferConstants } from 'node:buffer';
import { FSYNC_POLICIES, type FsyncPolicy, isFsyncPolicy } from '@strata/aof';
import { StrataError } from '@strata/io';
import { formatNotifyFlags, formatSize, parseNotifyFlags, parseSize } from '@strata/resp';
import type { MissingCheckpointPolicy, SaveRule } from '@strata/store';
import type { ServerErrorCode } from './errors.js';

export const LOG_LEVELS = ['debug', 'verbose', 'notice', 'warning', 'nothing'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything strata-server can be told, after defaults, config file and flags. */
export interface ServerConfig {
  /** TCP port; 0 takes any free port (the ready line says which). */
  port: number;
  /** Addresses to listen on, as Redis writes them: `*`, `::*`, a `-` before an optional one. */
  bind: readonly string[];
  /** Data directory: database n lives in `<dir>/<n>`. */
  dir: string;
  /** Log memory (page frames) of each open database, in bytes. */
  memory: number;
  /** The log memory `memory` asked for (or its default): what `maxmemory 0` means. */
  defaultMemory: number;
  /** Redis's maxmemory as given (0: none); a value other than 0 is the log memory. */
  maxmemory: number;
  pageSize: number;
  segmentSize: number;
  /** Initial hash index size of each database, in bytes (64-byte buckets; it grows online). */
  indexSize: number;
  mutableFraction: number;
  databases: number;
  requirepass: string | null;
  maxclients: number;
  /** When the databases that changed are checkpointed (empty: only on SAVE and shutdown). */
  save: readonly SaveRule[];
  logLevel: LogLevel;
  /** Log every write command to the append-only file (Redis's `appendonly`). */
  appendonly: boolean;
  appendfsync: FsyncPolicy;
  /** Base name of the AOF files, in `<dir>/<appenddirname>`. */
  appendfilename: string;
  appenddirname: string;
  /**
   * With the AOF on, a database whose log is there but not the checkpoint
   * the AOF replays onto (or whose log ends before that checkpoint's end):
   * refuse to start (Redis's way with a missing AOF base), or rebuild its
   * index from the log up to that checkpoint's end and replay the AOF on it.
   */
  aofMissingCheckpoint: MissingCheckpointPolicy;
  /** Compact a database's log once it holds more than this on disk; 0: never. */
  compactionThreshold: number;
  /**
   * Milliseconds between commit points of a database that changed (a
   * fold-over, flush and sync of its log, recorded; 0: none): a crash
   * recovers the newest one from the log, and the AOF replays only what
   * came after it (see databases.ts).
   */
  commitInterval: number;
  /** Keyspace events to publish, in Redis's letters ('' none). */
  notifyKeyspaceEvents: string;
  /** With no requirepass, only loopback clients are served (Redis's DENIED for the others). */
  protectedMode: boolean;
  /** Run in the background (a detached copy of the process), as Redis's daemonize. */
  daemonize: boolean;
  /** File that holds the pid while the server runs ('' none). */
  pidfile: string;
  /** File the log is appended to ('' standard output). */
  logfile: string;
  /** An RDB file to load into `dir` before anything else ('' none); see rdb-import-run.ts. */
  importRdb: string;
  /** The import may go into a directory that holds data (its keys replaced by the file's). */
  importMerge: boolean;
  /** After the import, start serving instead of exiting. */
  importServe: boolean;
}

export const DEFAULT_CONFIG: Readonly<ServerConfig> = {
  port: 6379,
  bind: ['127.0.0.1'],
  dir: './data',
  memory: 64 * 1024 ** 2,
  defaultMemory: 64 * 1024 ** 2,
  maxmemory: 0,
  pageSize: 1024 ** 2,
  segmentSize: 1024 ** 3,
  // Small at first (16384 buckets): it grows online with the keys, a bucket
  // at a time, so a new server's index is not resident ahead of its keys.
  indexSize: 1024 ** 2,
  mutableFraction: 0.9,
  databases: 16,
  requirepass: null,
  maxclients: 10_000,
  save: [{ seconds: 300, changes: 1 }],
  logLevel: 'notice',
  appendonly: false,
  appendfsync: 'everysec',
  appendfilename: 'appendonly.aof',
  appenddirname: 'appendonlydir',
  aofMissingCheckpoint: 'refuse',
  compactionThreshold: 0,
  commitInterval: 1000,
  notifyKeyspaceEvents: '',
  protectedMode: true,
  daemonize: false,
  pidfile: '',
  logfile: '',
  importRdb: '',
  importMerge: false,
  importServe: false,
};

/** Where a daemonized server writes its pid when no pidfile is given (Redis: /var/run/redis.pid). */
export const DEFAULT_DAEMON_PIDFILE = '/var/run/strata-server.pid';

/** A value a setting refuses; the message is the reason, in Redis's words where Redis has some. */
export class ConfigError extends StrataError<ServerErrorCode> {
  override name = 'ConfigError';

  constructor(message: string) {
    super('ERR_CONFIG_VALUE', message);
  }
}

/**
 * One setting strata-server acts on: `port 7000` in a config file,
 * `--port 7000` on the command line.
 */
export interface Setting {
  readonly name: string;
  /**
   * Redis's parameter of the same name (resp's table): a value is first
   * checked as CONFIG SET checks it, and `apply` gets it as CONFIG GET
   * prints it (`YES` as `yes`). Otherwise strata's own, given one value.
   */
  readonly redis: boolean;
  /** Placeholder in --help; '' keeps it out of --help and the banner. */
  readonly arg: string;
  readonly help: string;
  /** Parses `value` into `config`; throws ConfigError. */
  apply(config: ServerConfig, value: string): void;
  /** The value as the banner and --help show it. */
  show(config: Readonly<ServerConfig>): string;
}

interface Options<K extends keyof ServerConfig> {
  readonly redis?: boolean;
  readonly show?: (value: ServerConfig[K]) => string;
}

function define<K extends keyof ServerConfig>(
  name: string,
  key: K,
  arg: string,
  help: string,
  parse: (value: string) => ServerConfig[K],
  options: Options<K> = {},
): Setting {
  const show = options.show ?? String;
  return {
    name,
    redis: options.redis ?? false,
    arg,
    help,
    apply(config, value) {
      config[key] = parse(value);
    },
    show: (config) => show(config[key]),
  };
}

/** A Redis parameter strata-server acts on: resp's table has checked the value already. */
function redis<K extends keyof ServerConfig>(
  name: string,
  key: K,
  arg: string,
  help: string,
  parse: (value: string) => ServerConfig[K],
  show?: (value: ServerConfig[K]) => string,
): Setting {
  return define(
    name,
    key,
    arg,
    help,
    parse,
    show === undefined ? { redis: true } : { redis: true, show },
  );
}

function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value)) {
      throw new ConfigError("argument couldn't be parsed into an integer");
    }
    const n = Number(value);
    if (n < min || n > max) {
      throw new ConfigError(`argument must be between ${min} and ${max} inclusive`);
    }
    return n;
  };
}

function size(min: number, max: number, powerOfTwo = false): (value: string) => number {
  return (value) => {
    const n = parseSize(value);
    if (n === null) throw new ConfigError('argument must be a memory value');
    return sizeInRange(n, min, max, powerOfTwo);
  };
}

function sizeInRange(n: number, min: number, max: number, powerOfTwo = false): number {
  if (n < min || n > max) {
    throw new ConfigError(
      `argument must be between ${formatSize(min)} and ${formatSize(max)} inclusive`,
    );
  }
  if (powerOfTwo && (n & (n - 1)) !== 0) {
    throw new ConfigError(`argument must be a power of two (${formatSize(min)}, ... 1mb, 2mb ...)`);
  }
  return n;
}

const yes = (value: string) => value === 'yes';
const yesNo = (value: boolean) => (value ? 'yes' : 'no');
/** yes or no for strata's own settings (Redis's are checked by resp's table first). */
function yesOrNo(value: string): boolean {
  const v = value.toLowerCase();
  if (v !== 'yes' && v !== 'no') throw new ConfigError("argument must be 'yes' or 'no'");
  return v === 'yes';
}
/** A value with spaces (or none) in the banner: quoted, as in a config file. */
const quoted = (value: string) => (value === '' || value.includes(' ') ? `"${value}"` : value);

/** Redis: the AOF names are file names inside the data directory, never paths. */
function fileNameOnly(what: string): (value: string) => string {
  return (value) => {
    if (
      value === '' ||
      value.includes('/') ||
      value.includes('\\') ||
      value === '.' ||
      value === '..'
    ) {
      throw new ConfigError(`${what} can't be a path, just a filename`);
    }
    return value;
  };
}

function text(value: string): string {
  if (value === '') throw new ConfigError('argument must not be empty');
  return value;
}

/** `3600 1 300 100` as resp's check printed it (pairs of whole numbers, or ''). */
export function parseSaveRules(value: string): SaveRule[] {
  const w = value === '' ? [] : value.split(' ').map(Number);
  const rules: SaveRule[] = [];
  for (let i = 0; i + 1 < w.length; i += 2) rules.push({ seconds: w[i]!, changes: w[i + 1]! });
  return rules;
}

export function formatSaveRules(rules: readonly SaveRule[]): string {
  return rules.map((r) => `${r.seconds} ${r.changes}`).join(' ');
}

/** Page frames are one ArrayBuffer: at most what Node can allocate at once. */
const MAX_MEMORY = Math.min(bufferConstants.MAX_LENGTH, 1024 ** 4);
const MAX_PAGE = 1024 ** 3;
/** The index takes at most 2^29 initial buckets of 64 bytes. */
const MAX_INDEX = 64 * 2 ** 29;

const memory = size(1024, MAX_MEMORY);

export const SETTINGS: readonly Setting[] = [
  redis('port', 'port', '<port>', 'TCP port (0: any free one)', Number),
  redis(
    'bind',
    'bind',
    '<addr ...>',
    'addresses to listen on (*: all IPv4 ones; -addr: optional)',
    (v) => (v === '' ? [] : v.split(' ')),
    (v) => quoted(v.join(' ')),
  ),
  redis('dir', 'dir', '<path>', 'data directory; database n lives in <dir>/<n>', text),
  {
    name: 'memory',
    redis: false,
    arg: '<size>',
    help: 'log memory of each open database',
    apply(config, value) {
      config.memory = memory(value);
      config.defaultMemory = config.memory;
    },
    show: (config) => formatSize(config.memory),
  },
  define(
    'page-size',
    'pageSize',
    '<size>',
    'log page size, a power of two',
    size(512, MAX_PAGE, true),
    { show: formatSize },
  ),
  define(
    'segment-size',
    'segmentSize',
    '<size>',
    'size of each log segment file',
    size(512, 1024 ** 4),
    { show: formatSize },
  ),
  define(
    'index-size',
    'indexSize',
    '<size>',
    'initial hash index of each database',
    size(1024, MAX_INDEX),
    { show: formatSize },
  ),
  define(
    'mutable-fraction',
    'mutableFraction',
    '<0..1>',
    'share of log memory updated in place',
    (v) => {
      const n = Number(v);
      if (!/^(\d+(\.\d*)?|\.\d+)$/.test(v) || n > 1) {
        throw new ConfigError('argument must be a number between 0 and 1');
      }
      return n;
    },
  ),
  // Redis takes up to INT_MAX; a database is a directory here.
  redis('databases', 'databases', '<n>', 'number of databases', (v) => {
    const n = Number(v);
    if (n > 65536) throw new ConfigError('Invalid number of databases (1 to 65536)');
    return n;
  }),
  redis(
    'requirepass',
    'requirepass',
    '<password>',
    'password clients must AUTH with',
    (v) => (v === '' ? null : v),
    (v) => (v === null ? '(none)' : '(set)'),
  ),
  redis('maxclients', 'maxclients', '<n>', 'maximum connected clients', Number),
  redis(
    'save',
    'save',
    '<seconds changes ...>',
    'checkpoint once <changes> writes are <seconds> old ("": never)',
    parseSaveRules,
    (v) => quoted(formatSaveRules(v)),
  ),
  {
    name: 'checkpoint-interval',
    redis: false,
    arg: '<seconds>',
    help: 'checkpoint what changed this often (save <seconds> 1; 0: off)',
    apply(config, value) {
      const n = integer(0, 2_147_483)(value);
      config.save = n === 0 ? [] : [{ seconds: n, changes: 1 }];
    },
    show(config) {
      const [rule, ...more] = config.save;
      if (rule === undefined) return '0';
      return more.length === 0 && rule.changes === 1 ? String(rule.seconds) : '(save)';
    },
  },
  define('log-level', 'logLevel', '<level>', 'debug, verbose, notice, warning or nothing', (v) => {
    const level = v.toLowerCase() as LogLevel;
    if (!LOG_LEVELS.includes(level)) {
      throw new ConfigError(`argument(s) must be one of the following: ${LOG_LEVELS.join(', ')}`);
    }
    return level;
  }),
  redis(
    'appendonly',
    'appendonly',
    '<yes|no>',
    'log every write to the append-only file',
    yes,
    yesNo,
  ),
  redis(
    'appendfsync',
    'appendfsync',
    '<policy>',
    'always, everysec or no: when the AOF is synced',
    (v) => {
      if (!isFsyncPolicy(v)) {
        throw new ConfigError(
          `argument(s) must be one of the following: ${FSYNC_POLICIES.join(', ')}`,
        );
      }
      return v;
    },
  ),
  redis(
    'appendfilename',
    'appendfilename',
    '<name>',
    'base name of the append-only files',
    fileNameOnly('appendfilename'),
  ),
  redis(
    'appenddirname',
    'appenddirname',
    '<name>',
    'directory of the append-only files, in <dir>',
    fileNameOnly('appenddirname'),
  ),
  define(
    'aof-missing-checkpoint',
    'aofMissingCheckpoint',
    '<refuse|rebuild>',
    "AOF on, a database's checkpoint gone: refuse to start, or rebuild from its log",
    (v): MissingCheckpointPolicy => {
      if (v !== 'refuse' && v !== 'rebuild') {
        throw new ConfigError('argument(s) must be one of the following: refuse, rebuild');
      }
      return v;
    },
  ),
  define(
    'compaction-threshold',
    'compactionThreshold',
    '<size>',
    'compact a database log larger than this on disk (0: never)',
    (v) => (v === '0' ? 0 : size(1024, 2 ** 52)(v)),
    { show: formatSize },
  ),
  define(
    'commit-interval',
    'commitInterval',
    '<ms>',
    'commit point of a changed database this often: what a crash recovers from the log (0: none)',
    integer(0, 2_147_483_647),
  ),
  redis(
    'notify-keyspace-events',
    'notifyKeyspaceEvents',
    '<classes>',
    "keyspace events to publish, Redis's letters (KEA, Ex...)",
    (v) => formatNotifyFlags(parseNotifyFlags(v) ?? 0),
    quoted,
  ),
  redis(
    'protected-mode',
    'protectedMode',
    '<yes|no>',
    'with no requirepass, serve loopback clients only',
    yes,
    yesNo,
  ),
  redis(
    'daemonize',
    'daemonize',
    '<yes|no>',
    'run in the background (the pid goes to pidfile)',
    yes,
    yesNo,
  ),
  redis('pidfile', 'pidfile', '<path>', 'file holding the pid while running', String, quoted),
  redis('logfile', 'logfile', '<path>', 'file the log is appended to ("": stdout)', String, quoted),
  define('import-rdb', 'importRdb', '<file>', 'load a Redis RDB file into dir, then exit', String, {
    show: quoted,
  }),
  define(
    'import-merge',
    'importMerge',
    '<yes|no>',
    'let import-rdb load into a dir that holds data',
    yesOrNo,
    { show: yesNo },
  ),
  define(
    'import-serve',
    'importServe',
    '<yes|no>',
    'after import-rdb, serve instead of exiting',
    yesOrNo,
    {
      show: yesNo,
    },
  ),
  // Redis's names for what strata has its own setting for: accepted in
  // files and on the command line, not listed in --help.
  redis('loglevel', 'logLevel', '', '', (v) => v as LogLevel),
  {
    // Redis's limit on data memory: here each open database's log memory.
    name: 'maxmemory',
    redis: true,
    arg: '',
    help: '',
    apply(config, value) {
      const n = Number(value);
      // 0 is Redis's "no limit": the log memory `memory` says.
      config.memory = n === 0 ? config.defaultMemory : sizeInRange(n, 1024, MAX_MEMORY);
      config.maxmemory = n;
    },
    show: (config) => formatSize(config.memory),
  },
];

const BY_NAME = new Map<string, Setting>(SETTINGS.map((s) => [s.name, s]));

/** The setting of a directive or flag name (case-insensitive, as Redis). */
export function findSetting(name: string): Setting | undefined {
  return BY_NAME.get(name.toLowerCase());
}

/** The settings --help lists and the banner shows. */
export function listedSettings(): Setting[] {
  return SETTINGS.filter((s) => s.arg !== '');
}

/** What the server really runs with, and how it got there from what was asked. */
export interface EffectiveConfig {
  readonly config: Readonly<ServerConfig>;
  /** Adjustments worth a log line (sizes rounded to whole pages...). */
  readonly notes: readonly string[];
}

function floorPowerOfTwo(n: number): number {
  return 2 ** Math.floor(Math.log2(n));
}

/**
 * Checks the settings against each other and rounds sizes to what the log
 * can use: memory and segments to whole pages, the index to a power of two
 * buckets. Throws ConfigError when no rounding makes sense.
 */
export function finalizeConfig(asked: Readonly<ServerConfig>): EffectiveConfig {
  const config: ServerConfig = { ...asked };
  const notes: string[] = [];
  // Redis: a daemon writes its pid even when no pidfile is given.
  if (config.daemonize && config.pidfile === '') config.pidfile = DEFAULT_DAEMON_PIDFILE;
  const page = config.pageSize;
  if (config.memory < 2 * page) {
    throw new ConfigError(
      `memory (${formatSize(config.memory)}) must hold at least 2 pages of page-size ${formatSize(page)}`,
    );
  }
  if (config.memory % page !== 0) {
    config.memory -= config.memory % page;
    notes.push(
      `memory ${formatSize(asked.memory)} rounded down to ${formatSize(config.memory)} (whole pages of ${formatSize(page)})`,
    );
  }
  if (config.segmentSize < page) {
    throw new ConfigError(
      `segment-size (${formatSize(config.segmentSize)}) must be at least page-size (${formatSize(page)})`,
    );
  }
  if (config.segmentSize % page !== 0) {
    config.segmentSize -= config.segmentSize % page;
    notes.push(
      `segment-size ${formatSize(asked.segmentSize)} rounded down to ${formatSize(config.segmentSize)} (whole pages of ${formatSize(page)})`,
    );
  }
  const index = floorPowerOfTwo(config.indexSize / 64) * 64;
  if (index !== config.indexSize) {
    config.indexSize = index;
    notes.push(
      `index-size ${formatSize(asked.indexSize)} rounded down to ${formatSize(index)} (a power of two of 64-byte buckets)`,
    );
  }
  return { config, notes };
}

/**
 * The log memory a database opens with after CONFIG SET maxmemory: the
 * value (0: `memory`'s), within what the log takes (at least 2 pages, at
 * most one ArrayBuffer) and rounded down to whole pages. Redis takes any
 * maxmemory, so a value out of range is brought into it, not refused.
 */
export function logMemoryFor(maxmemory: number, config: Readonly<ServerConfig>): number {
  const page = config.pageSize;
  const asked = maxmemory === 0 ? config.defaultMemory : maxmemory;
  const bytes = Math.min(MAX_MEMORY, Math.max(2 * page, asked));
  return bytes - (bytes % page);
}

/** `port=6379 bind=127.0.0.1 ...`: every setting, for the banner. */
export function describeConfig(config: Readonly<ServerConfig>): string {
  return listedSettings()
    .filter((s) => s.name !== 'checkpoint-interval')
    .map((s) => `${s.name}=${s.show(config)}`)
    .join(' ');
}
