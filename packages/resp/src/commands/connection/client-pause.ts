import { eqi, integerOrNaN } from '../../args.js';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import { PAUSE_ALL, PAUSE_WRITE } from '../../server/client-pause.js';
import type { CommandDefinition, CommandSpec } from '../../server/command-table.js';
import { subcommandSyntaxError } from '../server/subcommand-syntax-error.js';
import { NO_KEYS } from '../shared/key-positions.js';

const FLAGS = ['admin', 'noscript', 'loading', 'stale'] as const;
const meta = { ...NO_KEYS, acl: ['connection'], group: 'connection' } as const;

/**
 * What CLIENT PAUSE WRITE holds: Redis 7.0's is_may_replicate_command.
 * A command flagged write or may_replicate (CommandSpec.mayReplicate:
 * PUBLISH, PFCOUNT, EVAL, EVALSHA, FCALL too), unless its arguments say it
 * will not write (`mayWriteWith`: a script or function flagged
 * `no-writes`); an EXEC whose queue has such a command.
 */
export function mayWrite(c: Client, spec: CommandSpec, argv: readonly Buffer[]): boolean {
  if (spec.runsTransaction) {
    return c.multi?.queue.some((q) => mayWrite(c, q.spec, q.argv)) ?? false;
  }
  if (!spec.mayReplicate) return false;
  return spec.definition.mayWriteWith?.(c, argv) ?? true;
}

/**
 * CLIENT PAUSE timeout [WRITE|ALL] and CLIENT UNPAUSE, Redis 7.0's: the
 * timeout in ms from now (0 or past: no pause; a pause already running
 * only grows, in time and in level). The holding is the dispatcher's
 * (ClientPause).
 */
export const clientPauseSubcommands: CommandDefinition[] = [
  {
    name: 'pause',
    arity: -3,
    flags: FLAGS,
    ...meta,
    since: '3.0.0',
    complexity: 'O(1)',
    summary: 'Suspends commands processing.',
    handler(c, argv) {
      let level = PAUSE_ALL;
      if (argv.length === 4) {
        if (eqi(argv[3]!, 'write')) level = PAUSE_WRITE;
        else if (!eqi(argv[3]!, 'all')) {
          throw new CommandError('ERR_SYNTAX', 'ERR CLIENT PAUSE mode must be WRITE or ALL');
        }
      } else if (argv.length > 4) throw subcommandSyntaxError(argv);
      c.server.clientPause.pause(level, pauseEnd(argv[2]!), mayWrite);
      c.reply.simple('OK');
      return undefined;
    },
  },
  {
    name: 'unpause',
    arity: 2,
    flags: FLAGS,
    ...meta,
    since: '6.2.0',
    complexity: 'O(N) Where N is the number of paused clients',
    summary: 'Resumes processing commands from paused clients.',
    handler(c) {
      c.server.clientPause.unpause();
      c.reply.simple('OK');
      return undefined;
    },
  },
];

/**
 * When a pause of `arg` ms ends (Unix ms), as Redis's
 * getTimeoutFromObjectOrReply: an integer, not negative; 0 is none. Redis
 * adds it to the time in 64 bits, so one past what fits wraps into the past.
 */
function pauseEnd(arg: Buffer): number {
  if (Number.isNaN(integerOrNaN(arg))) {
    throw new CommandError('ERR_NOT_INTEGER', 'ERR timeout is not an integer or out of range');
  }
  const ms = BigInt(arg.toString('latin1'));
  if (ms < 0n) throw new CommandError('ERR_OUT_OF_RANGE', 'ERR timeout is negative');
  if (ms === 0n) return 0;
  return Number(BigInt.asIntN(64, BigInt(Date.now()) + ms));
}
