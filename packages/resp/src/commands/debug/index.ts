import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import type { CommandFamily } from '../family.js';
import { memtoull } from '../server/config-validate.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { setActiveExpire } from './active-expire.js';
import { checkDebugAllowed } from './debug-gate.js';
import { DEBUG_HELP } from './debug-help.js';
import { debugLayout } from './debug-layout.js';
import { debugObject } from './debug-object.js';
import { debugReload } from './debug-reload.js';
import { debugSleep } from './debug-sleep.js';
import { datasetDigest, digestHex, emptyDigest, xorValueDigest } from './digest.js';
import { stringmatchTest } from './stringmatch-test.js';

/** Redis's error for a DEBUG subcommand it does not know, or known with the wrong count. */
function unknownSubcommand(argv: readonly Buffer[]): CommandError {
  return new CommandError(
    'ERR_UNKNOWN_SUBCOMMAND',
    `ERR unknown subcommand or wrong number of arguments for '${argv[1]!.toString('latin1', 0, 128)}'. Try DEBUG HELP.`,
    true,
  );
}

/** quicklistisSetPackedThreshold's bound: under 4 GiB less 1 MiB. */
const PACKED_THRESHOLD_MAX = (1n << 32n) - (1n << 20n);

type Subcommand = {
  /** argc as Redis checks it (DEBUG and the subcommand included)... */
  readonly argc: number;
  /** ...or the most it takes, when it takes from `argc` up (Infinity: any). */
  readonly maxArgc?: number;
  readonly run: (c: Client, argv: Buffer[]) => CommandResult;
};

const ok = (c: Client): undefined => {
  c.reply.simple('OK');
  return undefined;
};

/**
 * What runs here. Redis's other subcommands (POPULATE, PROTOCOL, crashes,
 * allocator and cluster ones...) answer as one it does not know.
 */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  help: {
    argc: 2,
    run: (c) => {
      c.reply.array(DEBUG_HELP.length);
      for (const l of DEBUG_HELP) c.reply.simple(l);
      return undefined;
    },
  },
  sleep: { argc: 3, run: debugSleep },
  reload: { argc: 2, maxArgc: Number.POSITIVE_INFINITY, run: debugReload },
  digest: {
    argc: 2,
    run: (c) =>
      c.server.runExclusive(c, async () => {
        c.reply.simple(digestHex(await datasetDigest(c.server)));
      }),
  },
  // Redis reads the keys without lookupKey: no key miss counted or notified. A key past its
  // TTL reads as missing here (zeros), where Redis digests it until it is deleted.
  'digest-value': {
    argc: 2,
    maxArgc: Number.POSITIVE_INFINITY,
    run: (c, argv) =>
      c.server.runExclusive(c, async () => {
        await c.server.keyspace.ensure(c.db);
        const digests: string[] = [];
        for (let j = 2; j < argv.length; j++) {
          const d = emptyDigest();
          await xorValueDigest(d, c.store, c.collections, argv[j]!);
          digests.push(digestHex(d));
        }
        c.reply.array(digests.length);
        for (const d of digests) c.reply.simple(d);
      }),
  },
  'stringmatch-test': { argc: 2, run: stringmatchTest },
  listpack: { argc: 3, run: debugLayout('listpack') },
  quicklist: { argc: 3, maxArgc: 4, run: debugLayout('quicklist') },
  // No replication IDs here (INFO replication shows none): what stays is Redis's log line and OK.
  'change-repl-id': {
    argc: 2,
    run: (c) => {
      c.server.log('warning', 'Changing replication IDs after receiving DEBUG change-repl-id');
      return ok(c);
    },
  },
  object: { argc: 3, run: debugObject },
  'set-active-expire': {
    argc: 3,
    run: (c, argv) => {
      setActiveExpire(c.server, argv[2]!.toString('latin1'));
      return ok(c);
    },
  },
  // Lists here have no packed/plain node threshold: checked as Redis checks it, then unused.
  'quicklist-packed-threshold': {
    argc: 3,
    run: (c, argv) => {
      const sz = memtoull(argv[2]!.toString('latin1'));
      if (sz === null || sz > PACKED_THRESHOLD_MAX) {
        throw new CommandError(
          'ERR_OUT_OF_RANGE',
          'ERR argument must be a memory value bigger than 1 and smaller than 4gb',
        );
      }
      return ok(c);
    },
  },
};

/**
 * DEBUG, refused unless enable-debug-command allows it (debug-gate.ts).
 * Not a container in Redis (no subcommands in COMMAND INFO): it reads its
 * first argument itself.
 */
const debugCommand: CommandDefinition = {
  name: 'debug',
  arity: -2,
  flags: ['admin', 'noscript', 'loading', 'stale'],
  ...NO_KEYS,
  acl: [],
  group: 'server',
  since: '1.0.0',
  complexity: 'Depends on subcommand.',
  summary: 'A container for debugging commands.',
  // DEBUG OBJECT finds its key without lookupKey: no touch.
  touch: 'none',
  handler(c, argv) {
    checkDebugAllowed(c);
    const name = argv[1]!.toString('latin1').toLowerCase();
    const sub = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
    if (sub === undefined || argv.length < sub.argc || argv.length > (sub.maxArgc ?? sub.argc)) {
      throw unknownSubcommand(argv);
    }
    return sub.run(c, argv);
  },
};

export const debugFamily: CommandFamily = {
  name: 'debug',
  commands: [debugCommand],
};
