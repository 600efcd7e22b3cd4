/**
 * Redis 7.0's configuration parameters as data (names, aliases, types,
 * defaults and flags from its src/config.c `static_configs`, defaults as
 * `CONFIG GET` prints them on a fresh redis-server 7.0). CONFIG GET and SET
 * (config.ts) read this table; validation is config-validate.ts.
 *
 * `effect: 'strata'` parameters change what strata does (their bindings are
 * in config.ts). `effect: 'app'` ones change what strata-server does: it
 * reads them at start, and CONFIG SET reaches the live ones through
 * RespServerOptions.appParameters (apps/server's live-parameters.ts); a
 * bare RespServer stores them. `effect: 'none'` ones mean nothing here:
 * they are accepted, validated, stored and returned as Redis does, so
 * harnesses that set them run, and a README table can list them from this
 * file.
 */

/** Redis's numeric kinds as CONFIG SET parses them. */
export interface NumericType {
  readonly kind: 'integer';
  readonly min: bigint;
  readonly max: bigint;
  /** size_t, unsigned int, unsigned long long: bounds compared unsigned (so -1 is out of range above). */
  readonly unsigned?: boolean;
  /** A memory value (`1gb`, `100mb`, `64`): MEMORY_CONFIG. */
  readonly memory?: boolean;
  /** Also `N%` (stored negative, printed `N%`): PERCENT_CONFIG. */
  readonly percent?: boolean;
  /** Printed in octal (unixsocketperm). */
  readonly octal?: boolean;
  /** Redis clamps the value after setting it (hz: 1..500). */
  readonly clamp?: readonly [bigint, bigint];
}

export type ParameterType =
  | {
      readonly kind: 'bool';
      /** `yes` refused with this reason (a feature the build lacks, as Redis's is_valid_fn). */
      readonly refuseYes?: string;
    }
  | NumericType
  | {
      readonly kind: 'enum';
      /** In Redis's order: its error lists them so. */
      readonly values: readonly string[];
      /** Values that name another one's setting (oom-score-adj `relative` prints `yes`). */
      readonly sameAs?: Readonly<Record<string, string>>;
      /**
       * A set of flags (MULTI_ARG_CONFIG): several values, one space apart,
       * printed in `values` order; the first value is the empty set.
       */
      readonly flags?: {
        /** Two flags that may not be set together, and Redis's reason. */
        readonly exclusive?: readonly [string, string, string];
      };
    }
  | { readonly kind: 'string'; readonly check?: 'hostname' | 'proc-title-template' | 'filename' }
  /** Own syntax, validated in config-validate.ts by name. */
  | { readonly kind: 'special'; readonly syntax: SpecialSyntax };

export type SpecialSyntax =
  | 'dir'
  | 'save'
  | 'client-output-buffer-limit'
  | 'oom-score-adj-values'
  | 'notify-keyspace-events'
  | 'bind'
  | 'replicaof'
  | 'latency-tracking-info-percentiles';

export interface ParameterSpec {
  readonly name: string;
  /** Redis's other name for it (the pre-7 `ziplist`, `slave` spellings). */
  readonly alias?: string;
  readonly type: ParameterType;
  /** As Redis 7.0 prints it. */
  readonly default: string;
  /** False: `can't set immutable config` (start-up only in Redis). */
  readonly mutable: boolean;
  /** `can't set protected config` unless enable-protected-configs allows it (`yes`, or `local` from a loopback client). */
  readonly protected?: boolean;
  /** Answered by exact name only, never by a pattern (Redis's HIDDEN_CONFIG). */
  readonly hidden?: boolean;
  readonly effect: 'strata' | 'app' | 'none';
  /** Where strata differs from Redis, or what the parameter does here. */
  readonly note?: string;
}

const INT_MIN = -2147483648n;
const ENCODING_NOTE = 'when OBJECT ENCODING turns from the compact encoding to the large one';
const INT_MAX = 2147483647n;
const UINT_MAX = 4294967295n;
const LONG_MAX = 9223372036854775807n;
const ULLONG_MAX = 18446744073709551615n;
const MB = 1048576n;

interface Flags {
  readonly alias?: string;
  readonly immutable?: boolean;
  readonly protected?: boolean;
  readonly hidden?: boolean;
  readonly strata?: boolean;
  /** strata-server acts on it (effect `app`). */
  readonly app?: boolean;
  readonly note?: string;
}

function spec(name: string, type: ParameterType, def: string, f: Flags = {}): ParameterSpec {
  return {
    name,
    type,
    default: def,
    mutable: f.immutable !== true,
    effect: f.strata === true ? 'strata' : f.app === true ? 'app' : 'none',
    ...(f.alias === undefined ? {} : { alias: f.alias }),
    ...(f.protected === true ? { protected: true } : {}),
    ...(f.hidden === true ? { hidden: true } : {}),
    ...(f.note === undefined ? {} : { note: f.note }),
  };
}

const bool = (name: string, def: 'yes' | 'no', f?: Flags) => spec(name, { kind: 'bool' }, def, f);
const str = (name: string, def: string, f?: Flags) => spec(name, { kind: 'string' }, def, f);
const oneOf = (name: string, values: readonly string[], def: string, f?: Flags) =>
  spec(name, { kind: 'enum', values }, def, f);
const special = (name: string, syntax: SpecialSyntax, def: string, f?: Flags) =>
  spec(name, { kind: 'special', syntax }, def, f);
function int(
  name: string,
  min: bigint,
  max: bigint,
  def: string,
  f?: Flags & Omit<NumericType, 'kind' | 'min' | 'max'>,
): ParameterSpec {
  const { unsigned, memory, percent, octal, clamp, ...flags } = f ?? {};
  const type: NumericType = {
    kind: 'integer',
    min,
    max,
    ...(unsigned ? { unsigned } : {}),
    ...(memory ? { memory } : {}),
    ...(percent ? { percent } : {}),
    ...(octal ? { octal } : {}),
    ...(clamp ? { clamp } : {}),
  };
  return spec(name, type, def, flags);
}
/** size_t and unsigned long long parameters. */
const size = (
  name: string,
  min: bigint,
  max: bigint,
  def: string,
  f?: Flags & { memory?: boolean },
) => int(name, min, max, def, { ...f, unsigned: true });
const mem = (name: string, min: bigint, max: bigint, def: string, f?: Flags) =>
  int(name, min, max, def, { ...f, memory: true });

const IMMUTABLE = { immutable: true } as const;
const PROTECTED_ACTION = ['no', 'yes', 'local'] as const;
const TLS_NOTE = 'strata has no TLS: turning TLS on fails as Redis does without certificates';

export const PARAMETERS: readonly ParameterSpec[] = [
  // yes/no
  bool('rdbchecksum', 'yes', IMMUTABLE),
  bool('daemonize', 'no', {
    ...IMMUTABLE,
    app: true,
    note: 'strata-server runs in the background, as Redis',
  }),
  bool('io-threads-do-reads', 'no', IMMUTABLE),
  bool('always-show-logo', 'no', IMMUTABLE),
  bool('protected-mode', 'yes', {
    strata: true,
    note: 'with no requirepass, only loopback clients are accepted',
  }),
  bool('rdbcompression', 'yes', {
    strata: true,
    note: "DUMP's strings over 20 bytes are LZF-compressed with yes, as Redis's",
  }),
  bool('rdb-del-sync-files', 'no'),
  bool('activerehashing', 'yes'),
  bool('stop-writes-on-bgsave-error', 'yes', {
    app: true,
    note: "strata-server: a failed checkpoint refuses writes (MISCONF, Redis's RDB wording) while save rules are set, until a checkpoint succeeds (retried every 5 seconds)",
  }),
  bool('set-proc-title', 'yes', {
    ...IMMUTABLE,
    app: true,
    note: 'strata-server sets process.title from proc-title-template once it listens',
  }),
  bool('dynamic-hz', 'yes', {
    strata: true,
    note: "hz doubles while more than 200 clients share a tick (at most 500), as Redis's serverCron",
  }),
  bool('lazyfree-lazy-eviction', 'no'),
  bool('lazyfree-lazy-expire', 'no'),
  bool('lazyfree-lazy-server-del', 'no', {
    strata: true,
    note: "yes: an overwritten stream's blocks are deleted after the reply (RENAME, COPY, MOVE, RESTORE, SET over a cached one)",
  }),
  bool('lazyfree-lazy-user-del', 'no', {
    strata: true,
    note: "yes: DEL deletes a stream's blocks after the reply, as UNLINK always does",
  }),
  bool('lazyfree-lazy-user-flush', 'no', {
    strata: true,
    note: 'FLUSHALL/FLUSHDB without SYNC or ASYNC: yes is ASYNC (the old data removed after the reply)',
  }),
  bool('repl-disable-tcp-nodelay', 'no'),
  bool('repl-diskless-sync', 'yes'),
  bool('aof-rewrite-incremental-fsync', 'yes'),
  bool('no-appendfsync-on-rewrite', 'no'),
  bool('cluster-require-full-coverage', 'yes'),
  bool('rdb-save-incremental-fsync', 'yes'),
  bool('aof-load-truncated', 'yes', {
    app: true,
    note: "strata-server's AOF replay at start: no refuses a torn last record instead of cutting it",
  }),
  bool('aof-use-rdb-preamble', 'yes'),
  bool('aof-timestamp-enabled', 'no'),
  bool('cluster-replica-no-failover', 'no', { alias: 'cluster-slave-no-failover' }),
  bool('replica-lazy-flush', 'no', { alias: 'slave-lazy-flush' }),
  bool('replica-serve-stale-data', 'yes', { alias: 'slave-serve-stale-data' }),
  bool('replica-read-only', 'yes', { alias: 'slave-read-only' }),
  bool('replica-ignore-maxmemory', 'yes', { alias: 'slave-ignore-maxmemory' }),
  bool('jemalloc-bg-thread', 'yes'),
  // Strata has no active defragmentation: refused as a Redis built without it refuses it.
  spec(
    'activedefrag',
    {
      kind: 'bool',
      refuseYes:
        'Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution',
    },
    'no',
  ),
  bool('syslog-enabled', 'no', IMMUTABLE),
  bool('cluster-enabled', 'no', IMMUTABLE),
  bool('appendonly', 'no', {
    app: true,
    note: "strata-server's AOF, turned on and off live; without an app, CONFIG SET cannot start one",
  }),
  bool('cluster-allow-reads-when-down', 'no'),
  bool('cluster-allow-pubsubshard-when-down', 'yes'),
  bool('crash-log-enabled', 'yes'),
  bool('crash-memcheck-enabled', 'yes'),
  bool('use-exit-on-panic', 'no', { hidden: true }),
  bool('disable-thp', 'yes', IMMUTABLE),
  bool('cluster-allow-replica-migration', 'yes'),
  bool('replica-announced', 'yes'),
  bool('latency-tracking', 'yes', {
    strata: true,
    note: 'LATENCY HISTOGRAM records per-command times',
  }),
  bool('aof-disable-auto-gc', 'no'),
  bool('replica-ignore-disk-write-errors', 'no'),

  // strings
  str('aclfile', '', {
    immutable: true,
    strata: true,
    note: 'ACL LOAD and ACL SAVE read and write it; loaded at start',
  }),
  str('unixsocket', '', {
    ...IMMUTABLE,
    app: true,
    note: 'strata-server listens on this Unix socket too (the file replaced, removed at shutdown)',
  }),
  str('pidfile', '', { ...IMMUTABLE, app: true, note: 'strata-server writes its pid there' }),
  str('replica-announce-ip', '', { alias: 'slave-announce-ip' }),
  str('masteruser', ''),
  str('cluster-announce-ip', ''),
  str('cluster-config-file', 'nodes.conf', IMMUTABLE),
  spec('cluster-announce-hostname', { kind: 'string', check: 'hostname' }, ''),
  str('syslog-ident', 'redis', IMMUTABLE),
  spec('dbfilename', { kind: 'string', check: 'filename' }, 'dump.rdb', { protected: true }),
  str('appendfilename', 'appendonly.aof', {
    ...IMMUTABLE,
    app: true,
    note: "strata-server's AOF file names",
  }),
  str('appenddirname', 'appendonlydir', {
    ...IMMUTABLE,
    app: true,
    note: "strata-server's AOF directory, in dir",
  }),
  str('server_cpulist', '', IMMUTABLE),
  str('bio_cpulist', '', IMMUTABLE),
  str('aof_rewrite_cpulist', '', IMMUTABLE),
  str('bgsave_cpulist', '', IMMUTABLE),
  str('ignore-warnings', ''),
  spec(
    'proc-title-template',
    { kind: 'string', check: 'proc-title-template' },
    '{title} {listen-addr} {server-mode}',
    {
      app: true,
      note: 'strata-server sets process.title from it ({title}: its script as run; {server-mode} empty); CONFIG SET sets it again',
    },
  ),
  str('bind-source-addr', ''),
  str('logfile', '', { ...IMMUTABLE, app: true, note: "strata-server's log goes there" }),
  str('masterauth', ''),
  str('requirepass', '', { strata: true, note: "the default user's password (AUTH)" }),

  // one of a set
  oneOf('supervised', ['upstart', 'systemd', 'auto', 'no'], 'no', IMMUTABLE),
  oneOf(
    'syslog-facility',
    ['user', 'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7'],
    'local0',
    IMMUTABLE,
  ),
  oneOf('repl-diskless-load', ['disabled', 'on-empty-db', 'swapdb'], 'disabled'),
  oneOf('loglevel', ['debug', 'verbose', 'notice', 'warning'], 'notice', {
    app: true,
    note: "strata-server's log level, live",
  }),
  oneOf(
    'maxmemory-policy',
    [
      'volatile-lru',
      'volatile-lfu',
      'volatile-random',
      'volatile-ttl',
      'allkeys-lru',
      'allkeys-lfu',
      'allkeys-random',
      'noeviction',
    ],
    'noeviction',
    {
      strata: true,
      note: "an LFU policy makes the keys' access words LFU counters (OBJECT FREQ), else LRU clocks (OBJECT IDLETIME); nothing is evicted",
    },
  ),
  oneOf('appendfsync', ['everysec', 'always', 'no'], 'everysec', {
    app: true,
    note: "strata-server's AOF fsync policy, switched live (to always: what was written is synced at once)",
  }),
  spec(
    'oom-score-adj',
    {
      kind: 'enum',
      values: ['no', 'yes', 'relative', 'absolute'],
      sameAs: { relative: 'yes' },
    },
    'no',
    {
      app: true,
      note: "strata-server writes /proc/self/oom_score_adj as Redis's master does (a failure at start is logged)",
    },
  ),
  oneOf('acl-pubsub-default', ['allchannels', 'resetchannels'], 'resetchannels', {
    strata: true,
    note: 'the channels new ACL users and selectors start with',
  }),
  oneOf('sanitize-dump-payload', ['no', 'yes', 'clients'], 'no'),
  oneOf('enable-protected-configs', PROTECTED_ACTION, 'no', {
    ...IMMUTABLE,
    strata: true,
    note: 'lets CONFIG SET change dir (the process chdirs, as Redis) and dbfilename: yes, or local from a loopback client',
  }),
  oneOf('enable-debug-command', PROTECTED_ACTION, 'no', {
    ...IMMUTABLE,
    strata: true,
    note: 'DEBUG runs with yes, or local from a loopback connection (set at start: RespServerOptions.configValues)',
  }),
  oneOf('enable-module-command', PROTECTED_ACTION, 'no', IMMUTABLE),
  oneOf('propagation-error-behavior', ['ignore', 'panic', 'panic-on-replicas'], 'ignore'),
  ...(['shutdown-on-sigint', 'shutdown-on-sigterm'] as const).map((name) =>
    spec(
      name,
      {
        kind: 'enum',
        values: ['default', 'save', 'nosave', 'now', 'force'],
        flags: {
          exclusive: [
            'save',
            'nosave',
            "shutdown options SAVE and NOSAVE can't be used simultaneously",
          ],
        },
      },
      'default',
      {
        app: true,
        note: 'how strata-server shuts down on the signal: nosave skips the checkpoints (the log is still flushed), now the wait, force exits 0 after a failed save; default and save checkpoint',
      },
    ),
  ),
  oneOf('cluster-preferred-endpoint-type', ['ip', 'hostname', 'unknown-endpoint'], 'ip'),

  // int
  int('databases', 1n, INT_MAX, '16', {
    immutable: true,
    strata: true,
    note: 'the databases the server was given (RespServer databases)',
  }),
  int('port', 0n, 65535n, '6379', {
    strata: true,
    note: 'where the server listens; CONFIG SET cannot move it (same value: OK)',
  }),
  int('io-threads', 1n, 128n, '1', IMMUTABLE),
  int('auto-aof-rewrite-percentage', 0n, INT_MAX, '100', {
    app: true,
    note: "strata-server's automatic AOF rewrite",
  }),
  int('cluster-replica-validity-factor', 0n, INT_MAX, '10', {
    alias: 'cluster-slave-validity-factor',
  }),
  int('list-max-listpack-size', INT_MIN, INT_MAX, '-2', {
    alias: 'list-max-ziplist-size',
    strata: true,
    note: 'when OBJECT ENCODING turns from listpack to quicklist (Redis 7.2 rules)',
  }),
  int('tcp-keepalive', 0n, INT_MAX, '300', {
    strata: true,
    note: 'seconds before TCP keepalive probes, on new connections',
  }),
  int('cluster-migration-barrier', 0n, INT_MAX, '1'),
  int('active-defrag-cycle-min', 1n, 99n, '1'),
  int('active-defrag-cycle-max', 1n, 99n, '25'),
  int('active-defrag-threshold-lower', 0n, 1000n, '10'),
  int('active-defrag-threshold-upper', 0n, 1000n, '100'),
  int('lfu-log-factor', 0n, INT_MAX, '10', {
    strata: true,
    note: 'how slowly the LFU counter of OBJECT FREQ grows',
  }),
  int('lfu-decay-time', 0n, INT_MAX, '1', {
    strata: true,
    note: 'minutes per decrement of the LFU counter of OBJECT FREQ',
  }),
  int('replica-priority', 0n, INT_MAX, '100', { alias: 'slave-priority' }),
  int('repl-diskless-sync-delay', 0n, INT_MAX, '5'),
  int('maxmemory-samples', 1n, INT_MAX, '5'),
  int('maxmemory-eviction-tenacity', 0n, 100n, '10'),
  int('timeout', 0n, INT_MAX, '0', {
    strata: true,
    note: 'seconds an idle client is kept (0: for ever)',
  }),
  int('replica-announce-port', 0n, 65535n, '0', { alias: 'slave-announce-port' }),
  int('tcp-backlog', 0n, INT_MAX, '511', {
    ...IMMUTABLE,
    app: true,
    note: "strata-server's listen backlog (capped by somaxconn, with Redis's warning)",
  }),
  int('cluster-port', 0n, 65535n, '0', IMMUTABLE),
  int('cluster-announce-bus-port', 0n, 65535n, '0'),
  int('cluster-announce-port', 0n, 65535n, '0'),
  int('cluster-announce-tls-port', 0n, 65535n, '0'),
  int('repl-timeout', 1n, INT_MAX, '60'),
  int('repl-ping-replica-period', 1n, INT_MAX, '10', { alias: 'repl-ping-slave-period' }),
  int('list-compress-depth', 0n, INT_MAX, '0'),
  int('rdb-key-save-delay', INT_MIN, INT_MAX, '0', { hidden: true }),
  int('key-load-delay', INT_MIN, INT_MAX, '0', { hidden: true }),
  int('active-expire-effort', 1n, 10n, '1', {
    strata: true,
    note: 'buckets each expiry slice visits: +25% a step, as Redis samples keys (server/expiry-pace.ts)',
  }),
  int('hz', 0n, INT_MAX, '10', {
    clamp: [1n, 500n],
    strata: true,
    note: 'expiry slices a second, every store (server/expiry-pace.ts); other timers keep their rates',
  }),
  int('min-replicas-to-write', 0n, INT_MAX, '0', { alias: 'min-slaves-to-write' }),
  int('min-replicas-max-lag', 0n, INT_MAX, '10', { alias: 'min-slaves-max-lag' }),
  int('watchdog-period', 0n, INT_MAX, '0', {
    hidden: true,
    app: true,
    note: "strata-server's event-loop stall report (a worker thread writes Redis's WATCHDOG lines)",
  }),
  int('shutdown-timeout', 0n, INT_MAX, '10', {
    app: true,
    note: 'seconds strata-server waits for commands in flight at shutdown (Redis: for replicas)',
  }),
  int('repl-diskless-sync-max-replicas', 0n, INT_MAX, '0'),
  // unsigned int
  int('maxclients', 1n, UINT_MAX, '10000', {
    unsigned: true,
    strata: true,
    note: 'connections over it are refused',
  }),
  int('socket-mark-id', 0n, UINT_MAX, '0', { unsigned: true, immutable: true }),
  int('unixsocketperm', 0n, 0o777n, '0', {
    unsigned: true,
    octal: true,
    immutable: true,
    app: true,
    note: "the Unix socket's mode (0: the umask's)",
  }),
  // unsigned long (bounds checked signed in Redis)
  int('active-defrag-max-scan-fields', 1n, LONG_MAX, '1000'),
  int('slowlog-max-len', 0n, LONG_MAX, '128', { strata: true, note: 'entries SLOWLOG keeps' }),
  // Bound in config.ts (ACL LOG's length); not marked strata: config-compat's integer cases pick it.
  int('acllog-max-len', 0n, LONG_MAX, '128', { strata: true, note: 'entries ACL LOG keeps' }),
  // long long
  int('busy-reply-threshold', 0n, LONG_MAX, '5000', {
    alias: 'lua-time-limit',
    strata: true,
    note: 'ms a script runs before other clients are answered BUSY (and SCRIPT KILL may stop it)',
  }),
  int('cluster-node-timeout', 0n, LONG_MAX, '15000'),
  int('slowlog-log-slower-than', -1n, LONG_MAX, '10000', {
    strata: true,
    note: 'microseconds a command runs before SLOWLOG records it (-1 records none)',
  }),
  int('latency-monitor-threshold', 0n, LONG_MAX, '0', {
    strata: true,
    note: 'milliseconds an event lasts before LATENCY records it (0: off)',
  }),
  mem('proto-max-bulk-len', MB, LONG_MAX, '536870912', {
    strata: true,
    note: 'the longest bulk string a request may carry',
  }),
  int('stream-node-max-entries', 0n, LONG_MAX, '100'),
  // Redis raises a smaller backlog to its least, 16kb (CONFIG_REPL_BACKLOG_MIN_SIZE).
  int('repl-backlog-size', 1n, LONG_MAX, '1048576', { memory: true, clamp: [16384n, LONG_MAX] }),
  // unsigned long long
  size('maxmemory', 0n, ULLONG_MAX, '0', {
    memory: true,
    app: true,
    note: "strata-server's log memory per database (0: its memory setting), for databases opened after a change: a store's ring of pages is fixed at open; never evicts keys",
  }),
  size('cluster-link-sendbuf-limit', 0n, ULLONG_MAX, '0', { memory: true }),
  // size_t
  size('hash-max-listpack-entries', 0n, LONG_MAX, '512', {
    alias: 'hash-max-ziplist-entries',
    strata: true,
    note: ENCODING_NOTE,
  }),
  size('set-max-intset-entries', 0n, LONG_MAX, '512', { strata: true, note: ENCODING_NOTE }),
  size('zset-max-listpack-entries', 0n, LONG_MAX, '128', {
    alias: 'zset-max-ziplist-entries',
    strata: true,
    note: ENCODING_NOTE,
  }),
  size('active-defrag-ignore-bytes', 1n, LONG_MAX, '104857600', { memory: true }),
  size('hash-max-listpack-value', 0n, LONG_MAX, '64', {
    memory: true,
    alias: 'hash-max-ziplist-value',
    strata: true,
    note: ENCODING_NOTE,
  }),
  size('stream-node-max-bytes', 0n, LONG_MAX, '4096', { memory: true }),
  size('zset-max-listpack-value', 0n, LONG_MAX, '64', {
    memory: true,
    alias: 'zset-max-ziplist-value',
    strata: true,
    note: ENCODING_NOTE,
  }),
  size('hll-sparse-max-bytes', 0n, LONG_MAX, '3000', {
    memory: true,
    strata: true,
    note: 'when a HyperLogLog turns from sparse to dense',
  }),
  size('tracking-table-max-keys', 0n, LONG_MAX, '1000000', {
    strata: true,
    note: 'keys remembered for client-side caching before some are invalidated',
  }),
  size('client-query-buffer-limit', MB, LONG_MAX, '1073741824', {
    memory: true,
    strata: true,
    note: 'request bytes a client may hold before it is disconnected',
  }),
  // ssize_t
  int('maxmemory-clients', -100n, LONG_MAX, '0', { memory: true, percent: true }),
  // time_t, off_t
  int('repl-backlog-ttl', 0n, LONG_MAX, '3600'),
  mem('auto-aof-rewrite-min-size', 0n, LONG_MAX, '67108864', {
    app: true,
    note: "strata-server's automatic AOF rewrite",
  }),
  int('loading-process-events-interval-bytes', 1024n, INT_MAX, '2097152', { hidden: true }),

  // TLS (redis-server built with OpenSSL lists these)
  int('tls-port', 0n, 65535n, '0', { strata: true, note: TLS_NOTE }),
  int('tls-session-cache-size', 0n, INT_MAX, '20480'),
  int('tls-session-cache-timeout', 0n, INT_MAX, '300'),
  bool('tls-cluster', 'no', { strata: true, note: TLS_NOTE }),
  bool('tls-replication', 'no', { strata: true, note: TLS_NOTE }),
  oneOf('tls-auth-clients', ['no', 'yes', 'optional'], 'yes'),
  bool('tls-prefer-server-ciphers', 'no'),
  bool('tls-session-caching', 'yes'),
  str('tls-cert-file', ''),
  str('tls-key-file', ''),
  str('tls-key-file-pass', ''),
  str('tls-client-cert-file', ''),
  str('tls-client-key-file', ''),
  str('tls-client-key-file-pass', ''),
  str('tls-dh-params-file', ''),
  str('tls-ca-cert-file', ''),
  str('tls-ca-cert-dir', ''),
  str('tls-protocols', ''),
  str('tls-ciphers', ''),
  str('tls-ciphersuites', ''),

  // own syntax
  special('dir', 'dir', '', {
    protected: true,
    strata: true,
    note: "the process's working directory, as Redis prints it; strata's files are where its databases option says",
  }),
  special('save', 'save', '', {
    app: true,
    note: "strata-server's checkpoint rules, replaced live (a checkpoint, not an RDB snapshot)",
  }),
  special(
    'client-output-buffer-limit',
    'client-output-buffer-limit',
    'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60',
    {
      strata: true,
      note: 'reply bytes a client may have waiting, by class',
    },
  ),
  special('oom-score-adj-values', 'oom-score-adj-values', '0 200 800', {
    app: true,
    note: 'the first (master) value is the one strata-server uses',
  }),
  special('notify-keyspace-events', 'notify-keyspace-events', '', {
    strata: true,
    note: 'keyspace notifications',
  }),
  special('bind', 'bind', '* -::*', {
    strata: true,
    note: 'the address the server listens on; CONFIG SET cannot move it (same value: OK)',
  }),
  special('replicaof', 'replicaof', '', { alias: 'slaveof', immutable: true }),
  special('latency-tracking-info-percentiles', 'latency-tracking-info-percentiles', '50 99 99.9', {
    strata: true,
    note: 'the percentiles INFO latencystats prints',
  }),
];

/** One name CONFIG knows: a parameter under its own name or its alias. */
export interface ParameterName {
  /** Lowercase, as Redis prints it. */
  readonly name: string;
  readonly spec: ParameterSpec;
  readonly isAlias: boolean;
}

/** Every name, lowercase, to its parameter: Redis looks names up case-insensitively. */
export const PARAMETER_NAMES: ReadonlyMap<string, ParameterName> = new Map(
  PARAMETERS.flatMap((spec): [string, ParameterName][] => [
    [spec.name, { name: spec.name, spec, isAlias: false }],
    ...(spec.alias === undefined
      ? []
      : [
          [spec.alias, { name: spec.alias, spec, isAlias: true }] satisfies [string, ParameterName],
        ]),
  ]),
);
