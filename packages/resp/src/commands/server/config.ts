import { compileGlob } from '@strata/scan';
import { parseInteger } from '../../args.js';
import { CommandError } from '../../errors.js';
import { parseSize } from '../../memory-size.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition } from '../../server/command-table.js';
import type { OutputLimit, OutputLimits, ServerState } from '../../server/server-state.js';
import { formatNotifyFlags, parseNotifyFlags } from '../pubsub/keyspace-events.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { trackingServer } from '../tracking/tracking-state.js';

interface Parameter {
  get(s: ServerState): string;
  /** Absent: read only (CONFIG SET refuses it, as Redis does for immutable ones). */
  set?(s: ServerState, value: string): void;
}

function positive(value: string, name: string): number {
  let n: number;
  try {
    n = parseInteger(Buffer.from(value));
  } catch {
    n = Number.NaN;
  }
  if (!(n > 0)) {
    throw new CommandError(
      'ERR_SYNTAX',
      `ERR CONFIG SET failed (possibly related to argument '${name}') - argument couldn't be parsed into an integer`,
    );
  }
  return n;
}

/** Redis's CONFIG GET form: `normal 0 0 0 slave 268435456 67108864 60 pubsub ...`. */
function formatOutputLimits(limits: OutputLimits): string {
  const one = (name: string, l: OutputLimit) => `${name} ${l.hard} ${l.soft} ${l.softSeconds}`;
  return [
    one('normal', limits.normal),
    one('slave', limits.replica),
    one('pubsub', limits.pubsub),
  ].join(' ');
}

/** CONFIG SET client-output-buffer-limit: `<class> <hard> <soft> <seconds>`, repeated; the classes named change. */
function parseOutputLimits(value: string, current: OutputLimits): OutputLimits {
  const fail = (why: string) =>
    new CommandError(
      'ERR_SYNTAX',
      `ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - ${why}`,
    );
  const words = value.split(' ').filter((w) => w !== '');
  if (words.length % 4 !== 0) {
    throw fail('Wrong number of arguments in buffer limit configuration.');
  }
  const next: { -readonly [K in keyof OutputLimits]: OutputLimit } = { ...current };
  for (let i = 0; i < words.length; i += 4) {
    const name = words[i]!.toLowerCase();
    const cls =
      name === 'normal'
        ? 'normal'
        : name === 'slave' || name === 'replica'
          ? 'replica'
          : name === 'pubsub'
            ? 'pubsub'
            : null;
    if (cls === null) throw fail('Invalid client class specified in buffer limit configuration.');
    const hard = parseSize(words[i + 1]!);
    const soft = parseSize(words[i + 2]!);
    const seconds = /^\d+$/.test(words[i + 3]!) ? Number(words[i + 3]) : null;
    if (hard === null || soft === null || seconds === null) {
      throw fail('Error in hard, soft or soft_seconds setting in buffer limit configuration.');
    }
    next[cls] = { hard, soft, softSeconds: seconds };
  }
  return next;
}

function nonNegative(value: string, name: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw new CommandError(
      'ERR_SYNTAX',
      `ERR CONFIG SET failed (possibly related to argument '${name}') - argument couldn't be parsed into an integer`,
    );
  }
  return n;
}

/** The settings that exist here, under Redis's names. */
const PARAMETERS: Record<string, Parameter> = {
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
      s.config = { ...s.config, maxclients: positive(v, 'maxclients') };
    },
  },
  'proto-max-bulk-len': {
    get: (s) => String(s.config.maxBulkLength),
    set(s, v) {
      const n = positive(v, 'proto-max-bulk-len');
      s.config = { ...s.config, maxBulkLength: n };
      for (const c of s.clients.values()) c.parser.maxBulkLength = n;
    },
  },
  'protected-mode': {
    get: (s) => (s.config.protectedMode ? 'yes' : 'no'),
    set(s, v) {
      const lower = v.toLowerCase();
      if (lower !== 'yes' && lower !== 'no') {
        throw new CommandError(
          'ERR_SYNTAX',
          `ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'`,
        );
      }
      s.config = { ...s.config, protectedMode: lower === 'yes' };
    },
  },
  'client-output-buffer-limit': {
    get: (s) => formatOutputLimits(s.config.outputLimits),
    set(s, v) {
      s.config = { ...s.config, outputLimits: parseOutputLimits(v, s.config.outputLimits) };
    },
  },
  'notify-keyspace-events': {
    get: (s) => formatNotifyFlags(s.config.notifyKeyspaceEvents),
    set(s, v) {
      const flags = parseNotifyFlags(v);
      if (flags === null) {
        throw new CommandError(
          'ERR_SYNTAX',
          "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'.",
        );
      }
      s.config = { ...s.config, notifyKeyspaceEvents: flags };
    },
  },
  'tracking-table-max-keys': {
    get: (s) => String(s.state(trackingServer).maxKeys),
    set(s, v) {
      s.state(trackingServer).maxKeys = nonNegative(v, 'tracking-table-max-keys');
    },
  },
  databases: { get: (s) => String(s.keyspace.count) },
  port: { get: (s) => String(s.port) },
  bind: { get: (s) => s.host },
  // Strata persists by checkpoints of its log, never by RDB; an app with an
  // AOF reports appendonly through RespServerOptions.configValues.
  save: { get: () => '' },
  appendonly: { get: () => 'no' },
  appendfsync: { get: () => 'everysec' },
};

function configGet(c: Client, argv: Buffer[]): undefined {
  const found = new Map<string, string>();
  const apps = c.server.configValues;
  for (let i = 2; i < argv.length; i++) {
    const glob = compileGlob(argv[i]!, { nocase: true });
    for (const [name, p] of Object.entries(PARAMETERS)) {
      const bytes = Buffer.from(name);
      if (glob.match(bytes, 0, bytes.length)) found.set(name, p.get(c.server));
    }
    // The app's settings (an AOF's appendonly, appendfsync) win over the defaults here.
    for (const [name, get] of Object.entries(apps)) {
      const bytes = Buffer.from(name);
      if (glob.match(bytes, 0, bytes.length)) found.set(name, get());
    }
  }
  c.reply.map(found.size);
  for (const [k, v] of found) c.reply.bulk(k).bulk(v);
  return undefined;
}

/**
 * Redis settings no client may change at run time: the paths of files the
 * server writes or reads (protected configs, refused unless
 * enable-protected-configs, which is off) and start-up only ones
 * (immutable). Refused with Redis's words, so CONFIG SET can never point the
 * server at files outside its data directory.
 */
const REFUSED: Record<string, 'protected' | 'immutable'> = {
  dir: 'protected',
  dbfilename: 'protected',
  appendfilename: 'immutable',
  appenddirname: 'immutable',
  logfile: 'immutable',
  pidfile: 'immutable',
  unixsocket: 'immutable',
  aclfile: 'immutable',
  'cluster-config-file': 'immutable',
  'enable-protected-configs': 'immutable',
  'enable-debug-command': 'immutable',
  'enable-module-command': 'immutable',
  daemonize: 'immutable',
};

function configSet(c: Client, argv: Buffer[]): undefined {
  if (argv.length % 2 !== 0) {
    throw new CommandError('ERR_SYNTAX', "ERR wrong number of arguments for 'config|set' command");
  }
  const changes: [Parameter, string][] = [];
  for (let i = 2; i < argv.length; i += 2) {
    const name = argv[i]!.toString('latin1');
    const refused = REFUSED[name.toLowerCase()];
    if (refused !== undefined) {
      throw new CommandError(
        'ERR_SYNTAX',
        `ERR CONFIG SET failed (possibly related to argument '${name}') - can't set ${refused} config`,
        true,
      );
    }
    const p = PARAMETERS[name.toLowerCase()];
    if (p === undefined || p.set === undefined) {
      throw new CommandError(
        'ERR_SYNTAX',
        `ERR Unknown option or number of arguments for CONFIG SET - '${name}'`,
        true,
      );
    }
    changes.push([p, argv[i + 1]!.toString('latin1')]);
  }
  for (const [p, v] of changes) p.set!(c.server, v);
  c.reply.simple('OK');
  return undefined;
}

const FLAGS = ['admin', 'noscript', 'loading', 'stale'] as const;
const meta = { ...NO_KEYS, acl: [], group: 'server' } as const;

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
        s.errorsByPrefix.clear();
        for (const spec of s.table) {
          for (const x of spec.subcommands === null ? [spec] : [spec, ...spec.subcommands]) {
            x.calls = 0;
            x.failedCalls = 0;
          }
        }
        c.reply.simple('OK');
        return undefined;
      },
    },
  ],
};
