import { integerOrNaN } from '../../args.js';
import { CommandError } from '../../errors.js';
import type { CommandDefinition, CommandFlagName } from '../../server/command-table.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { subcommandSyntaxError } from './subcommand-syntax-error.js';

const FLAGS: CommandFlagName[] = ['admin', 'loading', 'stale'];
const meta = { ...NO_KEYS, acl: [], group: 'server', since: '2.2.12' } as const;

const HELP = [
  'SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'GET [<count>]',
  '    Return top <count> entries from the slowlog (default: 10, -1 mean all).',
  '    Entries are made of:',
  '    id, timestamp, time in microseconds, arguments array, client IP and port,',
  '    client name',
  'LEN',
  '    Return the length of the slowlog.',
  'RESET',
  '    Reset the slowlog.',
  'HELP',
  '    Prints this help.',
];

const countError = () =>
  new CommandError('ERR_OUT_OF_RANGE', 'ERR count should be greater than or equal to -1');

/**
 * SLOWLOG GET [count] | LEN | RESET | HELP, Redis 7.0's (slowlog.c). The
 * entries are the dispatcher's (ServerState.slowlog): every command whose
 * time reached slowlog-log-slower-than µs (0: all, negative: none), the
 * newest slowlog-max-len of them.
 */
export const slowlogCommand: CommandDefinition = {
  name: 'slowlog',
  arity: -2,
  flags: [],
  ...meta,
  complexity: 'Depends on subcommand.',
  summary: 'A container for slow log commands.',
  subcommands: [
    {
      name: 'get',
      arity: -2,
      flags: FLAGS,
      ...meta,
      tips: ['request_policy:all_nodes', 'nondeterministic_output'],
      complexity: 'O(N) where N is the number of entries returned',
      summary: "Returns the slow log's entries.",
      handler(c, argv) {
        if (argv.length > 3) throw subcommandSyntaxError(argv);
        const log = c.server.slowlog;
        let count = 10;
        if (argv.length === 3) {
          count = integerOrNaN(argv[2]!);
          if (!(count >= -1)) throw countError();
          if (count === -1) count = log.length;
        }
        const w = c.reply;
        const entries = log.newest(count);
        w.array(entries.length);
        for (const e of entries) {
          w.array(6).integer(e.id).integer(e.time).integer(e.duration);
          w.array(e.args.length);
          for (const a of e.args) w.bulk(a);
          w.bulk(e.peer).bulk(e.name);
        }
        return undefined;
      },
    },
    {
      name: 'len',
      arity: 2,
      flags: FLAGS,
      ...meta,
      tips: ['request_policy:all_nodes', 'response_policy:agg_sum', 'nondeterministic_output'],
      complexity: 'O(1)',
      summary: 'Returns the number of entries in the slow log.',
      handler(c) {
        c.reply.integer(c.server.slowlog.length);
        return undefined;
      },
    },
    {
      name: 'reset',
      arity: 2,
      flags: FLAGS,
      ...meta,
      tips: ['request_policy:all_nodes', 'response_policy:all_succeeded'],
      complexity: 'O(N) where N is the number of entries in the slowlog',
      summary: 'Clears all entries from the slow log.',
      handler(c) {
        c.server.slowlog.reset();
        c.reply.simple('OK');
        return undefined;
      },
    },
    {
      name: 'help',
      arity: 2,
      flags: ['loading', 'stale'],
      ...meta,
      since: '6.2.0',
      complexity: 'O(1)',
      summary: 'Show helpful text about the different subcommands',
      handler: helpReply(HELP),
    },
  ],
};
