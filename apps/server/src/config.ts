import { constants as bufferConstants } from 'node:buffer';
import { FSYNC_POLICIES, type FsyncPolicy, isFsyncPolicy } from '@strata/aof';
import { StrataError } from '@strata/io';
import { formatNotifyFlags, formatSize, parseNotifyFlags, parseSize } from '@strata/resp';
import type { ServerErrorCode } from './errors.js';

export const LOG_LEVELS = ['debug', 'verbose', 'notice', 'warning', 'nothing'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything strata-server can be told, after defaults, config file and flags. */
export interface ServerConfig {
  /** TCP port; 0 takes any free port (the ready line says which). */
  port: number;
  bind: string;
  /** Data directory: database n lives in `<dir>/<n>`. */
  dir: string;
  /** Log memory (page frames) of each open database, in bytes. */
  memory: number;
  pageSize: number;
  segmentSize: number;
  /** Initial hash index size of each database, in bytes (64-byte buckets; it grows online). */
  indexSize: number;
  mutableFraction: number;
  databases: number;
  requirepass: string | null;
  maxclients: number;
  /** Seconds between checkpoints of the databases that changed; 0: only on SAVE and shutdown. */
  checkpointInterval: number;
  logLevel: LogLevel;
  /** Log every write command to the append-only file (Redis's `appendonly`). */
  appendonly: boolean;
  appendfsync: FsyncPolicy;
  /** Base name of the AOF files, in `<dir>/<appenddirname>`. */
  appendfilename: string;
  appenddirname: string;
  /** Compact a database's log once it holds more than this on disk; 0: never. */
  compactionThreshold: number;
  /** Keyspace events to publish, in Redis's letters ('' none). */
  notifyKeyspaceEvents: string;
}

export const DEFAULT_CONFIG: Readonly<ServerConfig> = {
  port: 6379,
  bind: '127.0.0.1',
  dir: './data',
  memory: 64 * 1024 ** 2,
  pageSize: 1024 ** 2,
  segmentSize: 1024 ** 3,
  indexSize: 4 * 1024 ** 2,
  mutableFraction: 0.9,
  databases: 16,
  requirepass: null,
  maxclients: 10_000,
  checkpointInterval: 300,
  logLevel: 'notice',
  appendonly: false,
  appendfsync: 'everysec',
  appendfilename: 'appendonly.aof',
  appenddirname: 'appendonlydir',
  compactionThreshold: 0,
  notifyKeyspaceEvents: '',
};

/** A value a setting refuses; the message is the reason, in Redis's words where Redis has some. */
export class ConfigError extends StrataError<ServerErrorCode> {
  override name = 'ConfigError';

  constructor(message: string) {
    super('ERR_CONFIG_VALUE', message);
  }
}

/** One setting: `port 7000` in a config file, `--port 7000` on the command line. */
export interface Setting {
  readonly name: string;
  /** Other directive names accepted in a config file (Redis's spelling). */
  readonly aliases: readonly string[];
  /** Placeholder in --help. */
  readonly arg: string;
  readonly help: string;
  /** Parses `value` into `config`; throws ConfigError. */
  apply(config: ServerConfig, value: string): void;
  /** The value as the banner and --help show it. */
  show(config: Readonly<ServerConfig>): string;
}

function define<K extends keyof ServerConfig>(
  name: string,
  key: K,
  arg: string,
  help: string,
  parse: (value: string) => ServerConfig[K],
  show: (value: ServerConfig[K]) => string = String,
  aliases: readonly string[] = [],
): Setting {
  return {
    name,
    aliases,
    arg,
    help,
    apply(config, value) {
      config[key] = parse(value);
    },
    show: (config) => show(config[key]),
  };
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
    if (n < min || n > max) {
      throw new ConfigError(
        `argument must be between ${formatSize(min)} and ${formatSize(max)} inclusive`,
      );
    }
    if (powerOfTwo && (n & (n - 1)) !== 0) {
      throw new ConfigError(
        `argument must be a power of two (${formatSize(min)}, ... 1mb, 2mb ...)`,
      );
    }
    return n;
  };
}

function yesNo(value: string): boolean {
  const v = value.toLowerCase();
  if (v === 'yes') return true;
  if (v === 'no') return false;
  throw new ConfigError("argument must be 'yes' or 'no'");
}

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

/** Page frames are one ArrayBuffer: at most what Node can allocate at once. */
const MAX_MEMORY = Math.min(bufferConstants.MAX_LENGTH, 1024 ** 4);
const MAX_PAGE = 1024 ** 3;
/** The index takes at most 2^29 initial buckets of 64 bytes. */
const MAX_INDEX = 64 * 2 ** 29;

export const SETTINGS: readonly Setting[] = [
  define('port', 'port', '<port>', 'TCP port (0: any free one)', integer(0, 65535)),
  define('bind', 'bind', '<addr>', 'address to listen on (*: every interface)', (v) =>
    v === '*' ? '0.0.0.0' : text(v),
  ),
  define('dir', 'dir', '<path>', 'data directory; database n lives in <dir>/<n>', text),
  define(
    'memory',
    'memory',
    '<size>',
    'log memory of each open database',
    size(1024, MAX_MEMORY),
    formatSize,
  ),
  define(
    'page-size',
    'pageSize',
    '<size>',
    'log page size, a power of two',
    size(512, MAX_PAGE, true),
    formatSize,
  ),
  define(
    'segment-size',
    'segmentSize',
    '<size>',
    'size of each log segment file',
    size(512, 1024 ** 4),
    formatSize,
  ),
  define(
    'index-size',
    'indexSize',
    '<size>',
    'initial hash index of each database',
    size(1024, MAX_INDEX),
    formatSize,
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
  define('databases', 'databases', '<n>', 'number of databases', (v) => {
    try {
      return integer(1, 65536)(v);
    } catch {
      throw new ConfigError('Invalid number of databases (1 to 65536)');
    }
  }),
  define(
    'requirepass',
    'requirepass',
    '<password>',
    'password clients must AUTH with',
    (v) => (v === '' ? null : v),
    (v) => (v === null ? '(none)' : '(set)'),
  ),
  define('maxclients', 'maxclients', '<n>', 'maximum connected clients', integer(1, 1_000_000)),
  define(
    'checkpoint-interval',
    'checkpointInterval',
    '<seconds>',
    'seconds between checkpoints (0: off)',
    integer(0, 2_147_483),
  ),
  define(
    'log-level',
    'logLevel',
    '<level>',
    'debug, verbose, notice, warning or nothing',
    (v) => {
      const level = v.toLowerCase() as LogLevel;
      if (!LOG_LEVELS.includes(level)) {
        throw new ConfigError(`argument(s) must be one of the following: ${LOG_LEVELS.join(', ')}`);
      }
      return level;
    },
    String,
    ['loglevel'],
  ),
  define(
    'appendonly',
    'appendonly',
    '<yes|no>',
    'log every write to the append-only file',
    yesNo,
    (v) => (v ? 'yes' : 'no'),
  ),
  define(
    'appendfsync',
    'appendfsync',
    '<policy>',
    'always, everysec or no: when the AOF is synced',
    (v) => {
      const p = v.toLowerCase();
      if (!isFsyncPolicy(p)) {
        throw new ConfigError(
          `argument(s) must be one of the following: ${FSYNC_POLICIES.join(', ')}`,
        );
      }
      return p;
    },
  ),
  define(
    'appendfilename',
    'appendfilename',
    '<name>',
    'base name of the append-only files',
    fileNameOnly('appendfilename'),
  ),
  define(
    'appenddirname',
    'appenddirname',
    '<name>',
    'directory of the append-only files, in <dir>',
    fileNameOnly('appenddirname'),
  ),
  define(
    'compaction-threshold',
    'compactionThreshold',
    '<size>',
    'compact a database log larger than this on disk (0: never)',
    (v) => (v === '0' ? 0 : size(1024, 2 ** 52)(v)),
    formatSize,
  ),
  define(
    'notify-keyspace-events',
    'notifyKeyspaceEvents',
    '<classes>',
    "keyspace events to publish, Redis's letters (KEA, Ex...)",
    (v) => {
      const flags = parseNotifyFlags(v);
      if (flags === null) {
        throw new ConfigError("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
      }
      return formatNotifyFlags(flags);
    },
    (v) => (v === '' ? '""' : v),
  ),
];

const BY_NAME = new Map<string, Setting>();
for (const s of SETTINGS) {
  BY_NAME.set(s.name, s);
  for (const a of s.aliases) BY_NAME.set(a, s);
}

/** The setting of a directive or flag name (case-insensitive, as Redis). */
export function findSetting(name: string): Setting | undefined {
  return BY_NAME.get(name.toLowerCase());
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

/** `port=6379 bind=127.0.0.1 ...`: every setting, for the banner. */
export function describeConfig(config: Readonly<ServerConfig>): string {
  return SETTINGS.map((s) => `${s.name}=${s.show(config)}`).join(' ');
}
