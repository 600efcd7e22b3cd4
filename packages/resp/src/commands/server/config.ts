import { statSync } from 'node:fs';
import { type EncodingLimits, encodingLimits, setEncodingLimits } from '@strata/collections';
import { compileGlob } from '@strata/scan';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { isLoopback } from '../../server/loopback.js';
import type { ServerState } from '../../server/server-state.js';
import { aclFileName, aclFileText } from '../acl/acl-file.js';
import { serverSlot } from '../family.js';
import { formatNotifyFlags, parseNotifyFlags } from '../pubsub/keyspace-events.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { trackingServer } from '../tracking/tracking-state.js';
import { accessPolicy } from './access-policy.js';
import type { AppParameter } from './app-parameter.js';
import { formatOutputLimits, parseOutputLimits } from './config-output-limits.js';
import { PARAMETER_NAMES, type ParameterName } from './config-parameters.js';
import { rewriteConfigText } from './config-rewrite.js';
import { checkValue } from './config-validate.js';

/**
 * What a parameter with an effect here (`effect: 'strata'` in
 * config-parameters.ts) reads and changes. `set` takes the value as
 * checkValue printed it. `fixed`: strata cannot change it, so CONFIG SET
 * of another value fails with this reason (Redis's words for its own
 * failure to apply it); the same value is OK, as in Redis.
 */
interface Binding {
  get?(s: ServerState): string;
  set?(s: ServerState, text: string): void;
  fixed?: string;
  /** CONFIG SET's check of what the value names now (a directory): a reason fails it before anything changes. */
  refuses?(text: string): string | undefined;
}

/** Redis's reason when TLS cannot be configured (no certificates); strata has no TLS. */
const TLS_FAILURE = 'Unable to update TLS configuration. Check server logs.';

function limit(name: keyof EncodingLimits): Binding {
  return {
    get: () => String(encodingLimits[name]),
    set(_s, v) {
      setEncodingLimits({ [name]: Number(v) });
    },
  };
}

/**
 * A parameter of the keys' access clock (maxmemory-policy, lfu-log-factor,
 * lfu-decay-time): kept as stored ones are, and applied to the server's
 * clock at once, as Redis reads them on the next lookup.
 */
function accessParameter(name: string, def: string): Binding {
  return {
    get: (s) => s.peekState(storedValues)?.get(name) ?? def,
    set(s, v) {
      store(s, name, v);
      applyAccessPolicy(s);
    },
  };
}

/** Configures the server's access clock from the three parameters (at start and on CONFIG SET). */
export function applyAccessPolicy(s: ServerState): void {
  s.access.configure(
    accessPolicy(
      readConfig(s, 'maxmemory-policy'),
      readConfig(s, 'lfu-log-factor'),
      readConfig(s, 'lfu-decay-time'),
    ),
  );
}

const BINDINGS: Readonly<Record<string, Binding>> = {
  'maxmemory-policy': accessParameter('maxmemory-policy', 'noeviction'),
  'lfu-log-factor': accessParameter('lfu-log-factor', '10'),
  'lfu-decay-time': accessParameter('lfu-decay-time', '1'),
  requirepass: {
    get: (s) => s.config.requirepass ?? '',
    set(s, v) {
      // `v` holds the argument's bytes as latin1, the password is compared
      // as UTF-8: decode it, so AUTH with the same bytes matches.
      const bytes = Buffer.from(v, 'latin1');
      const text = bytes.toString('utf8');
      const password = Buffer.from(text).equals(bytes) ? text : v;
      s.config = { ...s.config, requirepass: v === '' ? null : password };
    },
  },
  maxclients: {
    get: (s) => String(s.config.maxclients),
    set(s, v) {
      s.config = { ...s.config, maxclients: Number(v) };
    },
  },
  'proto-max-bulk-len': {
    get: (s) => String(s.config.maxBulkLength),
    set(s, v) {
      const n = Number(v);
      s.config = { ...s.config, maxBulkLength: n };
      for (const c of s.clients.values()) c.parser.maxBulkLength = n;
    },
  },
  timeout: {
    get: (s) => String(s.config.idleTimeout),
    set(s, v) {
      s.config = { ...s.config, idleTimeout: Number(v) };
    },
  },
  // As Redis: new connections get the new value, open ones keep theirs.
  'tcp-keepalive': {
    get: (s) => String(s.config.tcpKeepAlive),
    set(s, v) {
      s.config = { ...s.config, tcpKeepAlive: Number(v) };
    },
  },
  // Encoding thresholds: process-wide, as collections keeps them (encodingLimits).
  'hash-max-listpack-entries': limit('hashMaxListpackEntries'),
  'hash-max-listpack-value': limit('hashMaxListpackValue'),
  'set-max-intset-entries': limit('setMaxIntsetEntries'),
  'zset-max-listpack-entries': limit('zsetMaxListpackEntries'),
  'zset-max-listpack-value': limit('zsetMaxListpackValue'),
  'list-max-listpack-size': limit('listMaxListpackSize'),
  'client-query-buffer-limit': {
    get: (s) => String(s.config.queryBufferLimit),
    set(s, v) {
      s.config = { ...s.config, queryBufferLimit: Number(v) };
    },
  },
  'protected-mode': {
    get: (s) => (s.config.protectedMode ? 'yes' : 'no'),
    set(s, v) {
      s.config = { ...s.config, protectedMode: v === 'yes' };
    },
  },
  'client-output-buffer-limit': {
    get: (s) => formatOutputLimits(s.config.outputLimits),
    set(s, v) {
      const r = parseOutputLimits(v, s.config.outputLimits);
      // Checked before any change (checkValue), so this always parses.
      if ('limits' in r) s.config = { ...s.config, outputLimits: r.limits };
    },
  },
  'notify-keyspace-events': {
    get: (s) => formatNotifyFlags(s.config.notifyKeyspaceEvents),
    set(s, v) {
      s.config = { ...s.config, notifyKeyspaceEvents: parseNotifyFlags(v) ?? 0 };
    },
  },
  'tracking-table-max-keys': {
    get: (s) => String(s.state(trackingServer).maxKeys),
    set(s, v) {
      s.state(trackingServer).maxKeys = Number(v);
    },
  },
  // Read by the dispatcher on every command (as numbers); CONFIG GET prints the text stored.
  'slowlog-log-slower-than': {
    set(s, v) {
      store(s, 'slowlog-log-slower-than', v);
      s.slowlog.setSlowerThan(Number(v));
    },
  },
  'slowlog-max-len': {
    set(s, v) {
      store(s, 'slowlog-max-len', v);
      s.slowlog.maxLen = Number(v);
    },
  },
  'acllog-max-len': {
    set(s, v) {
      store(s, 'acllog-max-len', v);
      // As Redis: the log is trimmed when its next entry comes, not now.
      s.users.log.maxLen = Number(v);
    },
  },
  'latency-monitor-threshold': {
    set(s, v) {
      store(s, 'latency-monitor-threshold', v);
      s.latency.setThreshold(Number(v));
    },
  },
  'latency-tracking': {
    set(s, v) {
      store(s, 'latency-tracking', v);
      s.latencyTracking = v === 'yes';
    },
  },
  // The active expiry cycle's pace: every store's, open or opened later (server/expiry-pace.ts).
  hz: {
    get: (s) => String(s.expiryPace.configuredHz),
    set(s, v) {
      s.expiryPace.configuredHz = Number(v);
      s.expiryPace.update();
    },
  },
  'active-expire-effort': {
    get: (s) => String(s.expiryPace.effort),
    set(s, v) {
      s.expiryPace.effort = Number(v);
      s.expiryPace.update();
    },
  },
  'dynamic-hz': {
    get: (s) => (s.expiryPace.dynamic ? 'yes' : 'no'),
    set(s, v) {
      s.expiryPace.dynamic = v === 'yes';
      s.expiryPace.update();
    },
  },
  // New users and selectors (ACL SETUSER, ACL LOAD, `reset`) start with it.
  'acl-pubsub-default': {
    get: (s) => (s.users.selectorDefaults.allChannels ? 'allchannels' : 'resetchannels'),
    set(s, v) {
      s.users.selectorDefaults.allChannels = v === 'allchannels';
    },
  },
  databases: { get: (s) => String(s.keyspace.count) },
  port: { get: (s) => String(s.port), fixed: 'Unable to listen on this port. Check server logs.' },
  bind: { get: (s) => s.host, fixed: 'Failed to bind to specified addresses.' },
  // Reached only where enable-protected-configs allows it: Redis chdirs
  // there, and fails with chdir's reason (strerror).
  dir: {
    get: () => process.cwd(),
    refuses(v) {
      const st = statSync(v, { throwIfNoEntry: false });
      if (st === undefined) return 'No such file or directory';
      return st.isDirectory() ? undefined : 'Not a directory';
    },
    set(_s, v) {
      process.chdir(v);
    },
  },
  // Strata persists by checkpoints of its log, never by RDB; an app with an
  // AOF acts on appendonly itself (RespServerOptions.appParameters).
  appendonly: { get: () => 'no', fixed: 'Unable to turn on AOF. Check server logs.' },
  'tls-port': { fixed: TLS_FAILURE },
  'tls-cluster': { fixed: TLS_FAILURE },
  'tls-replication': { fixed: TLS_FAILURE },
};

/** The values CONFIG SET stored for parameters read back from here (no `get`), by their own name. */
const storedValues = serverSlot('config', () => new Map<string, string>());

function store(s: ServerState, name: string, text: string): void {
  s.state(storedValues).set(name, text);
}

/**
 * Redis's SENSITIVE_CONFIG parameters: CONFIG SET shows their values as
 * `(redacted)` in SLOWLOG and MONITOR, even when the command fails.
 */
const SENSITIVE = new Set(['masterauth', 'masteruser', 'requirepass']);

/** An app's value (RespServerOptions.configValues, read-only), under either name. */
function appValue(s: ServerState, p: ParameterName): (() => string) | undefined {
  const apps = s.configValues;
  if (Object.hasOwn(apps, p.spec.name)) return apps[p.spec.name];
  if (p.spec.alias !== undefined && Object.hasOwn(apps, p.spec.alias)) return apps[p.spec.alias];
  return undefined;
}

/**
 * A parameter's value as CONFIG GET prints it, for the families that act on
 * one Redis keeps (scripting reads busy-reply-threshold). `name` must be
 * in the table.
 */
export function readConfig(s: ServerState, name: string): string {
  const p = PARAMETER_NAMES.get(name);
  if (p === undefined) throw new TypeError(`no configuration parameter ${name}`);
  return currentValue(s, p);
}

/** The app's live parameter (RespServerOptions.appParameters), by its own name. */
function appParameter(s: ServerState, p: ParameterName): AppParameter | undefined {
  const apps = s.appParameters;
  return Object.hasOwn(apps, p.spec.name) ? apps[p.spec.name] : undefined;
}

function currentValue(s: ServerState, p: ParameterName): string {
  const app = appValue(s, p);
  if (app !== undefined) return app();
  const live = appParameter(s, p);
  if (live !== undefined) return live.get();
  const get = BINDINGS[p.spec.name]?.get;
  if (get !== undefined) return get(s);
  return s.peekState(storedValues)?.get(p.spec.name) ?? p.spec.default;
}

/**
 * Redis 7.0's CONFIG GET: each argument an exact name (any case, answered
 * under the name as given, hidden parameters too) or a glob (matched
 * case-insensitively against every name, aliases included); each parameter
 * once. The app's own settings (configValues) match the same way.
 */
function configGet(c: Client, argv: Buffer[]): undefined {
  const s = c.server;
  const found = new Map<string, [string, string]>();
  const apps = s.configValues;
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    const typed = arg.toString('latin1');
    if (!/[[*?]/.test(typed)) {
      const lower = typed.toLowerCase();
      if (found.has(lower)) continue;
      const p = PARAMETER_NAMES.get(lower);
      if (p !== undefined) found.set(lower, [typed, currentValue(s, p)]);
      else {
        const app = Object.keys(apps).find((name) => name.toLowerCase() === lower);
        if (app !== undefined) found.set(lower, [typed, apps[app]!()]);
      }
      continue;
    }
    const glob = compileGlob(arg, { nocase: true });
    const matches = (name: string) => {
      const bytes = Buffer.from(name, 'latin1');
      return glob.match(bytes, 0, bytes.length);
    };
    for (const [name, p] of PARAMETER_NAMES) {
      if (p.spec.hidden === true || found.has(name) || !matches(name)) continue;
      found.set(name, [name, currentValue(s, p)]);
    }
    for (const [name, get] of Object.entries(apps)) {
      const lower = name.toLowerCase();
      if (!found.has(lower) && matches(name)) found.set(lower, [name, get()]);
    }
  }
  c.reply.map(found.size);
  for (const [k, v] of found.values()) c.reply.bulk(k).bulk(v);
  return undefined;
}

/** Redis's CONFIG REWRITE: the app's config file, rewritten with every parameter's current value. */
function configRewrite(c: Client): CommandResult {
  const s = c.server;
  const hook = s.configRewrite;
  if (hook === null) {
    throw new CommandError('ERR_CONFIG_REWRITE', 'ERR The server is running without a config file');
  }
  // Without an aclfile the users are written as `user` lines, every one (default too).
  const users = aclFileName(s) === '' ? aclFileText(s.users).split('\n').slice(0, -1) : null;
  return hook((text) =>
    rewriteConfigText(text, (spec) => currentValue(s, PARAMETER_NAMES.get(spec.name)!), users),
  ).then(
    () => {
      c.reply.simple('OK');
    },
    (e: unknown) => {
      throw new CommandError(
        'ERR_CONFIG_REWRITE',
        `ERR Rewriting config file: ${e instanceof Error ? e.message : String(e)}`,
      );
    },
  );
}

function setFailed(name: string, reason?: string): CommandError {
  return new CommandError(
    'ERR_SYNTAX',
    `ERR CONFIG SET failed (possibly related to argument '${name}')${reason === undefined ? '' : ` - ${reason}`}`,
    true,
  );
}

function unknownOption(name: string): CommandError {
  return new CommandError(
    'ERR_SYNTAX',
    `ERR Unknown option or number of arguments for CONFIG SET - '${name}'`,
    true,
  );
}

/** enable-protected-configs: `yes`, or `local` for a loopback client (Redis's allowProtectedAction). */
function protectedAllowed(c: Client): boolean {
  const setting = readConfig(c.server, 'enable-protected-configs');
  return setting === 'yes' || (setting === 'local' && isLoopback(c.socket.remoteAddress));
}

/**
 * Redis 7.0's CONFIG SET: all the name/value pairs or none. Its order of
 * checks: the names (unknown, immutable, protected, twice in one call;
 * the first one wrong is the error), then the values in order, then
 * whether each change can be applied; only then is anything changed.
 * Protected configs (dir, dbfilename) are refused unless
 * enable-protected-configs allows them (immutable: set at start).
 */
function configSet(c: Client, argv: Buffer[]): undefined {
  if (argv.length % 2 !== 0) throw syntaxError();
  for (let i = 2; i < argv.length; i += 2) {
    const p = PARAMETER_NAMES.get(argv[i]!.toString('latin1').toLowerCase());
    if (p !== undefined && SENSITIVE.has(p.spec.name)) c.redact(i + 1);
  }
  const s = c.server;
  const pairs: { p: ParameterName; value: string }[] = [];
  const seen = new Set<string>();
  for (let i = 2; i < argv.length; i += 2) {
    const typed = argv[i]!.toString('latin1');
    const p = PARAMETER_NAMES.get(typed.toLowerCase());
    if (p === undefined) throw unknownOption(typed);
    if (!p.spec.mutable) throw setFailed(typed, "can't set immutable config");
    if (p.spec.protected === true && !protectedAllowed(c)) {
      throw setFailed(typed, "can't set protected config");
    }
    if (seen.has(p.name)) throw setFailed(typed, 'duplicate parameter');
    seen.add(p.name);
    pairs.push({ p, value: argv[i + 1]!.toString('latin1') });
  }
  const changes: { p: ParameterName; text: string }[] = [];
  for (const { p, value } of pairs) {
    const checked = checkValue(p.spec, value);
    if (!checked.ok) throw setFailed(p.name, checked.reason);
    changes.push({ p, text: checked.text });
  }
  for (const { p, text } of changes) {
    if (text === currentValue(s, p)) continue;
    // An app's settings are read-only; Redis words a failure to apply with no reason so.
    if (appValue(s, p) !== undefined) throw setFailed(p.name);
    // Fixed here, unless the app acts on it (appendonly with strata-server's AOF).
    const binding = BINDINGS[p.spec.name];
    if (binding !== undefined && appParameter(s, p) === undefined) {
      const reason = binding.fixed ?? binding.refuses?.(text);
      if (reason !== undefined) throw setFailed(p.name, reason);
    }
  }
  // Applied in order; an app that cannot apply its value makes the ones
  // before it go back to what they were (Redis's restoreBackupConfig).
  const applied: { p: ParameterName; old: string }[] = [];
  for (const { p, text } of changes) {
    const old = currentValue(s, p);
    if (text === old) continue;
    const failed = applyValue(s, p, text);
    if (failed !== undefined) {
      for (const back of applied.reverse()) applyValue(s, back.p, back.old);
      throw setFailed(p.name, failed);
    }
    applied.push({ p, old });
  }
  c.reply.simple('OK');
  return undefined;
}

/** Sets one parameter; an app's reason when it could not (nothing changed then). */
function applyValue(s: ServerState, p: ParameterName, text: string): string | undefined {
  const live = appParameter(s, p);
  if (live !== undefined) return live.set(text);
  const set = BINDINGS[p.spec.name]?.set;
  if (set !== undefined) set(s, text);
  else if (BINDINGS[p.spec.name]?.get === undefined) s.state(storedValues).set(p.spec.name, text);
  return undefined;
}

const FLAGS = ['admin', 'noscript', 'loading', 'stale'] as const;
const meta = { ...NO_KEYS, acl: [], group: 'server' } as const;

const HELP = [
  'CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'GET <pattern>',
  '    Return parameters matching the glob-like <pattern> and their values.',
  'SET <directive> <value>',
  '    Set the configuration <directive> to <value>.',
  'RESETSTAT',
  '    Reset statistics reported by the INFO command.',
  'REWRITE',
  '    Rewrite the configuration file.',
  'HELP',
  '    Prints this help.',
];

export const configCommand: CommandDefinition = {
  name: 'config',
  arity: -2,
  flags: [],
  ...meta,
  since: '2.0.0',
  complexity: 'Depends on subcommand.',
  summary: 'A container for server configuration commands.',
  subcommands: [
    {
      name: 'get',
      arity: -3,
      flags: FLAGS,
      ...meta,
      since: '2.0.0',
      complexity: 'O(N) when N is the number of configuration parameters provided',
      summary: 'Returns the effective values of configuration parameters.',
      handler: configGet,
    },
    {
      name: 'set',
      arity: -4,
      flags: [...FLAGS, 'may_replicate'],
      ...meta,
      since: '2.0.0',
      complexity: 'O(N) when N is the number of configuration parameters provided',
      summary: 'Sets configuration parameters in-flight.',
      handler: configSet,
    },
    {
      name: 'resetstat',
      arity: 2,
      flags: FLAGS,
      ...meta,
      since: '2.0.0',
      complexity: 'O(1)',
      summary: "Resets the server's statistics.",
      handler(c) {
        const s = c.server;
        s.stats.commands = 0;
        s.stats.connections = 0;
        s.stats.rejectedConnections = 0;
        s.stats.netInput = 0;
        s.stats.netOutput = 0;
        s.stats.expiredKeys = 0;
        s.stats.errorReplies = 0;
        s.keyspace.lazyfree.freed = 0;
        s.errorsByPrefix.clear();
        for (const spec of s.table) {
          for (const x of spec.subcommands === null ? [spec] : [spec, ...spec.subcommands]) {
            x.calls = 0;
            x.usec = 0;
            x.rejectedCalls = 0;
            x.failedCalls = 0;
            x.histogram = null;
          }
        }
        c.reply.simple('OK');
        return undefined;
      },
    },
    {
      name: 'rewrite',
      arity: 2,
      flags: ['admin', 'noscript', 'loading', 'stale'],
      ...meta,
      since: '2.8.0',
      complexity: 'O(1)',
      summary: 'Persists the effective configuration to file.',
      handler: configRewrite,
    },
    {
      name: 'help',
      arity: 2,
      flags: ['loading', 'stale'],
      ...meta,
      since: '5.0.0',
      complexity: 'O(1)',
      summary: 'Returns helpful text about the different subcommands.',
      handler: helpReply(HELP),
    },
  ],
};
